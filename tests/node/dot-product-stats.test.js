'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');

test('any split of N samples over add() gives exactly dotProductStats({ dk, samples: N, seed })', async () => {
  const lab = await loadAttentionLab();
  for (const [dk, seed, splits] of [
    [512, 2017, [[5000], [2, 4998], [1, 1, 1, 4997], [1250, 1250, 1250, 1250]]],
    [4, 7, [[20000], [3, 19997], [7000, 6000, 7000]]],
  ]) {
    const n = splits[0].reduce((a, b) => a + b, 0);
    const whole = lab.dotProductStats({ dk, samples: n, seed });
    for (const split of splits) {
      const stats = lab.createDotProductStats({ dk, seed });
      for (const count of split) assert.equal(stats.add(count), stats);
      assert.equal(stats.samples, n);
      assert.deepEqual(stats.result(), whole, `dk ${dk}, split ${split.join('+')}`);
      stats.dispose();
    }
  }
});

test('a partial result is the one-call result for the samples drawn so far', async () => {
  const lab = await loadAttentionLab();
  const stats = lab.createDotProductStats({ dk: 64, seed: 3 });
  stats.add(100);
  assert.deepEqual(stats.result(), lab.dotProductStats({ dk: 64, samples: 100, seed: 3 }));
  stats.add(900);
  assert.deepEqual(stats.result(), lab.dotProductStats({ dk: 64, samples: 1000, seed: 3 }));
  stats.dispose();
});

test('createDotProductStats names bad arguments, frees everything, and the engine stays usable', async () => {
  const lab = await loadAttentionLab();
  // One pass first, as in bad-input.test.js: a first error may leave a one-off allocation
  // that later calls reuse (8 bytes on the first seed message), which is not a per-call leak.
  for (const spec of [{ dk: 0 }, { dk: 4, seed: -1 }]) assert.throws(() => lab.createDotProductStats(spec));
  const before = lab.memory();
  assert.throws(() => lab.createDotProductStats({ dk: 0 }), { message: 'createDotProductStats: dk = 0; expected a whole number from 1 to 65536' });
  assert.throws(() => lab.createDotProductStats({ dk: 4, seed: -1 }), { message: 'createDotProductStats: seed = -1; expected a whole number from 0 to 2^53 - 1' });
  assert.throws(() => lab.createDotProductStats({ dk: 4, samples: 10 }), /createDotProductStats: .*samples/);
  assert.throws(() => lab.createDotProductStats(4), /createDotProductStats: expected an object/);
  const stats = lab.createDotProductStats({ dk: 4 });
  assert.throws(() => stats.result(), { message: 'createDotProductStats: result: 0 samples drawn; expected add() to reach at least 2 first' });
  assert.throws(() => stats.add(0), { message: 'createDotProductStats: add: count = 0; expected a whole number from 1 to 10000000' });
  assert.throws(() => stats.add('10'), { message: 'createDotProductStats: add: count is a string; expected a whole number' });
  stats.add(10);
  assert.equal(stats.samples, 10);
  stats.dispose();
  assert.throws(() => stats.add(1), { message: 'createDotProductStats: add used after dispose()' });
  assert.deepEqual(lab.memory(), before);
  assert.ok(lab.attention([[1]], [[1]], [[2]]).output.data[0] === 2);
});

test('10,000 steppers made, stepped and disposed leave the heap and handles as they were', async () => {
  const lab = await loadAttentionLab();
  const run = () => {
    const s = lab.createDotProductStats({ dk: 8, seed: 1 });
    s.add(2).add(3);
    s.result();
    try { s.add(0.5); } catch (_) { /* expected */ }
    s.dispose();
  };
  for (let i = 0; i < 100; i++) run();
  const before = lab.memory();
  for (let i = 0; i < 10000; i++) run();
  assert.deepEqual(lab.memory(), before);
});
