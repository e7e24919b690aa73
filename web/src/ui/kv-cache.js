'use strict';
// The KV-cache stepper's data handling and sentences, DOM-free. Tensors here are plain
// { shape, data: Float32Array }; the functions only pick and copy entries (which token,
// which head), never compute attention: every number shown comes from the engine.

const { num, grouped, counted } = require('./format.js');

// The stepper's model: 4 query heads of width 4, a sentence of up to 12 tokens, seeded vectors.
const HEADS = 4;
const D_HEAD = 4;
const MAX_TOKENS = 12;
const DEFAULT_TOKENS = ['once', 'upon', 'a', 'time', 'a', 'small', 'robot', 'learned', 'to', 'read'];

/**
 * The seeded queries [HEADS, n, D_HEAD] and keys and values for the most key/value heads (fewer
 * key/value heads use the first ones), from the engine's randomNormal.
 */
function seededInputs(lab, seed, n) {
  return {
    Q: lab.randomNormal({ shape: [HEADS, n, D_HEAD], seed }),
    K: lab.randomNormal({ shape: [HEADS, n, D_HEAD], seed: seed + 1 }),
    V: lab.randomNormal({ shape: [HEADS, n, D_HEAD], seed: seed + 2 }),
  };
}

/** The key/value head choices for `heads` query heads: one each, shared by pairs, one for all. */
function kvChoices(heads) {
  const out = [{ kvHeads: heads, name: 'MHA', label: `${heads} (multi-head: one per query head)` }];
  if (heads >= 4 && heads % 2 === 0) out.push({ kvHeads: heads / 2, name: 'GQA', label: `${heads / 2} (grouped-query: shared in pairs)` });
  out.push({ kvHeads: 1, name: 'MQA', label: `1 (multi-query: all ${heads} share one)` });
  return out;
}

/** Token t of a [heads, n, d] tensor as nested rows [heads][d] (what the cache appends and attends). */
function tokenRows({ shape, data }, t) {
  const [heads, n, d] = shape;
  if (!(t >= 0 && t < n)) throw new RangeError(`token ${t} is outside 0..${n - 1}`);
  return Array.from({ length: heads }, (_, h) => Array.from(data.subarray((h * n + t) * d, (h * n + t + 1) * d)));
}

/** The first `length` tokens of each of the first `heads` heads of a [H, n, d] tensor: [heads, length, d]. */
function prefix({ shape, data }, length, heads = shape[0]) {
  const [H, n, d] = shape;
  if (!(heads >= 1 && heads <= H && length >= 1 && length <= n)) throw new RangeError(`prefix(${length}, ${heads}) of [${shape.join(', ')}]`);
  const out = new Float32Array(heads * length * d);
  for (let h = 0; h < heads; h++) out.set(data.subarray(h * n * d, (h * n + length) * d), h * length * d);
  return { shape: [heads, length, d], data: out };
}

/**
 * Key/value heads [kvHeads, n, d] laid out for `heads` query heads [heads, n, d]: query head h
 * reads key/value head floor(h / (heads / kvHeads)), the grouping of grouped-query attention.
 */
function shareHeads({ shape, data }, heads) {
  const [kvHeads, n, d] = shape;
  if (!(kvHeads >= 1 && heads % kvHeads === 0)) throw new RangeError(`${kvHeads} key/value heads do not divide ${heads} query heads`);
  const group = heads / kvHeads, size = n * d;
  const out = new Float32Array(heads * size);
  for (let h = 0; h < heads; h++) out.set(data.subarray(Math.floor(h / group) * size, (Math.floor(h / group) + 1) * size), h * size);
  return { shape: [heads, n, d], data: out };
}

/** Rows [rows][cols] of a 2-D { shape, data } (for pictures and heatmaps). */
function rowsOf({ shape, data }) {
  const [r, c] = shape;
  return Array.from({ length: r }, (_, i) => Array.from(data.subarray(i * c, (i + 1) * c)));
}

/** A [H, L, d] tensor as nested rows [H][L][d]. */
function perHeadRows({ shape, data }) {
  const [H, L, d] = shape;
  return Array.from({ length: H }, (_, h) => Array.from({ length: L }, (_, t) => Array.from(data.subarray((h * L + t) * d, (h * L + t + 1) * d))));
}

/** The cache as a picture: row t = token t, the kv heads' d entries side by side. From rows [kvHeads][length][d]. */
function cacheRows(perHead) {
  const length = perHead[0].length;
  return Array.from({ length }, (_, t) => perHead.flatMap((rows) => rows[t]));
}

/** "1,536 bytes", "12 KiB" */
function bytesText(bytes) {
  if (bytes < 10 * 1024) return `${grouped(bytes)} bytes`;
  if (bytes < 10 * 1024 * 1024) return `${num(bytes / 1024, 1)} KiB`;
  return `${num(bytes / (1024 * 1024), 1)} MiB`;
}

/**
 * The sentence under step t.
 * @param s { tokens, t, heads, kvHeads, multiplyAdds, withoutCache (null while hidden), bytes, bytesPerToken, diff, weights: rows [heads][t + 1] }
 */
function narrateStep(s) {
  const token = `"${s.tokens[s.t]}"`;
  const length = s.t + 1;
  const grew = s.t === 0 ? `The cache starts with the key and value of ${token}` : `The key and value of ${token} are appended: the cache now holds ${length} tokens`;
  const share = s.kvHeads === s.heads ? `one key/value head per query head` : s.kvHeads === 1
    ? `a single key/value head that all ${s.heads} query heads share` : `${s.kvHeads} key/value heads, each shared by ${s.heads / s.kvHeads} query heads`;
  const cost = s.withoutCache === null
    ? `With the cache, attention in this step takes ${grouped(s.multiplyAdds)} multiply-adds (the cost without it is hidden until you answer the question).`
    : `With the cache, attention in this step takes ${grouped(s.multiplyAdds)} multiply-adds; recomputing causal attention over the whole prefix would take ${grouped(s.withoutCache)}, before the projections (see below the table).`;
  const same = s.diff === 0 ? 'exactly the same numbers' : `the same numbers up to float32 rounding (largest difference ${num(s.diff, 3)})`;
  return `${grew} (${share}, ${bytesText(s.bytes)} in float32, ${grouped(s.bytesPerToken)} per token). ` +
    `Only the query of ${token} is new: it is scored against ${length === 1 ? 'the one cached key' : `the ${length} cached keys`}, and nothing earlier is recomputed. ${cost} ` +
    `Its output row equals row ${length} of full causal attention over the same ${counted(length, 'token')}: ${same}.`;
}

/**
 * What the stepper's counts leave out: they are attention's own multiply-adds in one layer, and
 * a decoder without a cache recomputes far more than that.
 */
const SCOPE_NOTE = 'These are the multiply-adds of attention itself, in one layer. Without a cache a decoder does much more at every step: ' +
  'the keys and values of the earlier tokens are projections of each layer\'s input, and that input comes from every layer below, ' +
  'so it runs the whole network over the prefix again, projections and feed-forward layers included. With the cache only the new ' +
  'token goes through the network. In real models that recomputation, not attention\'s scores, is most of what the cache saves.';

/**
 * The doubling question: how much more does one step cost without the cache when the prefix
 * doubles? Choices are factors; the right one is the engine's ratio, to the nearest choice.
 */
const DOUBLING_CHOICES = [2, 4, 8];

function nearestChoice(ratio) {
  return DOUBLING_CHOICES.reduce((best, c) => (Math.abs(Math.log(c / ratio)) < Math.abs(Math.log(best / ratio)) ? c : best));
}

/**
 * @param choice the learner's factor; small and large the engine's multiply-adds without the cache at
 *   prefixes of `from` and `to` tokens; withSmall, withLarge the same with the cache
 */
function judgeDoubling(choice, { from, to, small, large, withSmall, withLarge }) {
  const ratio = large / small, withRatio = withLarge / withSmall;
  const right = nearestChoice(ratio) === Number(choice);
  const message = `${right ? 'Right' : 'Not quite'}: without the cache, attention in the step at ${to} tokens takes ${grouped(large)} multiply-adds against ` +
    `${grouped(small)} at ${from}, ${num(ratio, 2)} times as many: recomputing the prefix costs about n\u00b2, so doubling n roughly quadruples it. ` +
    `With the cache it is ${num(withRatio, 2)} times: one new query against n keys grows like n.`;
  return { ok: true, close: right, message,
    hint: 'Without the cache, the step recomputes every query of the prefix against every key up to it. How does the number of those pairs grow when the prefix doubles?' };
}

module.exports = { HEADS, D_HEAD, MAX_TOKENS, DEFAULT_TOKENS, seededInputs, kvChoices, tokenRows, prefix, shareHeads, rowsOf, perHeadRows, cacheRows, bytesText, narrateStep, SCOPE_NOTE, judgeDoubling, nearestChoice, DOUBLING_CHOICES };
