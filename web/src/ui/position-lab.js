'use strict';
// DOM-free logic of <position-lab>: reordering a sentence, reading the engine's results into
// what each part shows, and judging the predict-first answers. Every number it reads comes
// from the engine; nothing here computes attention or a position code.

const { num, fixed } = require('./format.js');

const PARTS = ['shuffle', 'sinusoidal', 'rope', 'alibi'];

/** `order` (indices into the original tokens) with the token at `index` moved by `delta` places; the same array at an edge. */
function move(order, index, delta) {
  const to = index + delta;
  if (!Number.isInteger(index) || index < 0 || index >= order.length || to < 0 || to >= order.length) return order;
  const out = order.slice();
  const [token] = out.splice(index, 1);
  out.splice(to, 0, token);
  return out;
}

/** An order read from the URL ("4,1,2,3,0"): a permutation of 0..n-1, else null. */
function parseOrder(text, n) {
  if (typeof text !== 'string' || !/^\d{1,3}(,\d{1,3})*$/.test(text)) return null;
  const order = text.split(',').map(Number);
  if (order.length !== n) return null;
  const seen = new Set(order);
  return seen.size === n && order.every((i) => i < n) ? order : null;
}

/** Positions a reader may type in the RoPE part (the engine takes up to 2^24 - 1). */
const MAX_POSITION = 100000;

/** A typed position: a whole number from 0 to MAX_POSITION, else null. */
function readPosition(text) {
  const t = String(text).trim();
  return /^\d{1,6}$/.test(t) && Number(t) <= MAX_POSITION ? Number(t) : null;
}

/**
 * Below this, a row's change is float32 rounding (the same sums taken in another order), not
 * a change of value: the engine's outputs are float32, about 1e-7 relative.
 */
const ROUNDING = 1e-5;
const changed = (change) => change > ROUNDING;

const isIdentity = (order) => order.every((o, p) => o === p);

/** Whether `order` reads the same words as the original (only copies of a word swapped): the model sees the same sentence. */
const sameSentence = (order, tokens) => order.every((o, p) => tokens[o] === tokens[p]);

/**
 * For each place of `order`, the original place its row is compared with: the k-th copy of a
 * word now is compared with the k-th copy of that word in the original order. Copies of a word
 * have the same vector, so the model cannot tell them apart: swapping the two "the"s changes
 * nothing, and is compared as nothing. With no repeated word this is `order` itself.
 */
function matchCopies(order, tokens) {
  const copies = new Map();
  tokens.forEach((w, i) => { if (!copies.has(w)) copies.set(w, []); copies.get(w).push(i); });
  const used = new Map();
  return order.map((o) => {
    const w = tokens[o], k = used.get(w) || 0;
    used.set(w, k + 1);
    return copies.get(w)[k];
  });
}

/** The keys a query row may read: the indices where the engine's masked stage is not -inf. */
function visibleKeys(maskedRow) {
  const out = [];
  for (let j = 0; j < maskedRow.length; j++) if (maskedRow[j] !== -Infinity) out.push(j);
  return out;
}

/**
 * What the shuffle part says about the current order.
 * @param rows [{ token, change, seenBefore: string[], seenNow: string[] }] in the current order:
 *   change is the engine's maxAbsDiff of the row against the original order's row of the same word (matchCopies)
 * @param settings { rope, causal, identity, same } same: the words read as in the original (copies of a word swapped)
 */
function shuffleReport(rows, { rope, causal, identity, same }) {
  if (identity) return 'This is the sentence\u2019s own order: move a token (or press Reverse) to compare its output rows with these.';
  if (same) return 'The same sentence: two copies of one word swapped places. They have one vector, so every output row is as it was.';
  const moved = rows.filter((r) => changed(r.change));
  const largest = Math.max(0, ...rows.map((r) => r.change));
  if (!moved.length) {
    const rounding = largest > 0 ? `only ${num(largest, 3)}, float32 rounding of the same sums taken in another order` : '0';
    return `Every row kept its value (the largest change is ${rounding}): each output row moved with its token. ${causal
      ? 'With the causal mask, each token still sees the same set of tokens here.' : 'Without positions, attention only sees which tokens are there, not where: it is permutation-equivariant.'}`;
  }
  const head = `${moved.length} of ${rows.length} rows changed (the largest by ${num(largest, 3)}).`;
  if (rope) return `${head} With RoPE, each score depends on how far apart the two tokens are, so a new order gives new scores and new outputs.`;
  if (causal) {
    const r = moved[0];
    return `${head} There are no positions, yet the causal mask lets each token see only itself and the tokens before it, so a move changes which tokens a row averages: \u201c${r.token}\u201d saw ${r.seenBefore.join(', ')}; now it sees ${r.seenNow.join(', ')}. Rows that still see the same tokens kept their values.`;
  }
  return head;
}

/** The query and key of the lesson's NumPy listing (RoPE section), d = 8: the rotary lab turns these. */
const LISTING_Q = Object.freeze([1.0, 0.5, -1.0, 2.0, 0.5, -0.5, 1.5, 0.25]);
const LISTING_K = Object.freeze([0.5, 1.0, 1.0, -0.5, 2.0, 0.5, -1.0, 1.0]);

const otherLayout = (layout) => (layout === 'half' ? 'interleaved' : 'half');
const layoutName = (layout) => (layout === 'half' ? 'half-split' : 'interleaved');

/**
 * The rotary lab's three ways to turn q and k, for a model trained in `layout`:
 * right: both in `layout`; wrong: both in the other layout (the model loaded with the wrong one);
 * mixed: q in the other layout, k in `layout` (two code paths that disagree).
 */
const ROPE_MODES = ['right', 'wrong', 'mixed'];
function ropeLayouts(mode, layout) {
  if (mode === 'wrong') return { q: otherLayout(layout), k: otherLayout(layout) };
  if (mode === 'mixed') return { q: otherLayout(layout), k: layout };
  return { q: layout, k: layout };
}

/** The rotary lab's choices: [mode, label] for a model trained in `layout`. */
function ropeChoices(layout) {
  const right = layoutName(layout), other = layoutName(otherLayout(layout));
  return [
    ['right', `right: q and k both ${right}`],
    ['wrong', `the mistake: loaded as ${other}, q and k both ${other}`],
    ['mixed', `another bug: q ${other}, k ${right}`],
  ];
}

/**
 * What the rotary lab says under its scores.
 * @param s { m, n, shift, mode, a, b, same, right } a, b: the engine's scores at (m, n) and
 *   (m + shift, n + shift) in this mode; same: a and b equal to float32; right: the score at (m, n) in the right layout
 */
function ropeReport({ m, n, shift, mode, a, b, same, right }) {
  const head = `score at (${m}, ${n}): ${num(a, 5)}; at (${m + shift}, ${n + shift}): ${num(b, 5)}.`;
  if (!same) return `${head} Different${mode === 'mixed' ? ': q and k turn in different pairs, so the score depends on where they are, not just how far apart' : ''}.`;
  return `${head} ${mode === 'wrong' ? `Not the ${num(right, 5)} the model was trained for, yet the same at both: the score still` : 'The same to float32 precision: the score'} depends on m \u2212 n only.`;
}

/** Whether two scores are the same number to float32 precision (a few units in the last place of the larger). */
function sameInFloat32(a, b) {
  return Math.abs(a - b) <= 8 * 2 ** -23 * Math.max(1, Math.abs(a), Math.abs(b));
}

/**
 * PE(i)·PE(j) against i - j for each i in `rows`, read from the engine's score matrix of the
 * table with itself: for k = -K..K, scores[i][i - k] (null where i - k is not a position).
 */
function relativeSeries(scores, rows, K) {
  const ks = Array.from({ length: 2 * K + 1 }, (_, t) => t - K);
  return { ks, series: rows.map((i) => ks.map((k) => (i - k >= 0 && i - k < scores.length ? scores[i][i - k] : null))) };
}

/** The end of an arrow for a pair of numbers, in an SVG box `size` wide centred on 0, `unit` long for a length of `longest`. */
function arrowEnd(pair, longest, unit) {
  const f = longest > 0 ? unit / longest : 0;
  return [pair[0] * f, -pair[1] * f];
}

/** The dimensions of RoPE's pair i in a layout of d dimensions. */
function pairDims(i, d, layout) {
  return layout === 'half' ? [i, i + d / 2] : [2 * i, 2 * i + 1];
}

const choiceJudge = (right, messages, hint) => (answer) => ({ ok: true, close: answer === right, message: messages[answer] || messages[right], hint });

/** Judges the shuffle question: what happens to the output rows when tokens move, with no positions and no mask. */
const judgeShuffle = choiceJudge('moves', {
  moves: 'Right: without positions, attention sees a set of tokens. Each token\u2019s output row keeps its value and moves with it (permutation-equivariant). Now try it, then switch positions on (RoPE, explained further on).',
  all: 'No: each token\u2019s scores, weights and output are the same wherever it stands, so every row keeps its value and only moves with its token. See below.',
  moved: 'No: the moved token\u2019s row does not change either. Attention sums over the same keys with the same weights wherever they stand.',
}, 'A token\u2019s output is a weighted sum over all the tokens, with weights from dot products of their vectors. Does anything in that depend on where a token stands?');

/** Judges the shuffle's second question: with a causal mask and still no positions, do rows keep their values? */
const judgeCausal = choiceJudge('change', {
  change: 'Right: the mask lets each token see only itself and the tokens before it, so moving a token changes which tokens some rows average over. So a decoder has a cue to position even with no position code; whether a model learns to use it is another matter.',
  keep: 'No: with the mask, a token sees only the tokens before it. Move one and the rows whose set of visible tokens changed get new values.',
}, 'With the mask, which tokens does the first token of the sentence see? And after you move another token to the front?');

/** Judges the sinusoidal question about PE(3)·PE(1) and PE(10)·PE(8), with the engine's two numbers. */
function judgeSinusoidal(answer, a, b) {
  return choiceJudge('same', {
    same: `Right: ${num(a, 4)} and ${num(b, 4)}. PE(i)·PE(j) depends only on i \u2212 j: each pair of dimensions is a point on a circle, and the dot product of two points depends on the angle between them.`,
    first: `No: they are the same, ${num(a, 4)} and ${num(b, 4)}: PE(i)·PE(j) depends only on i \u2212 j.`,
    second: `No: they are the same, ${num(a, 4)} and ${num(b, 4)}: PE(i)·PE(j) depends only on i \u2212 j.`,
  }, 'Each pair of dimensions is (sin(p\u03b8), cos(p\u03b8)). What is sin(a)sin(b) + cos(a)cos(b)?')(answer);
}

/** Judges the RoPE question: q and k at (3, 1), then both moved on by the same amount. */
function judgeRope(answer, a, b) {
  return choiceJudge('same', {
    same: `Right: ${num(a, 5)} at both. Each pair of q and k turns by the same extra angle, so the angle between them, and their dot product, stays: the score depends on m \u2212 n only.`,
    larger: `No: the score stays ${num(a, 5)}. Both vectors turn by the same extra angle in every pair.`,
    smaller: `No: the score stays ${num(a, 5)}. Both vectors turn by the same extra angle in every pair.`,
  }, 'RoPE turns each pair of q by m\u03b8 and of k by n\u03b8. Moving both on by s adds s\u03b8 to both: what happens to the angle between them?')(answer);
}

/** An ALiBi slope as the lab shows it: 1/2 ... 1/256 when it is one over a power of two (heads a power of two), else a decimal. */
function slopeText(slope) {
  const inv = 1 / slope;
  return slope > 0 && slope < 1 && Number.isInteger(Math.log2(inv)) ? `1/${inv}` : num(slope, 6);
}

/**
 * Judges the ALiBi question: which head gives the most attention to a token far back.
 * @param slopes the engine's slopes, head 1 first; n the tokens in the lab's heatmaps
 */
function judgeAlibi(answer, slopes, n) {
  const far = n - 1, first = slopes[0];
  return choiceJudge('last', {
    last: 'Right: the last head has the smallest slope, so its penalty grows slowest with distance: it can still look far back, while the first head mostly looks at the nearest tokens.',
    first: `No: the first head has the largest slope (${slopeText(first)} with ${slopes.length} heads), so a token ${far} back loses ${num(first * far, 4)} from its score. The last head\u2019s slope is smallest: it looks furthest back.`,
    same: 'No: each head has its own slope. The first head\u2019s is largest and it mostly looks at the nearest tokens; the last head\u2019s is smallest and it looks furthest back.',
  }, 'ALiBi subtracts slope \u00d7 distance from each score. Which head subtracts least from a score far back?')(answer);
}

/** A row of numbers as the shuffle table shows it: two decimals each, one format in a row. */
const outputText = (row) => `[${Array.from(row, (x) => fixed(x, 2)).join(', ')}]`;

module.exports = {
  PARTS, MAX_POSITION, readPosition, changed, move, parseOrder, isIdentity, sameSentence, matchCopies, visibleKeys, shuffleReport, sameInFloat32, relativeSeries, arrowEnd, pairDims,
  LISTING_Q, LISTING_K, ROPE_MODES, layoutName, ropeLayouts, ropeChoices, ropeReport, slopeText,
  judgeShuffle, judgeCausal, judgeSinusoidal, judgeRope, judgeAlibi, outputText,
};
