'use strict';
// Bad input, class by class: each call must throw an Error whose exact message names the
// function the user called and the argument, leave the engine's heap and JS handles where
// they were, and leave the engine answering a correct call. Nothing may be printed.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');

const q = [[1, 0], [0, 1]];
const k = [[1, 0], [0, 1], [1, 1]];
const v = [[1, 2], [3, 4], [5, 6]];
const W = [[1, 0], [0, 1]];
const X = [[1, 0], [0, 1], [1, 1]];
const WHOLE = 'expected a whole number from 0 to 4294967295';
// A size past what the engine indexes (2^32 - 1 in wasm32), refused before anything narrows it.
const BEYOND = 'is more than this engine can index; expected at most 4294967295';
const FLOAT32 = 'is outside float32; expected 0 or a magnitude from about 1.4e-45 to 3.4e38';
const BIG = 100000000000000000000;  // 1e20, printed in full as JavaScript does
const REPEATS = 20;
const WINDOW = 'expected a whole number from 1 to 2^53 (the number of keys a query sees)';
const MISTAKE_NAMES = 'softmax-wrong-axis, mask-after-softmax, no-scaling, scale-by-dk, fp16-mask-fill, keys-not-transposed, no-causal-mask, no-padding-mask';

function cyclic() {
  const a = [];
  a.push(a);
  return a;
}

function deep(levels) {
  let a = [1];
  for (let i = 0; i < levels; i++) a = [a];
  return a;
}

function cyclicShape() {
  const s = [1];
  s.push(s);
  return s;
}

// [what, call, exact message]
const cases = [
  // attention: tensor structure (JavaScript's rules)
  ['a cyclic Q', (lab) => lab.attention(cyclic(), k, v), 'attention: Q contains itself: Q[0] is Q; expected nested arrays of numbers'],
  ['a Q that contains itself two levels down', (lab) => { const b = [[0]]; b[0][0] = b; return lab.attention(b, k, v); },
    'attention: Q contains itself: Q[0][0] is Q; expected nested arrays of numbers'],
  ['a K nested 20,000 deep', (lab) => lab.attention(q, deep(20000), v), 'attention: K is nested more than 32 levels deep; expected a tensor of rank <= 32'],
  ['a BigInt inside V', (lab) => lab.attention(q, k, [[1, 2], [3, 4n], [5, 6]]), 'attention: V[1][1] is a bigint; expected a number'],
  ['a BigInt in a shape', (lab) => lab.attention({ shape: [2n, 2], data: [1, 0, 0, 1] }, k, v), 'attention: Q.shape[0] is a bigint; expected a whole number'],
  ['a cyclic shape', (lab) => lab.attention({ shape: cyclicShape(), data: [1] }, k, v), 'attention: Q.shape[1] is an array; expected a whole number'],
  ['a shape of 33 axes', (lab) => lab.attention({ shape: new Array(33).fill(1), data: [1] }, k, v), 'attention: Q.shape has 33 entries; expected at most 32'],
  ['BigInt64Array data', (lab) => lab.attention({ shape: [2, 2], data: new BigInt64Array(4) }, k, v),
    'attention: Q.data is a BigInt64Array; expected a Float32Array or an array of numbers'],
  ['nested arrays past the element cap', (lab) => { const row = new Array(1 << 15).fill(0); return lab.attention(new Array(1 << 14).fill(row), k, v); },
    'attention: Q has shape [16384, 32768], 536870912 numbers; expected at most 268435456'],
  // attention: values and shapes (the engine's rules)
  ['a shape extent of 1e20', (lab) => lab.attention({ shape: [1e20, 2], data: [] }, k, v), `attention: Q.shape[0] = ${BIG} ${BEYOND}`],
  ['a fractional shape extent', (lab) => lab.attention(q, { shape: [1.5, 2], data: [1, 2, 3] }, v), `attention: K.shape[0] = 1.5; ${WHOLE}`],
  ['a negative shape extent', (lab) => lab.attention(q, k, { shape: [3, -2], data: [] }), `attention: V.shape[1] = -2; ${WHOLE}`],
  ['data that does not fit the shape', (lab) => lab.attention({ shape: [2, 4], data: new Float32Array(3) }, k, v), 'attention: Q.data has 3 entries but shape [2, 4] needs 8'],
  ['an output that overflows float32', (lab) => lab.attention([[0]], new Array(10).fill([0]), new Array(10).fill([3.4028235e38])),
    'attention: the output[0, 0] overflows float32; expected smaller values in V'],
  ['a mask entry of 2', (lab) => lab.attention(q, k, v, { mask: [[2, 1, 1], [1, 1, 1]] }), 'attention: mask[0, 0] = 2; expected true/false (1 or 0)'],
  ['a fractional valid length', (lab) => lab.attention([q], [k], [v], { validLens: [1.5] }), 'attention: validLens[0] = 1.5; expected an integer in [0, 3] (the number of keys)'],
  // attention: options
  ['options that are a number', (lab) => lab.attention(q, k, v, 5), 'attention: options is a number; expected an object such as { causal: ... }'],
  ['causal as a string', (lab) => lab.attention(q, k, v, { causal: 'yes' }), 'attention: causal is a string; expected true or false'],
  ['scale: 1e-60', (lab) => lab.attention(q, k, v, { scale: 1e-60 }), 'attention: scale = 1e-60 is outside float32; expected 0 or a magnitude from about 1.2e-38 to 3.4e38'],
  ['scale: 1e39', (lab) => lab.attention(q, k, v, { scale: 1e39 }), 'attention: scale = 1e+39 is outside float32; expected 0 or a magnitude from about 1.2e-38 to 3.4e38'],
  ['scale as a BigInt', (lab) => lab.attention(q, k, v, { scale: 1n }), 'attention: scale is a bigint; expected a number'],
  ['temperature: 1e-40', (lab) => lab.attention(q, k, v, { temperature: 1e-40 }),
    'attention: temperature = 1e-40 makes the scale 1/sqrt(d_k) / temperature overflow float32; expected a larger temperature'],
  ['temperature: 1e300 with scaling none', (lab) => lab.attention(q, k, v, { temperature: 1e300, scaling: 'none' }),
    'attention: temperature = 1e+300 makes the scale 1 / temperature underflow float32; expected a smaller temperature'],
  ['a negative temperature', (lab) => lab.attention(q, k, v, { temperature: -1 }), 'attention: temperature is -1; expected a number > 0'],
  ['an unknown stage', (lab) => lab.attention(q, k, v, { stages: ['weights', 'weight'] }), 'attention: stages[1] = "weight"; expected one of scores, scaled, masked, weights, output'],
  ['stages as a string', (lab) => lab.attention(q, k, v, { stages: 'weights' }), "attention: stages is a string; expected an array such as ['weights', 'output']"],
  // multiHeadAttention
  ['a spec of null', (lab) => lab.multiHeadAttention(null),
    'multiHeadAttention: expected an object { X, Wq, Wk, Wv, Wo, heads, causal, method, forgetMergeTranspose, scale }; got null'],
  ['heads = 2^32 + 1', (lab) => lab.multiHeadAttention({ X, Wq: W, Wk: W, Wv: W, heads: 2 ** 32 + 1 }), `multiHeadAttention: heads = 4294967297 ${BEYOND}`],
  ['fractional heads', (lab) => lab.multiHeadAttention({ X, Wq: W, Wk: W, Wv: W, heads: 1.5 }), `multiHeadAttention: heads = 1.5; ${WHOLE}`],
  ['heads as a BigInt', (lab) => lab.multiHeadAttention({ X, Wq: W, Wk: W, Wv: W, heads: 2n }), 'multiHeadAttention: heads is a bigint; expected a number'],
  ['W_O turning finite heads into NaN', (lab) => lab.multiHeadAttention({ X: [[1e38]], Wq: [[0]], Wk: [[0]], Wv: [[3, 3]], Wo: [[10], [-10]] }),
    'multiHeadAttention: the concatenated heads Wo at [0, 0] overflows float32; expected smaller values in the concatenated heads or Wo'],
  ['W_O turning finite heads into Infinity', (lab) => lab.multiHeadAttention({ X: [[1e38]], Wq: [[0]], Wk: [[0]], Wv: [[3]], Wo: [[10]] }),
    'multiHeadAttention: the concatenated heads Wo at [0, 0] overflows float32; expected smaller values in the concatenated heads or Wo'],
  ['a projection that overflows', (lab) => lab.multiHeadAttention({ X: [[1e38]], Wq: [[10]], Wk: [[1]], Wv: [[1]] }),
    'multiHeadAttention: X Wq at [0, 0] overflows float32; expected smaller values in X or Wq'],
  ['scores that overflow inside multi-head', (lab) => lab.multiHeadAttention({ X: [[1e20]], Wq: [[1]], Wk: [[1]], Wv: [[1]] }),
    'multiHeadAttention: the scaled score[0, 0, 0] is infinite, beyond float32; expected smaller inputs or scale'],
  ['a multi-head scale of 1e-60', (lab) => lab.multiHeadAttention({ X, Wq: W, Wk: W, Wv: W, scale: 1e-60 }),
    'multiHeadAttention: scale = 1e-60 is outside float32; expected 0 or a magnitude from about 1.2e-38 to 3.4e38'],
  ['a cyclic X', (lab) => lab.multiHeadAttention({ X: cyclic(), Wq: W, Wk: W, Wv: W }), 'multiHeadAttention: X contains itself: X[0] is X; expected nested arrays of numbers'],
  // randomNormal
  ['stddev: 1e300', (lab) => lab.randomNormal({ shape: [3], stddev: 1e300 }), 'randomNormal: stddev = 1e+300; expected a number from 0 to 1e37'],
  ['a shape of [1e20]', (lab) => lab.randomNormal({ shape: [1e20] }), `randomNormal: shape[0] = ${BIG} ${BEYOND}`],
  ['a cyclic randomNormal shape', (lab) => lab.randomNormal({ shape: cyclicShape() }), 'randomNormal: shape[1] is an array; expected a number'],
  ['a BigInt randomNormal shape', (lab) => lab.randomNormal({ shape: [2n] }), 'randomNormal: shape[0] is a bigint; expected a number'],
  ['a negative seed', (lab) => lab.randomNormal({ shape: [2], seed: -1 }), 'randomNormal: seed = -1; expected a whole number from 0 to 2^53 - 1'],
  // maxAbsDiff: a NaN is never "no difference"
  ['NaN against a number', (lab) => lab.maxAbsDiff([NaN, 2], [1, 2]), 'maxAbsDiff: a[0] is NaN; expected finite numbers'],
  ['Infinity against Infinity', (lab) => lab.maxAbsDiff([1], [Infinity]), 'maxAbsDiff: b[0] is Infinity; expected finite numbers'],
  ['tensors of two shapes', (lab) => lab.maxAbsDiff([1, 2], [1, 2, 3]), 'maxAbsDiff: b has shape [3] but a has [2]; expected the same shape'],
  // softmax
  ['a fractional axis', (lab) => lab.softmax([1, 2], { axis: 0.5 }), 'softmax: axis = 0.5; expected a whole number from -2147483648 to 2147483647'],
  ['an axis of 2^40', (lab) => lab.softmax([1, 2], { axis: 2 ** 40 }), 'softmax: axis = 1099511627776; expected a whole number from -2147483648 to 2147483647'],
  ['an axis as a BigInt', (lab) => lab.softmax([1, 2], { axis: 0n }), 'softmax: axis is a bigint; expected a number'],
  // createWorkspace: nothing is made before every option is checked
  ['a workspace with a bad option', (lab) => lab.createWorkspace({ m: 2, n: 2, dk: 2, dv: 2, temperature: 'hot' }), 'createWorkspace: temperature is a string; expected a number'],
  ['a workspace with m = 1e20', (lab) => lab.createWorkspace({ m: 1e20, n: 2, dk: 2, dv: 2 }), `createWorkspace: m = ${BIG} ${BEYOND}`],
  ['a workspace with an empty batch axis', (lab) => lab.createWorkspace({ batch: [0], m: 2, n: 2, dk: 2, dv: 2 }), 'createWorkspace: batch[0] = 0; expected a whole number >= 1'],
  ['a workspace with scale 1e-60', (lab) => lab.createWorkspace({ m: 2, n: 2, dk: 2, dv: 2, scale: 1e-60 }),
    'createWorkspace: scale = 1e-60 is outside float32; expected 0 or a magnitude from about 1.2e-38 to 3.4e38'],
  ['a workspace without dv', (lab) => lab.createWorkspace({ m: 2, n: 2, dk: 2 }), 'createWorkspace: dv is undefined; expected a number'],
  // the other entry points
  ['traceShapes with n = 2^32 + 1', (lab) => lab.traceShapes({ n: 2 ** 32 + 1, dModel: 8 }), `traceShapes: n = 4294967297 ${BEYOND}`],
  ['traceShapes with heads = 0', (lab) => lab.traceShapes({ n: 4, dModel: 8, heads: 0 }), 'traceShapes: heads = 0; expected a whole number from 1 to 100000'],
  ['dotProductStats with dk = 1e20', (lab) => lab.dotProductStats({ dk: 1e20 }), `dotProductStats: dk = ${BIG} ${BEYOND}`],
  ['dotProductStats with dk = 70000', (lab) => lab.dotProductStats({ dk: 70000 }), 'dotProductStats: dk = 70000; expected a whole number from 1 to 65536'],
  ['dotProductStats with BigInt samples', (lab) => lab.dotProductStats({ dk: 4, samples: 10n }), 'dotProductStats: samples is a bigint; expected a number'],
  ['explainRow with row = 1e20', (lab) => lab.explainRow(q, k, v, BIG), `explainRow: row = ${BIG} ${BEYOND}`],
  ['explainRow with row = 2.5', (lab) => lab.explainRow(q, k, v, 2.5), `explainRow: row = 2.5; ${WHOLE}`],
  ['explainRow with temperature 1e-40', (lab) => lab.explainRow(q, k, v, 0, { temperature: 1e-40 }),
    'explainRow: temperature = 1e-40 makes the scale 1/sqrt(d_k) / temperature overflow float32; expected a larger temperature'],
  ['softmaxSaturation with cyclic dks', (lab) => lab.softmaxSaturation({ dks: cyclicShape() }), 'softmaxSaturation: dks[1] is an array; expected a number'],
  ['tensor with data that does not fit', (lab) => lab.tensor({ shape: [2, 2], data: [1, 2, 3] }), 'tensor: value.data has 3 entries but shape [2, 2] needs 4'],
  // the sliding window, tiled attention and the cost functions
  ['a window of 0', (lab) => lab.attention(q, k, v, { window: 0 }), `attention: window = 0; ${WINDOW}`],
  ['a negative window in tiled attention', (lab) => lab.tiledAttention(q, k, v, { window: -3 }), `tiledAttention: window = -3; ${WINDOW}`],
  ['a fractional window in a workspace', (lab) => lab.createWorkspace({ m: 2, n: 2, dk: 2, dv: 2, window: 2.5 }), `createWorkspace: window = 2.5; ${WINDOW}`],
  ['a window given as a string', (lab) => lab.attention(q, k, v, { window: '2' }), 'attention: window is a string; expected a number'],
  ['a key block of 0', (lab) => lab.tiledAttention(q, k, v, { blockK: 0 }), 'tiledAttention: blockK = 0; expected a whole number from 1 to 3 (n, the number of keys)'],
  ['a key block past n', (lab) => lab.tiledAttention(q, k, v, { blockK: 4 }), 'tiledAttention: blockK = 4; expected a whole number from 1 to 3 (n, the number of keys)'],
  ['a fractional query block', (lab) => lab.tiledAttention(q, k, v, { blockQ: 1.5 }), 'tiledAttention: blockQ = 1.5; expected a whole number from 1 to 2 (m, the number of queries)'],
  ['a query block of 2^32 + 1', (lab) => lab.tiledAttention(q, k, v, { blockQ: 2 ** 32 + 1 }), `tiledAttention: blockQ = 4294967297 ${BEYOND}`],
  ['a query block of 3 for 2 queries', (lab) => lab.tiledAttention(q, k, v, { blockQ: 3 }), 'tiledAttention: blockQ = 3; expected a whole number from 1 to 2 (m, the number of queries)'],
  ['an explicit mask in tiled attention', (lab) => lab.tiledAttention(q, k, v, { mask: [[1, 1, 1]] }),
    "tiledAttention: unknown option 'mask'; expected one of causal, validLens, window, scale, blockQ, blockK"],
  ['tiled attention with mismatched d_k', (lab) => lab.tiledAttention(q, [[1, 2, 3]], v), 'tiledAttention: K has d_k = 3 but Q has d_k = 2'],
  ['tiled attention with a NaN in V', (lab) => lab.tiledAttention(q, k, [[1, 2], [NaN, 4], [5, 6]]), 'tiledAttention: V[1, 0] is NaN; expected finite numbers'],
  ['costFigures with m = 0', (lab) => lab.costFigures({ m: 0, n: 4, dk: 2 }), 'costFigures: m = 0; expected a whole number from 1 to 4294967295'],
  ['costFigures with a key block past n', (lab) => lab.costFigures({ m: 4, n: 4, dk: 2, blockK: 5 }), 'costFigures: blockK = 5; expected a whole number from 1 to 4 (n, the number of keys)'],
  ['costFigures past 2^53', (lab) => lab.costFigures({ m: 1e6, n: 1e9, dk: 1e4 }),
    "costFigures: the full method's multiply-adds is past 2^53, more than a JavaScript number holds exactly; expected smaller sizes"],
  ['explainOnlineSoftmax with block = 0', (lab) => lab.explainOnlineSoftmax(q, k, v, 0, { block: 0 }), 'explainOnlineSoftmax: block = 0; expected a whole number from 1 to 3 (n, the number of keys)'],
  ['explainOnlineSoftmax with a row past m', (lab) => lab.explainOnlineSoftmax(q, k, v, 2), 'explainOnlineSoftmax: row = 2 but Q has 2 rows; expected 0 to 1'],
  ['explainOnlineSoftmax with batch axes', (lab) => lab.explainOnlineSoftmax([q], [k], [v], 0), 'explainOnlineSoftmax: Q has shape [1, 2, 2]; expected a matrix (one head, no batch axes)'],
  ['kvHeads that do not divide heads', (lab) => lab.createKVCache({ heads: 4, kvHeads: 3, dHead: 2, maxLength: 4 }),
    'createKVCache: kvHeads = 3 does not divide heads = 4; expected a divisor of heads (heads itself, or 1 for multi-query)'],
  ['a cache of maxLength 0', (lab) => lab.createKVCache({ heads: 1, dHead: 2, maxLength: 0 }), 'createKVCache: maxLength = 0; expected a whole number from 1 to 4294967295'],
  // issue 22: sizes past 32 bits were narrowed in wasm (a cache of "2" heads read 16 MiB of engine memory)
  ['a cache of 2^32 + 2 heads', (lab) => lab.createKVCache({ heads: 2 ** 32 + 2, kvHeads: 2, dHead: 2, maxLength: 4 }), `createKVCache: heads = 4294967298 ${BEYOND}`],
  ['a cache of maxLength 2^32', (lab) => lab.createKVCache({ heads: 2, kvHeads: 2, dHead: 2, maxLength: 2 ** 32 }), `createKVCache: maxLength = 4294967296 ${BEYOND}`],
  ['a cache with dHead = 2^32 + 2', (lab) => lab.createKVCache({ heads: 2, kvHeads: 2, dHead: 2 ** 32 + 2, maxLength: 4 }), `createKVCache: dHead = 4294967298 ${BEYOND}`],
  ['a cache with dHead = 2^31', (lab) => lab.createKVCache({ heads: 2, kvHeads: 2, dHead: 2 ** 31, maxLength: 4 }),
    'createKVCache: heads x dHead = 4294967296 is more than the limit of 268435456; expected smaller sizes'],
  ['a cache whose one token is past the float limit', (lab) => lab.createKVCache({ heads: 16384, dHead: 16384, maxLength: 1 }),
    "createKVCache: one token's keys and values, 2 x kvHeads x dHead = 536870912 floats, are more than the limit of 268435456; expected smaller sizes"],
  ['a cost figure with n = 2^32', (lab) => lab.costFigures({ m: 4, n: 2 ** 32, dk: 2 }), `costFigures: n = 4294967296 ${BEYOND}`],
  ['a key block of 2^53', (lab) => lab.tiledAttention(q, k, v, { blockK: 2 ** 53 }), `tiledAttention: blockK = 9007199254740992 ${BEYOND}`],
  ['an online-softmax block of 2^32 + 1', (lab) => lab.explainOnlineSoftmax(q, k, v, 0, { block: 2 ** 32 + 1 }), `explainOnlineSoftmax: block = 4294967297 ${BEYOND}`],
  ['a KV-cache byte count past 2^53', (lab) => lab.kvCacheBytes({ kvHeads: 2, dHead: 4, tokens: 2 ** 53 + 2 }),
    'kvCacheBytes: tokens = 9007199254740994 is past 2^53, more than a number holds exactly; expected at most 2^53'],
  ['adding 2^32 samples to an experiment', (lab) => { const s = lab.createDotProductStats({ dk: 4 }); try { s.add(2 ** 32); } finally { s.dispose(); } },
    `createDotProductStats: add: count = 4294967296 ${BEYOND}`],
  // issue 22: numbers float32 cannot hold were reported as Infinity, or became 0 silently
  ['1e39 in a Float64Array', (lab) => lab.attention({ shape: [1, 2], data: new Float64Array([1e39, 0]) }, k, v), `attention: Q.data[0] = 1e+39 ${FLOAT32}`],
  ['1e-50 in a Float64Array', (lab) => lab.attention(q, { shape: [3, 2], data: new Float64Array([1, 0, 0, 1e-50, 1, 1]) }, v), `attention: K.data[3] = 1e-50 ${FLOAT32}`],
  ['-1e39 in nested arrays', (lab) => lab.attention([[0, -1e39]], k, v), `attention: Q[0][1] = -1e+39 ${FLOAT32}`],
  ['1e-46 in a plain data array', (lab) => lab.tiledAttention(q, k, { shape: [3, 2], data: [1, 2, 3, 1e-46, 5, 6] }), `tiledAttention: V.data[3] = 1e-46 ${FLOAT32}`],
  ['1e39 in a bare Float64Array', (lab) => lab.softmax(new Float64Array([1, 1e39])), `softmax: x[1] = 1e+39 ${FLOAT32}`],
  ['a sparse array of exactly 2^28 entries', (lab) => lab.attention(new Array(2 ** 28), k, v), 'attention: Q[0] is a hole (no entry); expected a value at every index'],
  ['sparse data of exactly 2^28 entries', (lab) => lab.attention({ shape: [2 ** 14, 2 ** 14], data: new Array(2 ** 28) }, k, v), 'attention: Q.data[0] is a hole (no entry); expected a value at every index'],
  ['a cache past the float limit', (lab) => lab.createKVCache({ heads: 1, dHead: 64, maxLength: 1e7 }),
    'createKVCache: maxLength = 10000000 needs 2 x 10000000 x 1 x 64 floats, more than the limit of 268435456; expected a smaller maxLength'],
  ['a cache with dHead as a string', (lab) => lab.createKVCache({ heads: 1, dHead: '2', maxLength: 4 }), 'createKVCache: dHead is a string; expected a number'],
  ['appending a token of the wrong width', (lab) => withCache(lab, (c) => c.append([[1, 2, 3]], [[1, 2]])),
    'KVCache.append: k has shape [1, 3]; expected [kvHeads, dHead] = [1, 2]'],
  ['appending values whose data does not fit their shape', (lab) => withCache(lab, (c) => c.append([[1, 2]], { shape: [1, 2], data: new Float32Array(3) })),
    'KVCache.append: v.data has 3 entries but shape [1, 2] needs 2'],
  ['appending, after a good token, keys of the same size in another shape', (lab) => withCache(lab, (c) => { c.append([[1, 0]], [[1, 0]]); c.append([[1], [0]], [[0, 1]]); }),
    'KVCache.append: k has shape [2, 1]; expected [kvHeads, dHead] = [1, 2]'],
  ['attending on an empty cache', (lab) => withCache(lab, (c) => c.attend([[1, 0]])), 'KVCache.attend: the cache is empty; expected append(k, v) before attend(q)'],
  ['a cache past its maximum length', (lab) => withCache(lab, (c) => { c.append([[1, 0]], [[1, 0]]); c.append([[0, 1]], [[0, 1]]); c.append([[1, 1]], [[1, 1]]); }),
    'KVCache.append: the cache is full at maxLength = 2 tokens; expected at most maxLength appends (create a larger cache)'],
  ['attending a query of the wrong width', (lab) => withCache(lab, (c) => { c.append([[1, 0]], [[1, 0]]); c.attend([[1, 0, 0]]); }),
    'KVCache.attend: q has shape [1, 3]; expected [heads, dHead] = [1, 2]'],
  ['a cache used after dispose', (lab) => { const c = lab.createKVCache({ heads: 1, dHead: 2, maxLength: 2 }); c.dispose(); c.dispose(); c.append([[1, 0]], [[1, 0]]); },
    'KVCache.append: the cache was disposed; expected a cache from createKVCache that is still live'],
  ['kvCacheBytes with an unknown dtype', (lab) => lab.kvCacheBytes({ kvHeads: 2, dHead: 4, dtype: 'fp8' }),
    "kvCacheBytes: dtype = 'fp8'; expected 'float64', 'float32', 'float16', 'bfloat16' or 'int8'"],
  ['attentionMatrixBytes past 2^53', (lab) => lab.attentionMatrixBytes({ heads: 1e3, n: 1e7 }),
    'attentionMatrixBytes: elements (batch x heads x n x n) is past 2^53, more than a JavaScript number holds exactly; expected smaller sizes'],
  // mistake
  ['an unknown mistake', (lab) => lab.mistake('forgot-softmax', { Q: q, K: k, V: v }),
    `mistake: name = "forgot-softmax" is not a known mistake; expected one of ${MISTAKE_NAMES}`],
  ['a mistake name that is a number', (lab) => lab.mistake(3, { Q: q, K: k, V: v }), `mistake: name is a number; expected a string, one of ${MISTAKE_NAMES}`],
  ['a mistake spec of null', (lab) => lab.mistake('no-scaling', null), 'mistake: expected an object { Q, K, V, causal, validLens, mask }; got null'],
  ['a mistake spec with an unknown key', (lab) => lab.mistake('no-scaling', { Q: q, K: k, V: v, scale: 2 }),
    "mistake: unknown option 'scale'; expected one of Q, K, V, causal, validLens, mask"],
  ['a mistake without Q', (lab) => lab.mistake('no-scaling', { K: k, V: v }), 'mistake: Q is undefined; expected nested arrays of numbers or { shape, data }'],
  ['a mistake with causal as a number', (lab) => lab.mistake('no-causal-mask', { Q: q, K: k, V: v, causal: 1 }), 'mistake: causal is a number; expected true or false'],
  ['a forgotten padding mask with no padding to forget', (lab) => lab.mistake('no-padding-mask', { Q: q, K: k, V: v }),
    "mistake: 'no-padding-mask' needs validLens (the padding the mistake forgets); expected spec.validLens"],
  ['a batched Q for a mistake', (lab) => lab.mistake('no-scaling', { Q: [q], K: [k], V: [v] }),
    'mistake: Q has shape [1, 2, 2]; expected a matrix [m, d_k] (one head, no batch axes; only no-causal-mask and no-padding-mask take batch axes)'],
  ['a float16 mistake with V past 65504', (lab) => lab.mistake('fp16-mask-fill', { Q: q, K: k, V: [[1, 2], [3, 1e5], [5, 6]] }),
    "mistake: V[1, 1] = 100000 does not fit float16 (largest finite 65504); expected smaller values for 'fp16-mask-fill'"],
  ['a mistake whose mask does not fit', (lab) => lab.mistake('mask-after-softmax', { Q: q, K: k, V: v, mask: [[1, 0]] }),
    'mistake: mask has shape [1, 2]; expected a shape that broadcasts to [2, 3]'],
];

/** Runs body on a fresh one-head cache (dHead 2, maxLength 2) and frees it whatever happens. */
function withCache(lab, body) {
  const cache = lab.createKVCache({ heads: 1, dHead: 2, maxLength: 2 });
  try {
    return body(cache);
  } finally {
    cache.dispose();
  }
}

function quiet(body) {
  // The engine must never print: catch anything written while it runs.
  const printed = [];
  const saved = {};
  for (const m of ['log', 'info', 'warn', 'error', 'debug', 'trace']) {
    saved[m] = console[m];
    console[m] = (...args) => printed.push(`console.${m}: ${args.join(' ')}`);
  }
  const write = process.stderr.write;
  process.stderr.write = (chunk, ...rest) => { printed.push(`stderr: ${chunk}`); return true; };
  try {
    body();
  } finally {
    Object.assign(console, saved);
    process.stderr.write = write;
  }
  return printed;
}

function expectMessage(call, lab, message) {
  assert.throws(() => call(lab), (err) => {
    assert.ok(err instanceof Error, `threw ${typeof err} ${err}`);
    assert.equal(err.constructor, Error);
    assert.equal(err.message, message);
    return true;
  });
}

test(`${cases.length} classes of bad input throw a named Error, leak nothing and leave the engine working`, async (t) => {
  assert.ok(cases.length >= 40);
  const lab = await loadAttentionLab();
  for (const [what, call, message] of cases) {
    await t.test(what, () => {
      const printed = quiet(() => {
        expectMessage(call, lab, message);  // first time: lets any one-off allocation happen
        const before = lab.memory();
        for (let i = 0; i < REPEATS; i++) expectMessage(call, lab, message);
        const after = lab.memory();
        assert.equal(after.heapInUse, before.heapInUse, `heap in use after ${REPEATS} calls`);
        assert.equal(after.handles, before.handles, 'JS handles');
      });
      assert.deepEqual(printed, []);
      const ok = lab.attention([[1, 0]], [[1, 0], [0, 1]], [[10, 0], [0, 6]]);
      assert.ok(Math.abs(ok.output.get(0, 0) - 6.6976) < 5e-4);
    });
  }
});

test('options inherited through a prototype are ignored, like any key that is not the caller\'s own', async () => {
  const lab = await loadAttentionLab();
  const inherited = Object.create({ causal: true, stages: ['weights'] });
  const r = lab.attention(k, k, v, inherited);
  const plain = lab.attention(k, k, v);
  assert.deepEqual(Array.from(r.weights.data), Array.from(plain.weights.data));
  assert.ok(r.weights.get(0, 2) > 0, 'not causal');
  assert.ok(r.output, 'every stage returned');
  const spec = Object.create({ heads: 2 });
  Object.assign(spec, { X, Wq: W, Wk: W, Wv: W });
  assert.equal(lab.multiHeadAttention(spec).weights.shape[0], 1);
});

test('options set on Object.prototype (a polluting library) change no answer, throw nothing and leak nothing', async () => {
  const lab = await loadAttentionLab();
  // issue 22's cases; tests/node/api-pollution.test.js runs every function with every option name.
  const cases = [
    ['window', 1, () => lab.attention(k, k, v).output.toArray()],
    ['scale', 100, () => lab.tiledAttention(k, k, v).output.toArray()],
    ['dv', 100, () => lab.costFigures({ m: 4, n: 4, dk: 2 }).full.multiplyAdds],
    ['block', 1, () => lab.explainOnlineSoftmax(k, k, v, 0).blocks.length],
    ['temperature', 100, () => lab.tiledAttention(k, k, v).output.toArray()],
    ['scaling', 'none', () => lab.explainRow(k, k, v, 1).weights.toArray()],
    ['validLens', 1, () => lab.attention(k, k, v).weights.toArray()],
    ['mask', [[true]], () => lab.attention(k, k, v).weights.toArray()],
    ['validLens', 1, () => lab.mistake('no-scaling', { Q: k, K: k, V: v }).figure],
    ['mask', [[true]], () => lab.mistake('mask-after-softmax', { Q: k, K: k, V: v, causal: true }).figures],
  ];
  for (const [name, value, call] of cases) {
    const want = call();
    const before = lab.memory();
    let got;
    Object.prototype[name] = value;  // eslint-disable-line no-extend-native
    try {
      for (let i = 0; i < REPEATS; i++) got = call();
    } finally {
      delete Object.prototype[name];
    }
    assert.deepEqual(got, want, `Object.prototype.${name} = ${JSON.stringify(value)}`);
    const after = lab.memory();
    assert.equal(after.heapInUse, before.heapInUse, `heap in use with Object.prototype.${name}`);
    assert.equal(after.handles, before.handles);
  }
});

test('a workspace view passed to a call that grows wasm memory is copied first: right answer, nothing leaked', async () => {
  const lab = await loadAttentionLab();
  const ws = lab.createWorkspace({ m: 2, n: 2, dk: 2, dv: 2 });
  ws.Q.set([1, 0, 0, 1]);
  ws.K.set([1, 0, 0, 1]);
  ws.V.set([1, 2, 3, 4]);
  const n = 1500;  // four n x n stages: 36 MB, past the memory reserved so far
  const bigK = { shape: [n, 2], data: new Float32Array(2 * n).fill(1) };
  const bigV = { shape: [n, 2], data: new Float32Array(2 * n).fill(1) };
  const before = lab.memory();
  const r = lab.attention({ shape: [n, 2], data: new Float32Array(2 * n) }, bigK, bigV, { stages: ['output'] });
  assert.equal(r.output.shape[0], n);
  // Views into memory as it is now, passed in while the next call allocates more.
  const views = { shape: [2, 2], data: ws.Q };
  const grow = lab.attention(views, { shape: [2, 2], data: ws.K }, { shape: [2, 2], data: ws.V });
  const want = lab.attention([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1, 2], [3, 4]]);
  assert.deepEqual(Array.from(grow.output.data), Array.from(want.output.data));
  const big = lab.attention({ shape: [2, 2], data: ws.Q }, { shape: [2 * n, 2], data: new Float32Array(4 * n) },
    { shape: [2 * n, 2], data: new Float32Array(4 * n) }, { stages: ['weights'] });
  assert.equal(big.weights.shape[1], 2 * n);
  assert.ok(lab.memory().heapSize > before.heapSize, 'memory grew');
  assert.deepEqual(Array.from(ws.Q), [1, 0, 0, 1]);
  ws.dispose();
  const after = lab.memory();
  assert.equal(after.handles, before.handles);
});

test('stages returns only the stages asked for, with the same numbers as a full call', async () => {
  const lab = await loadAttentionLab();
  const full = lab.attention(k, k, v, { causal: true });
  const some = lab.attention(k, k, v, { causal: true, stages: ['output', 'weights'] });
  assert.deepEqual(Object.keys(some).sort(), ['fullyMaskedRows', 'output', 'scale', 'weights']);
  assert.deepEqual(Array.from(some.weights.data), Array.from(full.weights.data));
  assert.deepEqual(Array.from(some.output.data), Array.from(full.output.data));
  assert.deepEqual(Object.keys(lab.attention(k, k, v, { stages: [] })).sort(), ['fullyMaskedRows', 'scale']);
});

test('typed-array tensors give the same numbers as nested arrays and are not modified', async () => {
  const lab = await loadAttentionLab();
  const data = Float32Array.from([1, 0, 0, 1, 1, 1]);
  const fast = lab.attention({ shape: [3, 2], data }, { shape: [3, 2], data }, { shape: [3, 2], data: Float32Array.from(v.flat()) });
  const nested = lab.attention(k, k, v);
  for (const s of ['scores', 'scaled', 'masked', 'weights', 'output']) assert.deepEqual(Array.from(fast[s].data), Array.from(nested[s].data));
  assert.deepEqual(Array.from(data), [1, 0, 0, 1, 1, 1]);
});

test('a sparse array of exactly 2^28 entries is refused before its 1 GiB Float32Array is made', async () => {
  const lab = await loadAttentionLab();
  const before = process.memoryUsage().arrayBuffers;
  assert.throws(() => lab.attention(new Array(2 ** 28), k, v), { message: 'attention: Q[0] is a hole (no entry); expected a value at every index' });
  const sparse = new Array(2 ** 28);
  sparse[0] = 1;
  assert.throws(() => lab.tensor({ shape: [2 ** 28], data: sparse }), { message: 'tensor: value.data[1] is a hole (no entry); expected a value at every index' });
  const grown = process.memoryUsage().arrayBuffers - before;
  assert.ok(grown < 16 * 2 ** 20, `array buffers grew by ${grown} bytes`);
});

test('transferring a small result\'s buffer leaves later small calls working and their results whole', async () => {
  const lab = await loadAttentionLab();
  const r = lab.attention(k, k, v, { causal: true });
  const want = { output: r.output.toArray(), weights: r.weights.toArray() };
  const first = lab.attention(k, k, v, { causal: true });
  structuredClone(first.output.data.buffer, { transfer: [first.output.data.buffer] });
  assert.equal(first.output.data.length, 0, 'the transferred result is gone, as documented');
  for (let i = 0; i < 3; i++) {
    const again = lab.attention(k, k, v, { causal: true });
    assert.deepEqual(again.output.toArray(), want.output);
    assert.deepEqual(again.weights.toArray(), want.weights);
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(again.weights.data.buffer, [again.weights.data.buffer]);
    port1.close();
    port2.close();
  }
  const later = lab.attention(k, k, v, { causal: true, stages: ['weights'] });
  assert.deepEqual(later.weights.toArray(), want.weights);
});

test('after every class of bad input, reset() gives the memory it grew back', async (t) => {
  const lab = await loadAttentionLab();
  const grown = lab.memory();
  lab.reset();
  const after = lab.memory();
  t.diagnostic(`wasm memory after the bad-input run: ${grown.heapSize / 2 ** 20} MiB (${grown.heapInUse} B in use); after reset(): ${after.heapSize / 2 ** 20} MiB (${after.heapInUse} B in use)`);
  assert.equal(after.heapSize, 16 * 2 ** 20);
  assert.ok(after.heapInUse <= grown.heapInUse);
});
