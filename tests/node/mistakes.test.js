'use strict';
// lab.mistake and lab.MISTAKES against an independent float64 reference (reference.js): each
// mistake's weights, the correct ones, the difference, the changed cells and the figure.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const { random, randomNested, attentionHead, maxDiff } = require('./reference.js');

const NAMES = ['softmax-wrong-axis', 'mask-after-softmax', 'no-scaling', 'scale-by-dk', 'fp16-mask-fill',
  'keys-not-transposed', 'no-causal-mask', 'no-padding-mask'];

const transpose = (a) => a[0].map((_, j) => a.map((row) => row[j]));
const rowSums = (w) => w.map((row) => row.reduce((s, x) => s + x, 0));
const causal = (i, j) => j <= i;

function inputs(seed, m, n, dk, dv) {
  const rand = random(seed);
  return { Q: randomNested([m, dk], rand), K: randomNested([n, dk], rand), V: randomNested([n, dv], rand) };
}

function checkDifference(r) {
  const mw = r.mistaken.weights.data, cw = r.correct.weights.data, dw = r.difference.weights.data;
  for (let i = 0; i < dw.length; i++) {
    assert.ok(Object.is(dw[i], Math.fround(mw[i] - cw[i])), `difference[${i}]`);
    const row = Math.floor(i / r.cells[0].length), col = i % r.cells[0].length;
    assert.equal(r.cells[row][col], Number.isNaN(dw[i]) || Math.abs(dw[i]) > 1e-6, `cells[${row}][${col}]`);
  }
}

test('MISTAKES lists the eight mistakes, each with a title, a symptom and a fix', async () => {
  const lab = await loadAttentionLab();
  assert.deepEqual(lab.MISTAKES.map((m) => m.name), NAMES);
  for (const m of lab.MISTAKES) {
    assert.deepEqual(Object.keys(m).sort(), ['fix', 'name', 'symptom', 'title']);
    assert.ok(m.title.length > 5 && m.symptom.length > 30 && m.fix.length > 20, m.name);
  }
  assert.ok(Object.isFrozen(lab.MISTAKES));
});

test('softmax over the wrong axis equals a float64 column softmax; rows stop summing to 1', async () => {
  const lab = await loadAttentionLab();
  const { Q, K, V } = inputs(11, 6, 6, 4, 3);
  const r = lab.mistake('softmax-wrong-axis', { Q, K, V });
  const ref = attentionHead(Q, K, V, 0.5);
  const cols = transpose(ref.scaled).map((col) => {
    const best = Math.max(...col);
    const e = col.map((x) => Math.exp(x - best));
    const total = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / total);
  });
  const want = transpose(cols);
  const diff = maxDiff(r.mistaken.weights.data, want);
  assert.ok(diff < 1e-6, `max |weight - reference| = ${diff}`);
  assert.ok(maxDiff(r.correct.weights.data, ref.weights) < 1e-6);
  const worstRow = Math.max(...rowSums(want).map((s) => Math.abs(s - 1)));
  assert.equal(r.figure.label, 'largest |row sum - 1|');
  assert.ok(Math.abs(r.figure.value - worstRow) < 1e-5, `${r.figure.value} vs ${worstRow}`);
  assert.ok(r.figure.correctValue < 1e-6);
  assert.ok(r.figures[1].value < 1e-6, 'columns sum to 1');
  checkDifference(r);
});

test('a mask after the softmax equals the unmasked float64 softmax with masked weights zeroed', async () => {
  const lab = await loadAttentionLab();
  const { Q, K, V } = inputs(12, 5, 5, 4, 2);
  const r = lab.mistake('mask-after-softmax', { Q, K, V, causal: true });
  const free = attentionHead(Q, K, V, 0.5);
  const want = free.weights.map((row, i) => row.map((w, j) => (causal(i, j) ? w : 0)));
  assert.ok(maxDiff(r.mistaken.weights.data, want) < 1e-6);
  assert.ok(maxDiff(r.correct.weights.data, attentionHead(Q, K, V, 0.5, causal).weights) < 1e-6);
  const short = Math.max(...rowSums(want).map((s) => Math.abs(s - 1)));
  assert.ok(Math.abs(r.figure.value - short) < 1e-5);
  // Each output row is the correct one times the row sum: the smallest ratio is the smallest sum.
  assert.ok(Math.abs(r.figures[1].value - Math.min(...rowSums(want))) < 1e-5);
  assert.deepEqual(r.cells[4], [false, false, false, false, false], 'the last row hides nothing');
  checkDifference(r);
});

test('no scaling and 1/d_k scaling equal float64 attention at scales 1 and 1/d_k', async () => {
  const lab = await loadAttentionLab();
  const { Q, K, V } = inputs(13, 4, 7, 16, 3);
  for (const [name, scale] of [['no-scaling', 1], ['scale-by-dk', 1 / 16]]) {
    const r = lab.mistake(name, { Q, K, V });
    const ref = attentionHead(Q, K, V, scale);
    assert.ok(maxDiff(r.mistaken.weights.data, ref.weights) < 1e-6, name);
    assert.ok(maxDiff(r.mistaken.output.data, ref.output) < 1e-5, name);
    const meanMax = ref.weights.reduce((s, row) => s + Math.max(...row), 0) / ref.weights.length;
    assert.ok(Math.abs(r.figure.value - meanMax) < 1e-5, `${name}: ${r.figure.value} vs ${meanMax}`);
    checkDifference(r);
  }
  const sharp = lab.mistake('no-scaling', { Q, K, V }), flat = lab.mistake('scale-by-dk', { Q, K, V });
  assert.ok(sharp.figure.value > sharp.figure.correctValue, 'sharper without scaling');
  assert.ok(flat.figures[1].value > flat.figures[1].correctValue, 'higher entropy with 1/d_k');
});

test('keys not transposed: an error naming the shapes when n != d_k, float64 Q K otherwise', async () => {
  const lab = await loadAttentionLab();
  const loud = lab.mistake('keys-not-transposed', inputs(14, 3, 5, 4, 2));
  assert.deepEqual(loud.mistaken, { error: 'Q K: Q is [3, 4] and K is [5, 4]; a matrix product needs Q\'s 4 columns to match K\'s 5 rows' });
  assert.equal(loud.difference, null);
  assert.equal(loud.figure.value, null);
  const { Q, K, V } = inputs(15, 3, 4, 4, 2);
  const r = lab.mistake('keys-not-transposed', { Q, K, V });
  const ref = attentionHead(Q, transpose(K), V, 0.5);  // scores Q (K^T)^T = Q K
  assert.ok(maxDiff(r.mistaken.weights.data, ref.weights) < 1e-6);
  assert.ok(Math.abs(r.figure.value - Math.max(...r.difference.weights.data.map(Math.abs))) === 0);
  checkDifference(r);
});

test('a forgotten causal or padding mask leaks weight that the float64 reference puts on hidden keys', async () => {
  const lab = await loadAttentionLab();
  const { Q, K, V } = inputs(16, 5, 5, 4, 2);
  const free = attentionHead(Q, K, V, 0.5);
  const future = Math.max(...free.weights.map((row, i) => row.reduce((s, w, j) => s + (j > i ? w : 0), 0)));
  const c = lab.mistake('no-causal-mask', { Q, K, V });
  assert.ok(maxDiff(c.correct.weights.data, attentionHead(Q, K, V, 0.5, causal).weights) < 1e-6, 'correct is causal');
  assert.ok(Math.abs(c.figure.value - future) < 1e-6);
  assert.equal(c.figure.correctValue, 0);
  assert.deepEqual(c.cells.map((row) => row.every(Boolean)), [true, true, true, true, false]);
  const p = lab.mistake('no-padding-mask', { Q, K, V, validLens: 3 });
  // Only real tokens (query rows 0-2) count: the pad queries' own rows are not the symptom.
  const onPads = free.weights.map((row) => row[3] + row[4]);
  const pad = Math.max(...onPads.slice(0, 3));
  assert.ok(Math.abs(p.figure.value - pad) < 1e-6, `${p.figure.value} vs ${pad}`);
  assert.equal(p.figure.label, 'largest weight a real token puts on pad tokens (one row\'s total)');
  assert.ok(maxDiff(p.correct.weights.data, attentionHead(Q, K, V, 0.5, (i, j) => j < 3).weights) < 1e-6);
  checkDifference(c);
  checkDifference(p);
});

test('a -1e9 fill in float16 gives NaN exactly on rows that see no key; the fixed float16 path stays finite', async () => {
  const lab = await loadAttentionLab();
  const { Q, K, V } = inputs(17, 4, 5, 4, 3);
  const r = lab.mistake('fp16-mask-fill', { Q, K, V, validLens: [5, 0, 2, 0] });
  const ref = attentionHead(Q, K, V, 0.5, (i, j) => j < [5, 0, 2, 0][i]);
  const w = r.mistaken.weights.toArray();
  assert.deepEqual(w.map((row) => row.every(Number.isNaN)), [false, true, false, true]);
  assert.deepEqual(w.map((row) => row.some(Number.isNaN)), [false, true, false, true]);
  assert.ok(r.correct.weights.data.every(Number.isFinite) && r.correct.output.data.every(Number.isFinite));
  // float16 keeps about 3 decimal digits.
  assert.ok(maxDiff(r.correct.weights.data, ref.weights) < 2e-3, `${maxDiff(r.correct.weights.data, ref.weights)}`);
  assert.deepEqual(r.figures.map((f) => [f.value, f.correctValue]), [[10, 0], [6, 0]]);
  assert.deepEqual(r.cells.map((row) => row.every(Boolean)), [false, true, false, true]);
  assert.deepEqual(r.cells.map((row) => row.some(Boolean)), [false, true, false, true]);
});

test('every mistake runs on the lesson example and returns finite correct results', async () => {
  const lab = await loadAttentionLab();
  const { Q, K, V } = lab.examples().timeFlies;
  for (const name of NAMES) {
    const r = lab.mistake(name, { Q, K, V, causal: true, validLens: 4 });
    assert.equal(r.name, name);
    assert.ok(r.correct.weights.data.every(Number.isFinite), name);
    assert.deepEqual(r.correct.weights.shape, [5, 5]);
    assert.equal(r.figure, r.figures[0]);
  }
});
