'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');

const close = (actual, expected, tol, what) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} is not within ${tol} of ${expected}`);

test('the package loads with require and with import, and both share the API', async () => {
  const viaRequire = require('../../index.js');
  const viaImport = await import('../../index.mjs');
  assert.equal(typeof viaRequire.loadAttentionLab, 'function');
  assert.equal(viaImport.loadAttentionLab, viaRequire.loadAttentionLab);
  const lab = await viaImport.loadAttentionLab();
  assert.equal(lab, await viaRequire.loadAttentionLab(), 'one engine per process');
});

test('the public API has exactly these names', async () => {
  const lab = await loadAttentionLab();
  assert.deepEqual(Object.keys(lab).sort(), [
    'ATTENTION_OPTIONS', 'MISTAKES', 'TRAINER_DEFAULTS', 'Tensor', 'attention', 'attentionBackward', 'attentionMatrixBytes', 'costFigures', 'createDotProductStats', 'createKVCache', 'createTrainer', 'createWorkspace', 'dotProductStats', 'examples', 'explainOnlineSoftmax', 'explainRow', 'headSummary', 'kvCacheBytes', 'loadModel', 'loadTrainer', 'maxAbsDiff', 'memory', 'mistake', 'multiHeadAttention', 'positions', 'randomNormal', 'reset', 'rope', 'softmax', 'softmaxSaturation', 'tensor', 'tiledAttention', 'traceShapes',
  ]);
});

test('the worked example gives every intermediate number from the lesson', async () => {
  const lab = await loadAttentionLab();
  const { Q, K, V } = lab.examples().worked;
  assert.deepEqual(Q.toArray(), [[1, 0]]);
  const r = lab.attention(Q, K, V);
  assert.deepEqual(r.scores.toArray(), [[1, 0]]);
  close(r.scaled.get(0, 0), 0.7071, 5e-5, 'scaled[0]');
  close(r.weights.get(0, 0), 0.6698, 5e-5, 'w1');
  close(r.weights.get(0, 1), 0.3302, 5e-5, 'w2');
  close(r.output.get(0, 0), 6.6976, 5e-4, 'output[0]');
  close(r.output.get(0, 1), 1.9814, 5e-4, 'output[1]');
  const e = Math.exp(Math.SQRT1_2);
  close(r.weights.get(0, 0), e / (e + 1), 1e-6, 'w1 exact');
  assert.ok(r.output.data instanceof Float32Array);
});

test('time flies like an arrow: the flies row scores [0, 6, 0, 0, 9] and softmaxes onto arrow', async () => {
  const lab = await loadAttentionLab();
  const ex = lab.examples().timeFlies;
  assert.deepEqual(ex.tokens, ['time', 'flies', 'like', 'an', 'arrow']);
  assert.deepEqual(ex.Q.toArray()[1], [0, 3, 0, 0]);
  assert.deepEqual(ex.K.toArray()[4], [0, 3, 0, 0]);
  assert.deepEqual(ex.K.toArray()[0], [2, 0, 0, 1]);
  const r = lab.attention(ex.Q, ex.K, ex.V);
  assert.deepEqual(r.scores.toArray()[1], [0, 6, 0, 0, 9]);
  assert.deepEqual(r.scaled.toArray()[1], [0, 3, 0, 0, 4.5]);
  const want = [0.01, 0.18, 0.01, 0.01, 0.80];
  r.weights.toArray()[1].forEach((w, j) => close(w, want[j], 0.005, `flies -> ${ex.tokens[j]}`));
  const unscaled = lab.attention(ex.Q, ex.K, ex.V, { scale: 1 });
  assert.ok(unscaled.weights.get(1, 4) > 0.95, 'without scaling nearly all weight is on arrow');
});

test('softmax([1000, 1001, 1002]) equals softmax([0, 1, 2]) and is never NaN', async () => {
  const lab = await loadAttentionLab();
  const big = lab.softmax([1000, 1001, 1002]).data;
  const small = lab.softmax([0, 1, 2]).data;
  [0.0900, 0.2447, 0.6652].forEach((w, i) => {
    close(big[i], w, 5e-5, `softmax[${i}]`);
    close(big[i], small[i], 1e-7, `same as small[${i}]`);
  });
  const cols = lab.softmax([[1, 2], [3, 2]], { axis: 0 }).toArray();
  close(cols[0][0] + cols[1][0], 1, 1e-6, 'column sums to 1');
  assert.deepEqual(Array.from(lab.softmax([-Infinity, -Infinity]).data), [0, 0]);
});

test('with the causal mask row 0 is [1, 0, 0, 0, 0] and the upper triangle is 0', async () => {
  const lab = await loadAttentionLab();
  const ex = lab.examples().timeFlies;
  const r = lab.attention(ex.Q, ex.K, ex.V, { causal: true });
  const w = r.weights.toArray();
  assert.deepEqual(w[0], [1, 0, 0, 0, 0]);
  for (let i = 0; i < 5; i++) {
    for (let j = i + 1; j < 5; j++) {
      assert.equal(w[i][j], 0);
      assert.equal(r.masked.get(i, j), -Infinity);
    }
    close(w[i].reduce((a, b) => a + b, 0), 1, 1e-6, `row ${i} sum`);
  }
});

test('a fully masked row gives zero weights and output and is reported', async () => {
  const lab = await loadAttentionLab();
  const x = [[[1, 0], [0, 1], [1, 1]], [[2, 0], [0, 2], [1, 0]]];
  const r = lab.attention(x, x, x, { validLens: [2, 0] });
  assert.deepEqual(r.fullyMaskedRows, [[1, 0], [1, 1], [1, 2]]);
  assert.deepEqual(r.weights.toArray()[1], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]);
  assert.deepEqual(r.output.toArray()[1], [[0, 0], [0, 0], [0, 0]]);
  assert.equal(r.weights.get(0, 0, 2), 0, 'key 2 of batch 0 is padding');
});

test('a boolean mask is accepted as nested true/false', async () => {
  const lab = await loadAttentionLab();
  const x = [[1, 0], [0, 1]];
  const r = lab.attention(x, x, x, { mask: [[true, false], [true, true]] });
  assert.deepEqual(r.weights.toArray()[0], [1, 0]);
});

test('multi-head attention: loop and batched agree exactly, shapes follow the lesson', async () => {
  const lab = await loadAttentionLab();
  const { random, randomNested } = require('./reference.js');
  const rand = random(5);
  const spec = {
    X: randomNested([6, 8], rand),
    Wq: randomNested([8, 8], rand),
    Wk: randomNested([8, 8], rand),
    Wv: randomNested([8, 8], rand),
    Wo: randomNested([8, 8], rand),
    heads: 2,
  };
  const loop = lab.multiHeadAttention({ ...spec, method: 'loop' });
  const batched = lab.multiHeadAttention({ ...spec, method: 'batched' });
  assert.deepEqual(loop.output.shape, [6, 8]);
  assert.deepEqual(loop.weights.shape, [2, 6, 6]);
  assert.deepEqual(loop.headOutputs.shape, [2, 6, 4]);
  assert.deepEqual(Array.from(loop.output.data), Array.from(batched.output.data));
  const wrong = lab.multiHeadAttention({ ...spec, forgetMergeTranspose: true });
  assert.deepEqual(wrong.output.shape, [6, 8]);
  const diff = Math.max(...wrong.output.data.map((x, i) => Math.abs(x - batched.output.data[i])));
  assert.ok(diff > 1e-3, `forgetting the transpose changes the values (max diff ${diff})`);
  const eight = lab.multiHeadAttention({ ...spec, heads: 8 });
  assert.equal(eight.scale, 1, 'h = d_model gives d_k = 1 and scale 1');
});

test('dotProductStats lands near sqrt(d_k) and repeats for the same seed', async () => {
  const lab = await loadAttentionLab();
  for (const dk of [4, 64, 512]) {
    const s = lab.dotProductStats({ dk, samples: 20000, seed: 2017 });
    close(s.std, Math.sqrt(dk), 0.03 * Math.sqrt(dk), `std for d_k = ${dk}`);
    assert.deepEqual(lab.dotProductStats({ dk, samples: 20000, seed: 2017 }), s);
  }
  assert.notEqual(lab.dotProductStats({ dk: 4, seed: 1 }).std, lab.dotProductStats({ dk: 4, seed: 2 }).std);
});

test('the example embeddings project to its Q, K, V and Q = K = V = X attends mostly to itself', async () => {
  const lab = await loadAttentionLab();
  const ex = lab.examples().timeFlies;
  const projected = lab.multiHeadAttention({ X: ex.X, Wq: ex.Wq, Wk: ex.Wk, Wv: ex.Wv, heads: 1 });
  assert.deepEqual(Array.from(projected.q.data), Array.from(ex.Q.data));
  assert.deepEqual(Array.from(projected.k.data), Array.from(ex.K.data));
  assert.deepEqual(projected.weights.toArray()[0][1], lab.attention(ex.Q, ex.K, ex.V).weights.toArray()[1]);
  const self = lab.attention(ex.X, ex.X, ex.X).weights.toArray();
  self.forEach((row, i) => row.forEach((w, j) => { if (j !== i) assert.ok(row[i] > 2 * w, `row ${i}`); }));
});

test('traceShapes follows the lesson shapes and counts 1,048,576 parameters for d_model 512, h 8', async () => {
  const lab = await loadAttentionLab();
  const t = lab.traceShapes({ batch: 32, n: 50, dModel: 64, dk: 64, dv: 128 });
  const byId = Object.fromEntries(t.steps.map((s) => [s.id, s.shape]));
  assert.deepEqual(byId.Q, [32, 50, 64]);
  assert.deepEqual(byId.weights, [32, 50, 50]);
  assert.deepEqual(byId.heads, [32, 50, 128]);
  assert.equal(lab.traceShapes({ n: 6, dModel: 512, heads: 8 }).parameters, 1048576);
  assert.throws(() => lab.traceShapes({ n: 6, dModel: 8, heads: 3 }), { message: 'traceShapes: heads = 3 does not divide dModel = 8; give dk or a divisor' });
});

test('softmaxSaturation: unscaled rows go one-hot and their gradient vanishes', async () => {
  const lab = await loadAttentionLab();
  const [small, , big] = lab.softmaxSaturation({ dks: [4, 64, 512] });
  assert.ok(big.maxWeightUnscaled > 0.95 && big.maxGradUnscaled < 0.05);
  assert.ok(Math.abs(big.maxWeightScaled - small.maxWeightScaled) < 0.1);
});

test('explainRow shows the worked example exps [2.0281, 1] with sum 3.0281', async () => {
  const lab = await loadAttentionLab();
  const { Q, K, V } = lab.examples().worked;
  const d = lab.explainRow(Q, K, V, 0);
  close(d.expRaw.get(0), 2.0281, 5e-5, 'exp 1');
  assert.equal(d.expRaw.get(1), 1);
  close(d.sumRaw, 3.0281, 5e-5, 'sum');
  assert.deepEqual(d.terms.toArray(), [[1, 0], [0, 0]]);
  assert.throws(() => lab.explainRow(Q, K, V, 1), { message: 'explainRow: row = 1 but Q has 1 rows; expected 0 to 0' });
});

test('randomNormal repeats for a seed; maxAbsDiff compares tensors', async () => {
  const lab = await loadAttentionLab();
  const a = lab.randomNormal({ shape: [3, 4], seed: 5 });
  assert.deepEqual(a.shape, [3, 4]);
  assert.equal(lab.maxAbsDiff(a, lab.randomNormal({ shape: [3, 4], seed: 5 })), 0);
  assert.ok(lab.maxAbsDiff(a, lab.randomNormal({ shape: [3, 4], seed: 6 })) > 0);
  assert.throws(() => lab.maxAbsDiff([1, 2], [1]), { message: 'maxAbsDiff: b has shape [1] but a has [2]; expected the same shape' });
});

test('small results stay their own: 40 repeated n = 5 calls each match the float64 reference afterwards, and writing into one changes no other', async () => {
  const lab = await loadAttentionLab();
  const { random, randomNested, attentionHead, maxDiff } = require('./reference.js');
  const rand = random(905);
  const asInput = (nested) => ({ shape: [nested.length, nested[0].length], data: Float32Array.from(nested.flat()) });
  const calls = [];
  // 40 calls of five stages at n = 5, d = 16 hold more floats than one 16 KB pooled slab.
  for (let c = 0; c < 40; c++) {
    const q = randomNested([5, 16], rand), k = randomNested([5, 16], rand), v = randomNested([5, 16], rand);
    calls.push({ ref: attentionHead(q, k, v, 1 / Math.sqrt(16)), r: lab.attention(asInput(q), asInput(k), asInput(v)) });
  }
  for (const [c, { ref, r }] of calls.entries()) {
    for (const stage of ['scores', 'scaled', 'weights', 'output']) {
      const worst = maxDiff(r[stage].data, ref[stage]);
      assert.ok(worst < 1e-5, `call ${c} ${stage}: max |diff| ${worst}`);
    }
    assert.deepEqual(Array.from(r.masked.data), Array.from(r.scaled.data), `call ${c}: nothing masked`);
  }
  const before = calls.map(({ r }) => ['scores', 'scaled', 'masked', 'weights', 'output'].map((s) => Array.from(r[s].data)));
  calls[7].r.weights.data.fill(9);
  calls[7].r.output.data.fill(9);
  calls.forEach(({ r }, c) => {
    if (c === 7) return;
    ['scores', 'scaled', 'masked', 'weights', 'output'].forEach((s, i) => assert.deepEqual(Array.from(r[s].data), before[c][i], `call ${c} ${s}`));
  });
  assert.deepEqual(Array.from(calls[7].r.scaled.data), before[7][1], 'the other stages of the call written to');
});
