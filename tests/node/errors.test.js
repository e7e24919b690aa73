'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');

const q = [[1, 0, 0, 0], [0, 1, 0, 0]];
const k = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]];
const v = [[1, 2], [3, 4], [5, 6]];
const X = [[1, 0], [0, 1], [1, 1]];
const W = [[1, 0], [0, 1]];

// Each case: a call with bad input and the exact message it must throw.
const cases = [
  ['K with another d_k', (lab) => lab.attention(q, [[1, 2, 3], [4, 5, 6], [7, 8, 9]], v), 'attention: K has d_k = 3 but Q has d_k = 4'],
  ['V with too few rows', (lab) => lab.attention(q, k, [[1, 2]]), 'attention: V has 1 rows but K has 3; expected one value per key'],
  ['Q of rank 1', (lab) => lab.attention([1, 2, 3, 4], k, v), 'attention: Q has rank 1 (shape [4]); expected rank >= 2, [..., m, d_k]'],
  ['batch axes that differ', (lab) => lab.attention([q], [k, k], [v, v]), 'attention: K has leading axes [2] but Q has [1]; expected the same batch/head axes'],
  ['an empty Q', (lab) => lab.attention([], k, v), 'attention: Q has rank 1 (shape [0]); expected rank >= 2, [..., m, d_k]'],
  ['no queries', (lab) => lab.attention({ shape: [0, 4], data: [] }, k, v), 'attention: Q has shape [0, 4]; expected no zero-sized axis'],
  ['d_k = 0', (lab) => lab.attention([[], []], [[], [], []], v), 'attention: Q has d_k = 0; expected at least one feature per query'],
  ['NaN in Q', (lab) => lab.attention([[1, 0, NaN, 0], [0, 1, 0, 0]], k, v), 'attention: Q[0, 2] is NaN; expected finite numbers'],
  ['Infinity in V', (lab) => lab.attention(q, k, [[1, 2], [3, Infinity], [5, 6]]), 'attention: V[1, 1] is Infinity; expected finite numbers'],
  ['a ragged Q', (lab) => lab.attention([[1, 0, 0, 0], [0, 1, 0]], k, v), 'attention: Q is ragged: Q[1] has 3 entries but Q[0] has 4'],
  ['a string in K', (lab) => lab.attention(q, [[1, 0, 0, 0], [0, 'x', 0, 0], [0, 0, 1, 0]], v), 'attention: K[1][1] is a string; expected a number'],
  ['Q that is not a tensor', (lab) => lab.attention('hello', k, v), 'attention: Q is a string; expected nested arrays of numbers or { shape, data }'],
  ['data that does not fit the shape', (lab) => lab.attention({ shape: [2, 4], data: [1, 2, 3] }, k, v), 'attention: Q.data has 3 entries but shape [2, 4] needs 8'],
  ['a valid length past n', (lab) => lab.attention([q], [k], [v], { validLens: [4] }), 'attention: validLens[0] = 4; expected an integer in [0, 3] (the number of keys)'],
  ['a negative valid length', (lab) => lab.attention([q], [k], [v], { validLens: [-1] }), 'attention: validLens[0] = -1; expected an integer in [0, 3] (the number of keys)'],
  ['valid lengths of the wrong shape', (lab) => lab.attention([q], [k], [v], { validLens: [1, 2, 3] }), 'attention: validLens has shape [3]; expected a prefix of [1, 2] (one length per batch element, or one per query row)'],
  ['a mask of the wrong shape', (lab) => lab.attention(q, k, v, { mask: [[true, false]] }), 'attention: mask has shape [1, 2]; expected a shape that broadcasts to [2, 3]'],
  ['a scale of NaN', (lab) => lab.attention(q, k, v, { scale: NaN }), 'attention: scale is NaN; expected a finite number'],
  ['a scale that is a string', (lab) => lab.attention(q, k, v, { scale: '2' }), 'attention: scale is a string; expected a number'],
  ['causal that is not boolean', (lab) => lab.attention(q, k, v, { causal: 1 }), 'attention: causal is a number; expected true or false'],
  ['a misspelt option', (lab) => lab.attention(q, k, v, { casual: true }), "attention: unknown option 'casual'; expected one of causal, validLens, mask, window, scale, scaling, temperature, rope, alibi, stages"],
  ['an unknown scaling', (lab) => lab.attention(q, k, v, { scaling: 'log' }), "attention: scaling = \"log\"; expected 'sqrt' (1/sqrt(d_k)), 'none' or 'dk' (1/d_k)"],
  ['a temperature of 0', (lab) => lab.attention(q, k, v, { temperature: 0 }), 'attention: temperature is 0; expected a number > 0'],
  ['sizes too large for memory', (lab) => lab.attention({ shape: [60000, 1], data: new Float32Array(60000) }, { shape: [60000, 1], data: new Float32Array(60000) }, { shape: [60000, 1], data: new Float32Array(60000) }),
    'attention: the scores [60000, 60000] would take 3600000000 floats, more than the limit of 268435456'],
  ['an input shape too large for memory', (lab) => lab.attention({ shape: [1e6, 1e6], data: { length: 1e12 } }, k, v), 'attention: Q.data is an object; expected a Float32Array or an array of numbers'],
  ['softmax of NaN', (lab) => lab.softmax([1, NaN]), 'softmax: x[1] is NaN; expected finite numbers'],
  ['softmax over a missing axis', (lab) => lab.softmax([[1, 2]], { axis: 2 }), 'softmax: axis = 2 is out of range for x of rank 2; expected an integer in [-2, 1]'],
  ['softmax of a number', (lab) => lab.softmax(3), 'softmax: x is a scalar; expected a tensor of rank >= 1'],
  ['heads not dividing d_model', (lab) => lab.multiHeadAttention({ X: [[1, 0, 0], [0, 1, 0]], Wq: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], Wk: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], Wv: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], heads: 2 }),
    'multiHeadAttention: heads = 2 does not divide d_model = 3; expected a divisor so every head gets the same width'],
  ['heads = 0', (lab) => lab.multiHeadAttention({ X, Wq: W, Wk: W, Wv: W, heads: 0 }), 'multiHeadAttention: heads = 0; expected a whole number >= 1'],
  ['a W_Q with the wrong rows', (lab) => lab.multiHeadAttention({ X, Wq: [[1, 0]], Wk: W, Wv: W, heads: 1 }), 'multiHeadAttention: Wq has 1 rows but X has d_model = 2'],
  ['an unknown method', (lab) => lab.multiHeadAttention({ X, Wq: W, Wk: W, Wv: W, heads: 1, method: 'fast' }), "multiHeadAttention: method = \"fast\"; expected 'loop' or 'batched'"],
  ['d_k = 0 for the experiment', (lab) => lab.dotProductStats({ dk: 0 }), 'dotProductStats: dk = 0; expected a whole number from 1 to 65536'],
  ['a fractional seed', (lab) => lab.dotProductStats({ dk: 4, seed: 0.5 }), 'dotProductStats: seed = 0.5; expected a whole number from 0 to 2^53 - 1'],
  ['a workspace with m = 0', (lab) => lab.createWorkspace({ m: 0, n: 2, dk: 2, dv: 2 }), 'createWorkspace: m = 0; expected a whole number >= 1'],
  ['a workspace with a bad mask', (lab) => lab.createWorkspace({ m: 2, n: 2, dk: 2, dv: 2, validLens: 3 }), 'createWorkspace: validLens = 3; expected an integer in [0, 2] (the number of keys)'],
];

test('every bad input throws an Error naming the function, the argument and what was expected', async (t) => {
  const lab = await loadAttentionLab();
  for (const [what, call, message] of cases) {
    await t.test(what, () => {
      assert.throws(() => call(lab), (err) => {
        assert.ok(err instanceof Error, `${what}: threw ${typeof err} ${err}`);
        assert.equal(err.message, message);
        return true;
      });
      // The module keeps working after the error.
      const ok = lab.attention([[1, 0]], [[1, 0], [0, 1]], [[10, 0], [0, 6]]);
      assert.ok(Math.abs(ok.output.get(0, 0) - 6.6976) < 5e-4);
    });
  }
});

test('scores that overflow float32 are an error, not NaN', async () => {
  const lab = await loadAttentionLab();
  assert.throws(() => lab.attention([[1e20]], [[1e20]], [[1]]), /attention: the scaled score\[0, 0\] is infinite, beyond float32/);
});

test('a workspace rejects non-finite inputs on run and keeps working', async () => {
  const lab = await loadAttentionLab();
  const ws = lab.createWorkspace({ m: 1, n: 2, dk: 2, dv: 2 });
  ws.Q.set([1, 0]);
  ws.K.set([1, 0, 0, 1]);
  ws.V.set([10, 0, 0, 6]);
  ws.K[1] = NaN;
  assert.throws(() => ws.run(), { message: 'attention: K[0, 1] is NaN; expected finite numbers' });
  ws.K[1] = 0;
  assert.ok(Math.abs(ws.run().output[0] - 6.6976) < 5e-4);
  ws.dispose();
  assert.throws(() => ws.run(), { message: 'Workspace: used after dispose()' });
});
