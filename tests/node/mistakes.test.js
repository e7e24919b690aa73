'use strict';
// lab.mistake and lab.MISTAKES against an independent float64 reference (reference.js): each
// mistake's weights, the correct ones, the difference, the changed cells and the figure.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const { random, randomNested, attentionHead, maxDiff } = require('./reference.js');
const { splitTokens, seedFrom } = require('../../web/src/ui/author-data.js');

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
  assert.deepEqual(p.figure.row, [onPads.indexOf(pad)], 'the row the figure comes from');
  const futures = free.weights.map((row, i) => row.reduce((s, w, j) => s + (j > i ? w : 0), 0));
  assert.deepEqual(c.figure.row, [futures.indexOf(future)]);
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

test('a forgotten padding mask over a batch names the sentence and token of the leakiest real row, as float64 attention per sentence gives it', async () => {
  const lab = await loadAttentionLab();
  const rand = random(41);
  const lens = [4, 6, 2, 5];
  const X = randomNested([4, 6, 3], rand);
  const r = lab.mistake('no-padding-mask', { Q: X, K: X, V: X, validLens: lens });
  let best = -1, where = null;
  X.forEach((x, b) => {
    const free = attentionHead(x, x, x, 1 / Math.sqrt(3));
    assert.ok(maxDiff(r.mistaken.weights.data.subarray(b * 36, (b + 1) * 36), free.weights) < 1e-6, `sentence ${b}`);
    assert.ok(maxDiff(r.correct.weights.data.subarray(b * 36, (b + 1) * 36), attentionHead(x, x, x, 1 / Math.sqrt(3), (i, j) => j < lens[b]).weights) < 1e-6);
    for (let i = 0; i < lens[b]; i++) {
      const share = free.weights[i].slice(lens[b]).reduce((a, w) => a + w, 0);
      if (share > best) { best = share; where = [b, i]; }
    }
  });
  assert.ok(best > 0.05, `the reference leaks ${best}`);
  assert.ok(Math.abs(r.figure.value - best) < 1e-6, `${r.figure.value} vs ${best}`);
  assert.deepEqual(r.figure.row, where);
  assert.equal(r.figure.correctValue, 0);
  assert.deepEqual(r.cells.map((rows) => rows.length), [6, 6, 6, 6]);
  assert.ok(r.cells[1].flat().every((c) => !c), 'the unpadded sentence does not change');
  assert.equal(r.cells[2][0][0], true);
  const none = lab.mistake('no-padding-mask', { Q: X, K: X, V: X, validLens: 6 });
  assert.deepEqual([none.figure.value, none.figure.row], [0, null], 'no padding: nothing leaks and no row is named');
  assert.equal(lab.mistake('no-scaling', { Q: X[0], K: X[0], V: X[0] }).figure.row, null, 'a figure that is not one row\'s names none');
});

test('the <padding-mask> sentence: on its default batch the engine names the token a sum over the shown weights finds, with the same share', async () => {
  const lab = await loadAttentionLab();
  // The widget's inputs (web/src/elements/padding-mask.js), built the same way.
  const raw = ['time flies like an arrow', 'the cat sat', 'hi'];
  const sentences = raw.map(splitTokens), lens = sentences.map((s) => s.length);
  const X = lab.randomNormal({ shape: [3, 5, 4], seed: seedFrom(raw.join('|')) });
  const shown = lab.attention(X, X, X).weights.toArray();
  let share = 0, where = null;
  shown.forEach((rows, b) => rows.slice(0, lens[b]).forEach((row, i) => {
    const s = row.slice(lens[b]).reduce((a, w) => a + w, 0);
    if (s > share) { share = s; where = [b, i]; }
  }));
  const figure = lab.mistake('no-padding-mask', { Q: X, K: X, V: X, validLens: lens }).figure;
  assert.deepEqual(figure.row, where);
  assert.equal(figure.value, share, 'the same float32 weights, added in the same order');
  assert.equal((figure.value * 100).toFixed(1), (share * 100).toFixed(1));
});
