'use strict';
// The cost API against the float64 reference in reference.js: sliding window, tiled attention
// with an online softmax, its step-through, the cost figures and the byte calculators.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const { random, randomNested, attentionHead, maxDiff } = require('./reference.js');

// Query i at position p = i + (n - m) sees key j under causal, window and a valid length.
function allowRule(m, n, { causal = false, window, valid = Infinity } = {}) {
  return (i, j) => {
    const p = i + n - m;
    if (j >= valid) return false;
    if ((causal || window !== undefined) && j > p) return false;
    if (window !== undefined && j <= p - window) return false;
    return true;
  };
}

function lseRow(scaledRow, allowed) {
  const kept = scaledRow.filter((_, j) => allowed(j));
  if (kept.length === 0) return -Infinity;
  const best = Math.max(...kept);
  return best + Math.log(kept.reduce((s, x) => s + Math.exp(x - best), 0));
}

test('a sliding window shows each query only the last w keys, in full attention', async () => {
  const lab = await loadAttentionLab();
  const rand = random(41);
  const Q = randomNested([4, 3], rand), K = randomNested([7, 3], rand), V = randomNested([7, 2], rand);
  const r = lab.attention(Q, K, V, { window: 2 });
  const ref = attentionHead(Q, K, V, 1 / Math.sqrt(3), allowRule(4, 7, { window: 2 }));
  assert.ok(maxDiff(r.weights.data, ref.weights) <= 1e-6);
  assert.ok(maxDiff(r.output.data, ref.output) <= 1e-6);
  // Query 0 sits at position 3 (aligned like the causal mask): keys 2 and 3 only.
  assert.deepEqual(r.weights.toArray()[0].map((w) => w > 0), [false, false, true, true, false, false, false]);
  // With validLens the two combine by AND; a window of 1 puts all weight on the query's own key.
  const own = lab.attention(K, K, V, { window: 1 });
  own.weights.toArray().forEach((row, i) => assert.equal(row[i], 1));
  const both = lab.attention(K, K, V, { window: 3, validLens: 4 });
  assert.deepEqual(both.weights.toArray()[6].map((w) => w > 0), [false, false, false, false, false, false, false]);
  assert.deepEqual(both.fullyMaskedRows, [[6]]);
});

test('tiled attention equals the float64 reference on random shapes, masks and block sizes', async () => {
  const lab = await loadAttentionLab();
  const rand = random(2026);
  const pick = (lo, hi) => lo + Math.floor(rand(0, 1) * (hi - lo + 1));
  let worst = 0, worstLse = 0, ragged = 0, skipping = 0;
  for (let trial = 0; trial < 60; trial++) {
    const m = pick(1, 20), n = pick(1, 40), dk = pick(1, 8), dv = pick(1, 5), batch = pick(1, 2);
    const options = { blockQ: pick(1, m), blockK: pick(1, n) };
    if (pick(0, 2) === 0) options.causal = true;
    if (pick(0, 1)) options.window = pick(1, n + 1);
    const valid = Array.from({ length: batch }, () => (pick(0, 3) === 0 ? pick(0, n) : n));
    if (valid.some((x) => x < n)) options.validLens = valid;
    const Q = randomNested([batch, m, dk], rand), K = randomNested([batch, n, dk], rand), V = randomNested([batch, n, dv], rand);
    const t = lab.tiledAttention(Q, K, V, options);
    assert.deepEqual(t.output.shape, [batch, m, dv]);
    assert.deepEqual(t.lse.shape, [batch, m]);
    assert.equal(t.blockQ, options.blockQ);
    if (n % options.blockK !== 0) ragged++;
    if (t.figures.blocksSkipped > 0) skipping++;
    for (let b = 0; b < batch; b++) {
      const allow = allowRule(m, n, { causal: options.causal, window: options.window, valid: valid[b] });
      const ref = attentionHead(Q[b], K[b], V[b], 1 / Math.sqrt(dk), allow);
      worst = Math.max(worst, maxDiff(t.output.data.subarray(b * m * dv, (b + 1) * m * dv), ref.output));
      for (let i = 0; i < m; i++) {
        const want = lseRow(ref.scaled[i], (j) => allow(i, j));
        const got = t.lse.get(b, i);
        if (want === -Infinity) assert.equal(got, -Infinity, `row ${i} is fully masked`);
        else worstLse = Math.max(worstLse, Math.abs(got - want));
      }
    }
  }
  assert.ok(worst <= 1e-5, `max |tiled - reference| = ${worst}`);
  assert.ok(worstLse <= 1e-5, `max |lse - reference| = ${worstLse}`);
  assert.ok(ragged > 20 && skipping > 5, `cases with ragged blocks ${ragged}, with skipped blocks ${skipping}`);
});

test('tiled attention agrees with lab.attention at a realistic size, and its defaults are 64 x 64 blocks', async () => {
  const lab = await loadAttentionLab();
  const Q = lab.randomNormal({ shape: [2, 200, 32], seed: 1 });
  const K = lab.randomNormal({ shape: [2, 200, 32], seed: 2 });
  const V = lab.randomNormal({ shape: [2, 200, 32], seed: 3 });
  const full = lab.attention(Q, K, V, { causal: true, stages: ['output'] });
  const t = lab.tiledAttention(Q, K, V, { causal: true });
  assert.equal(t.blockQ, 64);
  assert.equal(t.blockK, 64);
  assert.ok(lab.maxAbsDiff(t.output, full.output) <= 1e-5);
  // 4 row blocks x 4 key blocks per slice, the 6 above the diagonal skipped.
  assert.equal(t.figures.blocksComputed, 2 * 10);
  assert.equal(t.figures.blocksSkipped, 2 * 6);
  const c = lab.costFigures({ batch: 2, m: 200, n: 200, dk: 32, causal: true });
  assert.deepEqual(t.figures, c.tiled, 'tiledAttention reports the figures costFigures counts');
  assert.equal(c.full.peakExtraFloats, 200 * 200, 'one slice\'s score matrix, as the tiled peak is one slice\'s blocks');
  assert.equal(c.tiled.peakExtraFloats, 64 * 64 + 32 * 64 + 64 * 32 + 2 * 64);  // score block, K block^T, p V block, max and sum
});

test('costFigures counts a small causal case as worked out by hand', async () => {
  const lab = await loadAttentionLab();
  const c = lab.costFigures({ m: 4, n: 4, dk: 2, blockQ: 2, blockK: 2, causal: true });
  assert.deepEqual(c.full, { peakExtraFloats: 16, floatsRead: 3 * 8 + 32, floatsWritten: 32 + 8, multiplyAdds: 64 });
  assert.deepEqual(c.tiled, {
    // scores 2 x 2, a K block packed 8 columns wide (2 x 8), p V 2 x 2, running max and sum
    peakExtraFloats: 4 + 16 + 4 + 4, floatsRead: (4 + 8) + (4 + 16), floatsWritten: 12, multiplyAdds: 48, blocksComputed: 3, blocksSkipped: 1,
  });
  // A window makes the tiled work linear in n.
  const a = lab.costFigures({ m: 4096, n: 4096, dk: 64, window: 256 }).tiled.multiplyAdds;
  const b = lab.costFigures({ m: 8192, n: 8192, dk: 64, window: 256 }).tiled.multiplyAdds;
  assert.ok(Math.abs(b / a - 2) < 0.05, `ratio ${b / a}`);
});

test('the online softmax, block by block, ends at the full softmax row', async () => {
  const lab = await loadAttentionLab();
  const { Q, K, V } = lab.examples().timeFlies;
  const e = lab.explainOnlineSoftmax(Q, K, V, 1, { block: 2 });
  assert.equal(e.row, 1);
  assert.equal(e.scale, 0.5);
  assert.deepEqual(e.scores, [0, 3, 0, 0, 4.5]);
  assert.deepEqual(e.blocks.map((b) => [b.start, b.end]), [[0, 2], [2, 4], [4, 5]]);
  const [b0, b1, b2] = e.blocks;
  assert.equal(b0.maxBefore, -Infinity);
  assert.equal(b0.rescale, 0);
  assert.equal(b0.maxAfter, 3);
  assert.ok(Math.abs(b0.sumAfter - (Math.exp(-3) + 1)) < 1e-6);
  assert.equal(b1.rescale, 1);   // the max stays 3
  assert.equal(b2.blockMax, 4.5);
  assert.ok(Math.abs(b2.rescale - Math.exp(3 - 4.5)) < 1e-7);
  assert.ok(Math.abs(b2.sumAfter - [0, 3, 0, 0, 4.5].reduce((s, x) => s + Math.exp(x - 4.5), 0)) < 1e-6);
  b2.outputAfter.forEach((o, c) => assert.ok(Math.abs(o / b2.sumAfter - e.output[c]) < 1e-6));
  e.output.forEach((o, c) => assert.ok(Math.abs(o - e.fullOutput[c]) < 1e-6, `output[${c}]`));
  const w = lab.attention(Q, K, V).weights.toArray()[1];
  e.weights.forEach((x, j) => assert.ok(Math.abs(x - w[j]) < 1e-7));
  assert.ok(Math.abs(e.lse - (4.5 + Math.log(b2.sumAfter))) < 1e-6);
  // Causal: row 1 never sees keys 2..4, so those blocks are skipped and change nothing.
  const c = lab.explainOnlineSoftmax(Q, K, V, 1, { block: 2, causal: true });
  assert.deepEqual(c.blocks.map((b) => b.skipped), [false, true, true]);
  assert.deepEqual(c.blocks[2].outputAfter, c.blocks[0].outputAfter);
  c.output.forEach((o, j) => assert.ok(Math.abs(o - c.fullOutput[j]) < 1e-6));
});

test('the byte calculators give exact whole numbers and refuse what a number cannot hold', async () => {
  const lab = await loadAttentionLab();
  assert.deepEqual(lab.kvCacheBytes({ layers: 32, kvHeads: 32, dHead: 128, tokens: 4096 }),
    { bytesPerToken: 524288, tokensCached: 4096, bytes: 524288 * 4096 });
  // Factors past 2^32 stay exact in wasm32, whose size_t has 32 bits.
  assert.equal(lab.kvCacheBytes({ layers: 32, kvHeads: 8, dHead: 128, tokens: 1e10 }).bytes, 131072 * 1e10);
  assert.equal(lab.attentionMatrixBytes({ n: 1e5, dtype: 'int8' }).elements, 1e10);
  assert.equal(lab.kvCacheBytes({ layers: 32, kvHeads: 8, dHead: 128 }).bytesPerToken, 131072);
  assert.equal(lab.kvCacheBytes({ kvHeads: 1, dHead: 64, dtype: 'int8', batch: 3 }).bytes, 384);
  assert.deepEqual(lab.attentionMatrixBytes({ batch: 2, heads: 12, n: 1024 }), { keysPerQuery: 1024, elements: 2 * 12 * 1024 * 1024, bytes: 2 * 12 * 1024 * 1024 * 4 });
  assert.equal(lab.attentionMatrixBytes({ n: 3, dtype: 'float64' }).bytes, 72);
  assert.throws(() => lab.attentionMatrixBytes({ batch: 1e6, heads: 1e3, n: 1e6 }),
    { message: 'attentionMatrixBytes: elements (batch x heads x n x n) is past 2^53, more than a JavaScript number holds exactly; expected smaller sizes' });
  assert.throws(() => lab.kvCacheBytes({ kvHeads: 2, dHead: 4, dtype: 'fp8' }),
    { message: "kvCacheBytes: dtype = 'fp8'; expected 'float64', 'float32', 'float16', 'bfloat16' or 'int8'" });
});

test('kvCacheBytes refuses kv heads that do not divide the heads, and a sliding window caps the cache and the weights', async () => {
  const lab = await loadAttentionLab();
  for (const kvHeads of [5, 64]) {
    assert.throws(() => lab.kvCacheBytes({ layers: 32, heads: 32, kvHeads, dHead: 128 }),
      { message: `kvCacheBytes: kvHeads = ${kvHeads} does not divide heads = 32; expected a divisor of heads (heads itself, or 1 for multi-query)` });
  }
  // The same rule and words as the cache itself.
  assert.throws(() => lab.createKVCache({ heads: 32, kvHeads: 5, dHead: 4, maxLength: 4 }), /createKVCache: kvHeads = 5 does not divide heads = 32; expected a divisor of heads/);
  // Mistral 7B (Jiang et al. 2023, Table 1): 32 layers, 8 kv heads of 128, window 4096, float16.
  // At 8192 tokens its rolling buffer holds 4096: 2 x 32 x 8 x 128 x 2 = 131072 bytes each.
  const mistral = lab.kvCacheBytes({ layers: 32, heads: 32, kvHeads: 8, dHead: 128, tokens: 8192, window: 4096 });
  assert.deepEqual(mistral, { bytesPerToken: 131072, tokensCached: 4096, bytes: 131072 * 4096 });
  assert.equal(lab.kvCacheBytes({ layers: 32, kvHeads: 8, dHead: 128, tokens: 1000, window: 4096 }).tokensCached, 1000);
  assert.deepEqual(lab.attentionMatrixBytes({ heads: 32, n: 8192, dtype: 'float16', window: 4096 }),
    { keysPerQuery: 4096, elements: 32 * 8192 * 4096, bytes: 32 * 8192 * 4096 * 2 });
  assert.throws(() => lab.attentionMatrixBytes({ n: 8, window: 0 }), { message: 'attentionMatrixBytes: window = 0; expected a whole number from 1 to 2^53' });
});

test('costFigures tells a minimal kernel\'s one matrix from the four stages this engine keeps, and the limit it refuses past', async () => {
  const lab = await loadAttentionLab();
  const c = lab.costFigures({ m: 4096, n: 4096, dk: 64 });
  assert.equal(c.full.peakExtraFloats, 4096 * 4096);
  assert.deepEqual(c.engine, { extraFloats: 4 * 4096 * 4096 + 2 * 64 * 4096, limitFloats: 2 ** 28 });  // four stages, K and V packed
  // At 8192 the four stages pass the limit, and attention refuses the size.
  const big = lab.costFigures({ m: 8192, n: 8192, dk: 64 });
  assert.ok(big.engine.extraFloats > big.engine.limitFloats);
  const X = lab.randomNormal({ shape: [8192, 64], seed: 1 });
  assert.throws(() => lab.attention(X, X, X, { stages: ['output'] }), /^Error: attention: the four score-sized stages/);
});

// Every step of the cache against full causal attention (the engine's and the float64
// reference) over the same tokens, head by head; query head h reads key/value head h / (heads / kvHeads).
function checkCacheEveryStep(lab, heads, kvHeads, dHead, steps, seed) {
  const rand = random(seed);
  const cache = lab.createKVCache({ heads, kvHeads, dHead, maxLength: steps });
  assert.equal(cache.bytesPerToken, 2 * kvHeads * dHead * 4);
  const qs = [], ks = [], vs = [];
  let worst = 0, worstEngine = 0, withTotal = 0, withoutTotal = 0;
  try {
    for (let t = 0; t < steps; t++) {
      qs.push(randomNested([heads, dHead], rand));
      ks.push(randomNested([kvHeads, dHead], rand));
      vs.push(randomNested([kvHeads, dHead], rand));
      assert.equal(cache.append(ks[t], vs[t]), t + 1);
      assert.equal(cache.length, t + 1);
      assert.equal(cache.bytes, (t + 1) * 2 * kvHeads * dHead * 4);
      const step = cache.attend(qs[t]);
      assert.deepEqual(step.weights.shape, [heads, t + 1]);
      assert.equal(step.multiplyAdds, heads * (t + 1) * 2 * dHead);
      assert.equal(step.multiplyAddsWithoutCache, heads * ((t + 1) * (t + 2) / 2) * 2 * dHead);
      withTotal += step.multiplyAdds;
      withoutTotal += step.multiplyAddsWithoutCache;
      assert.deepEqual([step.decodeMultiplyAdds, step.decodeMultiplyAddsWithoutCache], [withTotal, withoutTotal], `decoding ${t + 1} tokens`);
      for (let h = 0; h < heads; h++) {
        const g = Math.floor(h / (heads / kvHeads));
        const Q = qs.map((q) => q[h]), K = ks.map((k) => k[g]), V = vs.map((v) => v[g]);
        const ref = attentionHead(Q, K, V, 1 / Math.sqrt(dHead), (i, j) => j <= i);
        const full = lab.attention(Q, K, V, { causal: true, stages: ['weights', 'output'] });
        const row = step.output.data.subarray(h * dHead, (h + 1) * dHead);
        worst = Math.max(worst, maxDiff(row, ref.output[t]), maxDiff(step.weights.data.subarray(h * (t + 1), (h + 1) * (t + 1)), ref.weights[t]));
        worstEngine = Math.max(worstEngine, maxDiff(row, full.output.toArray()[t]));
      }
    }
  } finally {
    cache.dispose();
  }
  assert.ok(worst <= 1e-6, `max |cache - reference| = ${worst}`);
  assert.ok(worstEngine <= 1e-6, `max |cache - attention(causal)| = ${worstEngine}`);
}

test('every KV-cache step equals the last row of full causal attention: multi-head, grouped-query, multi-query', async () => {
  const lab = await loadAttentionLab();
  checkCacheEveryStep(lab, 4, 4, 8, 20, 1);
  checkCacheEveryStep(lab, 4, 2, 8, 20, 2);
  checkCacheEveryStep(lab, 6, 1, 4, 16, 3);
});

test('grouped-query and multi-query caches hold heads / kvHeads times fewer bytes', async () => {
  const lab = await loadAttentionLab();
  const sizes = [8, 2, 1].map((kvHeads) => {
    const cache = lab.createKVCache({ heads: 8, kvHeads, dHead: 16, maxLength: 4 });
    try {
      for (let t = 0; t < 3; t++) cache.append(new Array(kvHeads).fill(new Array(16).fill(t)), new Array(kvHeads).fill(new Array(16).fill(1)));
      assert.deepEqual(cache.attend(new Array(8).fill(new Array(16).fill(0.5))).output.shape, [8, 16]);
      return cache.bytes;
    } finally {
      cache.dispose();
    }
  });
  assert.deepEqual(sizes, [3 * 2 * 8 * 16 * 4, 3 * 2 * 2 * 16 * 4, 3 * 2 * 1 * 16 * 4]);
});

test('the window reaches every path: the cached small-call path, a workspace and explainRow', async () => {
  const lab = await loadAttentionLab();
  const rand = random(77);
  const K = randomNested([6, 3], rand), V = randomNested([6, 2], rand);
  const ref = attentionHead(K, K, V, 1 / Math.sqrt(3), allowRule(6, 6, { window: 2 }));
  lab.attention(K, K, V);
  lab.attention(K, K, V);  // now cached for these shapes without a window
  const windowed = lab.attention(K, K, V, { window: 2 });
  assert.ok(maxDiff(windowed.weights.data, ref.weights) <= 1e-6);
  const ws = lab.createWorkspace({ m: 6, n: 6, dk: 3, dv: 2, window: 2 });
  try {
    ws.Q.set(K.flat());
    ws.K.set(K.flat());
    ws.V.set(V.flat());
    assert.ok(maxDiff(ws.run().weights, ref.weights) <= 1e-6);
  } finally {
    ws.dispose();
  }
  const row = lab.explainRow(K, K, V, 4, { window: 2 });
  assert.deepEqual(Array.from(row.weights.data).map((w) => w > 0), [false, false, false, true, true, false]);
});

test('peakExtraFloats is per slice for both methods: batch x heads changes the totals, not the peaks or their ratio', async () => {
  const lab = await loadAttentionLab();
  const one = lab.costFigures({ m: 256, n: 256, dk: 64 });
  const many = lab.costFigures({ batch: 4, heads: 8, m: 256, n: 256, dk: 64 });
  assert.equal(many.full.peakExtraFloats, one.full.peakExtraFloats);
  assert.equal(many.tiled.peakExtraFloats, one.tiled.peakExtraFloats);
  assert.equal(many.full.peakExtraFloats / many.tiled.peakExtraFloats, one.full.peakExtraFloats / one.tiled.peakExtraFloats);
  assert.equal(many.full.multiplyAdds, 32 * one.full.multiplyAdds);
  assert.equal(many.tiled.floatsRead, 32 * one.tiled.floatsRead);
  // tiledAttention reports the same per-slice peak for a batched call as costFigures.
  const X = lab.randomNormal({ shape: [3, 40, 8], seed: 1 });
  assert.equal(lab.tiledAttention(X, X, X, { blockQ: 16, blockK: 16 }).figures.peakExtraFloats,
    lab.costFigures({ batch: 3, m: 40, n: 40, dk: 8, blockQ: 16, blockK: 16 }).tiled.peakExtraFloats);
});

test('cost figures whose sums of sizes pass 32 bits are exact in wasm32 (found by the wasm32 fuzz build: d_k + d_v wrapped to 0)', async () => {
  const lab = await loadAttentionLab();
  // d_k + d_v = 2^32: in a 32-bit size_t it was 0, and the full and tiled multiply-adds with it.
  const r = lab.costFigures({ m: 1, n: 1, dk: 2 ** 31, dv: 2 ** 31 });
  assert.equal(r.full.multiplyAdds, 2 ** 32);
  assert.equal(r.tiled.multiplyAdds, 2 ** 32);
  assert.equal(r.visibleMultiplyAdds, 2 ** 32);
  // d_v + 1 output floats and running sums per query: 2^32 - 1 + 1 is 2^32, not 0.
  assert.equal(lab.costFigures({ m: 1, n: 1, dk: 1, dv: 2 ** 32 - 1 }).tiled.floatsWritten, 2 ** 32);
  // A key count past 2^32 - block size: the last block ends at n, not at a wrapped product.
  const big = lab.costFigures({ m: 1, n: 2 ** 32 - 1, dk: 1, blockK: 64 });
  assert.equal(big.full.multiplyAdds, 2 * (2 ** 32 - 1));
  assert.equal(big.tiled.multiplyAdds, 2 * (2 ** 32 - 1));
});
