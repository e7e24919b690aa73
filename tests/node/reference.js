'use strict';
// An independent float64 reference for the node tests: plain loops on nested arrays,
// Math.exp, no shared code with the engine.

/** Seeded uniform numbers in [lo, hi) (mulberry32). */
function random(seed) {
  let s = seed >>> 0;
  return (lo = -1, hi = 1) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return lo + (hi - lo) * u;
  };
}

/** Nested array of shape, filled by rand(), with values rounded to float32. */
function randomNested(shape, rand) {
  if (shape.length === 0) return Math.fround(rand());
  return Array.from({ length: shape[0] }, () => randomNested(shape.slice(1), rand));
}

/** One head: q [m][dk], k [n][dk], v [n][dv]; allow(i, j). */
function attentionHead(q, k, v, scale, allow = () => true) {
  const m = q.length, n = k.length, dv = v[0].length;
  const scores = q.map((qi) => k.map((kj) => qi.reduce((s, x, d) => s + x * kj[d], 0)));
  const scaled = scores.map((row) => row.map((s) => s * scale));
  const weights = scaled.map((row, i) => {
    const allowed = row.map((_, j) => allow(i, j));
    const best = Math.max(...row.filter((_, j) => allowed[j]));
    if (best === -Infinity) return row.map(() => 0);
    const e = row.map((s, j) => (allowed[j] ? Math.exp(s - best) : 0));
    const total = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / total);
  });
  const output = weights.map((w) => Array.from({ length: dv }, (_, c) => w.reduce((s, wj, j) => s + wj * v[j][c], 0)));
  return { scores, scaled, weights, output, m, n };
}

/** Applies f to matching leaves of nested arrays at depth `lead` (batch axes). */
function perBatch(lead, arrays, f) {
  if (lead === 0) return f(...arrays);
  return arrays[0].map((_, b) => perBatch(lead - 1, arrays.map((a) => a[b]), f));
}

function flatten(x) {
  return Array.isArray(x) ? x.flatMap(flatten) : [x];
}

/** Largest |a - b| between a Float32Array and nested arrays of the same size. */
function maxDiff(data, nested) {
  const flat = flatten(nested);
  if (flat.length !== data.length) throw new Error(`size ${data.length} vs reference ${flat.length}`);
  let worst = 0;
  for (let i = 0; i < flat.length; i++) worst = Math.max(worst, Math.abs(data[i] - flat[i]));
  return worst;
}

module.exports = { random, randomNested, attentionHead, perBatch, flatten, maxDiff };
