'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');

/**
 * Runs `calls` round-robin `total` times after `warmRounds` warm-up rounds, and asserts that
 * exactly `failingPerRound` of them throw each round and that the engine's heap in use, heap
 * size and JS handles end where they started.
 */
function callsLeakNothing(t, lab, calls, { warmRounds, total, failingPerRound }) {
  const warm = () => { for (const c of calls) { try { c(); } catch (_) { /* expected */ } } };
  for (let i = 0; i < warmRounds; i++) warm();
  const before = lab.memory();
  let errors = 0;
  for (let i = 0; i < total; i++) {
    try { calls[i % calls.length](); } catch (_) { errors++; }
  }
  const after = lab.memory();
  t.diagnostic(`${total} calls (${errors} errors): heap in use ${before.heapInUse} -> ${after.heapInUse} bytes, ` +
    `handles ${before.handles} -> ${after.handles}`);
  assert.equal(errors, total / calls.length * failingPerRound);
  assert.equal(after.heapInUse, before.heapInUse);
  assert.equal(after.heapSize, before.heapSize);
  assert.equal(after.handles, before.handles);
}

test('100,000 calls, good and bad, do not grow the wasm heap or leak JS handles', async (t) => {
  const lab = await loadAttentionLab();
  const ex = lab.examples();
  const { Q, K, V } = ex.timeFlies;
  const ws = lab.createWorkspace({ m: 5, n: 5, dk: 4, dv: 4, causal: true });
  const calls = [
    () => lab.attention(Q, K, V, { causal: true }),
    () => lab.attention(Q, K, [[1]]),                      // shape error
    () => lab.attention([[NaN, 0, 0, 0]], K, V),           // non-finite error
    () => lab.softmax([1000, 1001, 1002]),
    () => lab.attention([Q.toArray()], [K.toArray()], [V.toArray()], { validLens: [9] }),  // range error
    () => { ws.Q.set(Q.data); ws.K.set(K.data); ws.V.set(V.data); return ws.run(); },
    () => lab.multiHeadAttention({ X: Q, Wq: K, Wk: K, Wv: K, heads: 3 }),  // heads error
    () => lab.dotProductStats({ dk: 4, samples: 2 }),
  ];
  const warm = () => { for (const c of calls) { try { c(); } catch (_) { /* expected */ } } };
  for (let i = 0; i < 100; i++) warm();
  const before = lab.memory();
  const total = 100000;
  let errors = 0;
  for (let i = 0; i < total; i++) {
    try { calls[i % calls.length](); } catch (_) { errors++; }
  }
  const after = lab.memory();
  t.diagnostic(`${total} calls (${errors} errors): heap in use ${before.heapInUse} -> ${after.heapInUse} bytes, ` +
    `wasm memory ${before.heapSize} -> ${after.heapSize} bytes, handles ${before.handles} -> ${after.handles}`);
  assert.equal(errors, total / calls.length * 4);
  assert.equal(after.heapInUse, before.heapInUse);
  assert.equal(after.heapSize, before.heapSize);
  assert.equal(after.handles, before.handles);
  ws.dispose();
});

test('the staged attention path, its errors, and the checks before any engine object exist leak nothing', async (t) => {
  const lab = await loadAttentionLab();
  const { Q, K, V } = lab.examples().timeFlies;
  const q = { shape: Q.shape, data: Q.data }, k = { shape: K.shape, data: K.data }, v = { shape: V.shape, data: V.data };
  const ws = lab.createWorkspace({ m: 5, n: 5, dk: 4, dv: 4 });
  const cyclic = [];
  cyclic.push(cyclic);
  const calls = [
    () => lab.attention(q, k, v, { stages: ['weights', 'output'] }),
    () => lab.attention(q, k, v, { validLens: 3, mask: [[true, true, false, true, true]] }),
    () => lab.attention(q, k, { shape: [5, 4], data: new Float32Array(3) }),        // data length error, after Q and K are staged
    () => lab.attention(q, k, v, { mask: [[2, 1, 1, 1, 1]] }),                     // error inside the core, everything staged
    () => lab.attention(cyclic, k, v),                                              // structure error before the engine
    () => lab.createWorkspace({ m: 5, n: 5, dk: 4, dv: 4, causal: 'yes' }),         // bad option: no engine object made
    () => lab.createWorkspace({ m: 5, n: 5, dk: 4, dv: 4, validLens: 9 }),          // refused by the engine: object freed
    () => lab.attention({ shape: [5, 4], data: ws.Q }, { shape: [5, 4], data: ws.K }, { shape: [5, 4], data: ws.V }),  // views copied
    () => lab.multiHeadAttention({ X: [[1e38]], Wq: [[0]], Wk: [[0]], Wv: [[3]], Wo: [[10]] }),  // overflow error
    () => lab.randomNormal({ shape: [1e20] }),
    () => lab.maxAbsDiff([NaN], [1]),
    () => lab.tensor({ shape: [2, 2], data: [1, 2, 3, 4] }),
  ];
  callsLeakNothing(t, lab, calls, { warmRounds: 50, total: 24000, failingPerRound: 8 });
  ws.dispose();
});

test('tiled attention, the online-softmax step-through, the cost figures and the KV cache leak nothing, good calls or bad', async (t) => {
  const lab = await loadAttentionLab();
  const { Q, K, V } = lab.examples().timeFlies;
  const cacheCycle = (bad) => {
    const cache = lab.createKVCache({ heads: 2, kvHeads: 1, dHead: 4, maxLength: 3 });
    try {
      if (bad === 'empty') return cache.attend([[1, 0, 0, 0], [0, 1, 0, 0]]);
      for (let i = 0; i < (bad === 'full' ? 4 : 3); i++) cache.append([K.toArray()[i]], [V.toArray()[i]]);
      // Errors after k is staged: v's data does not fit its shape; v of the wrong width.
      if (bad === 'staged') return cache.append([K.toArray()[0]], { shape: [1, 4], data: new Float32Array(3) });
      if (bad === 'width') return cache.append([K.toArray()[0]], [[1, 2, 3]]);
      cache.attend([Q.toArray()[2], Q.toArray()[3]]);
      return cache.attend([Q.toArray()[1], Q.toArray()[0]]);
    } finally {
      cache.dispose();
    }
  };
  const calls = [
    () => lab.tiledAttention(Q, K, V, { causal: true, blockQ: 2, blockK: 3 }),
    () => lab.tiledAttention([Q.toArray()], [K.toArray()], [V.toArray()], { validLens: [2], window: 2 }),
    () => lab.tiledAttention(Q, K, V, { blockK: 6 }),                        // block past n: error in the core
    () => lab.tiledAttention(Q, K, [[1]]),                                   // shape error, after copying inputs
    () => lab.explainOnlineSoftmax(Q, K, V, 1, { block: 2, window: 3 }),
    () => lab.explainOnlineSoftmax(Q, K, V, 9),                              // row error
    () => lab.costFigures({ batch: 2, heads: 4, m: 300, n: 300, dk: 16, causal: true }),
    () => lab.costFigures({ m: 1e6, n: 1e9, dk: 1e4 }),                      // past 2^53
    () => lab.kvCacheBytes({ layers: 2, kvHeads: 2, dHead: 8 }),
    () => lab.attention(Q, K, V, { window: 2 }),
    () => cacheCycle(),
    () => cacheCycle('empty'),                                               // attend on an empty cache
    () => cacheCycle('full'),                                                // append past maxLength
    () => cacheCycle('staged'),                                              // v's data does not fit its shape
    () => cacheCycle('width'),                                               // v of the wrong width
    () => lab.createKVCache({ heads: 4, kvHeads: 3, dHead: 4, maxLength: 3 }),  // refused by the engine: object freed
  ];
  callsLeakNothing(t, lab, calls, { warmRounds: 50, total: 16000, failingPerRound: 9 });
});

test('every mistake, with and without its errors, leaks nothing', async (t) => {
  const lab = await loadAttentionLab();
  const { Q, K, V } = lab.examples().timeFlies;
  const four = { Q: Q.toArray().slice(0, 4), K: K.toArray().slice(0, 4), V: V.toArray().slice(0, 4) };
  const calls = [
    ...lab.MISTAKES.map((m) => () => lab.mistake(m.name, { Q, K, V, causal: true, validLens: [5, 0, 3, 5, 2] })),
    () => lab.mistake('keys-not-transposed', four),                                    // runs: n = d_k
    () => lab.mistake('forgot-softmax', { Q, K, V }),                                  // unknown name, after Q, K, V are copied in
    () => lab.mistake('no-padding-mask', { Q, K, V }),                                 // refused inside the core
    () => lab.mistake('fp16-mask-fill', { Q, K, V: { shape: [5, 4], data: new Float32Array(20).fill(7e4) } }),  // past float16
    () => lab.mistake('no-scaling', { Q, K, V, causal: 'yes' }),                       // refused before the engine
  ];
  callsLeakNothing(t, lab, calls, { warmRounds: 20, total: 6500, failingPerRound: 4 });
});

