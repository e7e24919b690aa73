'use strict';
// <position-lab>'s DOM-free logic (web/src/ui/position-lab.js): reordering, reading the engine's
// results, the reports and the predict-first judges; then the engine facts each part shows, read
// the way the element reads them, against a float64 reference written here.
const test = require('node:test');
const assert = require('node:assert/strict');
const P = require('../../web/src/ui/position-lab.js');
const { loadAttentionLab } = require('./lab.js');
const { seedFrom } = require('../../web/src/ui/author-data.js');

test('move: one place left or right, the same array at an edge or for a bad index', () => {
  const order = [0, 1, 2, 3, 4];
  assert.deepEqual(P.move(order, 1, 1), [0, 2, 1, 3, 4]);
  assert.deepEqual(P.move(order, 4, -1), [0, 1, 2, 4, 3]);
  assert.equal(P.move(order, 0, -1), order);
  assert.equal(P.move(order, 4, 1), order);
  assert.equal(P.move(order, 7, 1), order);
  assert.equal(P.move(order, 1.5, 1), order);
  assert.deepEqual(order, [0, 1, 2, 3, 4], 'the input is not changed');
});

test('parseOrder accepts only a permutation of the right length', () => {
  assert.deepEqual(P.parseOrder('4,1,2,3,0', 5), [4, 1, 2, 3, 0]);
  for (const bad of ['4,1,2,3', '0,0,1,2,3', '0,1,2,3,5', '', '0,1,2,3,-4', 'a,b', undefined, '0,1,2,3,4,']) {
    assert.equal(P.parseOrder(bad, 5), null, String(bad));
  }
  assert.equal(P.isIdentity([0, 1, 2]), true);
  assert.equal(P.isIdentity([1, 0, 2]), false);
});

test('readPosition: whole numbers from 0 to MAX_POSITION', () => {
  assert.equal(P.readPosition(' 10 '), 10);
  assert.equal(P.readPosition('0'), 0);
  assert.equal(P.readPosition(String(P.MAX_POSITION)), P.MAX_POSITION);
  for (const bad of ['', '-1', '1.5', 'ten', String(P.MAX_POSITION + 1), '1e3']) assert.equal(P.readPosition(bad), null, bad);
});

test('visibleKeys, relativeSeries, arrowEnd and pairDims read what they are given', () => {
  assert.deepEqual(P.visibleKeys([0.3, -Infinity, 2, -Infinity]), [0, 2]);
  const scores = [[0, 1, 2], [3, 4, 5], [6, 7, 8]];
  const r = P.relativeSeries(scores, [1], 1);
  assert.deepEqual(r.ks, [-1, 0, 1]);
  assert.deepEqual(r.series, [[5, 4, 3]], 'k = i - j: scores[1][2], scores[1][1], scores[1][0]');
  assert.deepEqual(P.relativeSeries(scores, [0], 1).series, [[1, 0, null]]);
  assert.deepEqual(P.arrowEnd([3, 4], 5, 30), [18, -24], 'y points up');
  assert.deepEqual(P.arrowEnd([1, 1], 0, 30), [0, -0]);
  assert.deepEqual(P.pairDims(1, 8, 'interleaved'), [2, 3]);
  assert.deepEqual(P.pairDims(1, 8, 'half'), [1, 5]);
});

test('sameInFloat32 tells rounding from a real difference', () => {
  assert.equal(P.sameInFloat32(1.2345678, 1.2345679), true);
  assert.equal(P.sameInFloat32(100, 100 + 3e-6), true);
  assert.equal(P.sameInFloat32(1, 1.001), false);
  assert.equal(P.sameInFloat32(0, 1e-5), false);
});

test('shuffleReport says what happened, and why the causal mask changes rows', () => {
  const rows = [{ token: 'dog', change: 0, seenBefore: ['the', 'dog'], seenNow: ['dog'] }, { token: 'the', change: 0, seenBefore: ['the'], seenNow: ['dog', 'the'] }];
  assert.match(P.shuffleReport(rows, { identity: true }), /own order/);
  assert.match(P.shuffleReport(rows, { rope: false, causal: false, identity: false }), /^Every row kept its value \(the largest change is 0\).*permutation-equivariant/);
  const rounding = rows.map((r) => ({ ...r, change: 3e-8 }));
  assert.match(P.shuffleReport(rounding, { identity: false }), /float32 rounding/);
  const moved = [{ ...rows[0], change: 0.25 }, rows[1]];
  assert.match(P.shuffleReport(moved, { rope: true, causal: false, identity: false }), /^1 of 2 rows changed \(the largest by 0\.25\)\. With RoPE/);
  const causal = P.shuffleReport(moved, { rope: false, causal: true, identity: false });
  assert.match(causal, /causal mask lets each token see only itself and the tokens before it/);
  assert.match(causal, /\u201cdog\u201d saw the, dog; now it sees dog\./);
});

test('the judges: the right choice is close, a wrong one has a hint and the engine\'s numbers', () => {
  assert.equal(P.judgeShuffle('moves').close, true);
  assert.equal(P.judgeShuffle('all').close, false);
  assert.ok(P.judgeShuffle('all').hint);
  const s = P.judgeSinusoidal('first', 6.25, 6.25);
  assert.equal(s.close, false);
  assert.match(s.message, /6\.25 and 6\.25/);
  assert.equal(P.judgeRope('same', 0.5, 0.5).close, true);
  assert.match(P.judgeRope('larger', 0.123456, 0.123456).message, /0\.12346/);
  assert.equal(P.judgeCausal('change').close, true);
  assert.equal(P.judgeCausal('keep').close, false);
  assert.ok(P.judgeCausal('keep').hint);
  assert.equal(P.judgeAlibi('last').close, true);
  assert.equal(P.judgeAlibi('first').close, false);
});

// ---- what each part shows, read as the element reads it, against a float64 reference ----

let lab;
test.before(async () => { lab = await loadAttentionLab(); });

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
function softmaxRows(X, causal) {
  return X.map((q, i) => {
    const keys = X.map((k, j) => (causal && j > i ? null : dot(q, k) / Math.sqrt(q.length)));
    const top = Math.max(...keys.filter((x) => x !== null));
    const e = keys.map((x) => (x === null ? 0 : Math.exp(x - top)));
    const z = e.reduce((a, b) => a + b, 0);
    return X[0].map((_, c) => e.reduce((s, w, j) => s + (w / z) * X[j][c], 0));
  });
}

test('shuffle: without positions each token keeps its row; with a causal mask a row changes exactly when its visible set does', () => {
  const tokens = ['the', 'dog', 'bit', 'the', 'man'];
  const X = tokens.map((w) => Array.from(lab.randomNormal({ shape: [4], seed: seedFrom(w) }).data));
  const order = [4, 1, 2, 3, 0];  // "man dog bit the the"
  const Xs = order.map((o) => X[o]);
  for (const causal of [false, true]) {
    const ref0 = softmaxRows(X, causal), ref = softmaxRows(Xs, causal);
    const now = lab.attention(Xs, Xs, Xs, { causal }).output.toArray();
    order.forEach((o, p) => {
      const change = lab.maxAbsDiff([now[p]], [lab.attention(X, X, X, { causal }).output.toArray()[o]]);
      const refChange = Math.max(...ref[p].map((x, c) => Math.abs(x - ref0[o][c])));
      assert.ok(Math.abs(change - refChange) < 1e-5, `${tokens[o]}: engine ${change}, reference ${refChange}`);
      if (!causal) assert.equal(P.changed(change), false, `${tokens[o]} keeps its row without positions`);
    });
  }
  // causal, "dog the bit the man": the first two swap places; every later row still sees the
  // same tokens and keeps its value, the two that moved see other sets and change
  const swap = [1, 0, 2, 3, 4], Xw = swap.map((o) => X[o]);
  const now = lab.attention(Xw, Xw, Xw, { causal: true }).output.toArray(), was = lab.attention(X, X, X, { causal: true }).output.toArray();
  const changes = swap.map((o, p) => lab.maxAbsDiff([now[p]], [was[o]]));
  assert.deepEqual(changes.map(P.changed), [true, true, false, false, false]);
  const rope = lab.attention(Xs, Xs, Xs, { rope: {} }).output.toArray(), rope0 = lab.attention(X, X, X, { rope: {} }).output.toArray();
  assert.ok(order.some((o, p) => P.changed(lab.maxAbsDiff([rope[p]], [rope0[o]]))), 'with RoPE rows change');
});

test('sinusoidal: the engine\'s PE(i)·PE(j) depends on i - j only, as the reference', () => {
  const n = 32, d = 16;
  const table = lab.positions({ kind: 'sinusoidal', n, d });
  const scores = lab.attention(table, table, table, { scale: 1, stages: ['scores'] }).scores.toArray();
  const { series } = P.relativeSeries(scores, [10, 21], 10);
  const pe = (p) => Array.from({ length: d }, (_, k) => (k % 2 ? Math.cos : Math.sin)(p / 10000 ** ((k - (k % 2)) / d)));
  series[0].forEach((y, t) => {
    const k = t - 10;
    assert.ok(Math.abs(y - series[1][t]) < 2e-5, `k = ${k}`);
    assert.ok(Math.abs(y - dot(pe(10), pe(10 - k))) < 2e-5, `k = ${k} against the reference`);
  });
  assert.ok(Math.abs(scores[3][1] - scores[10][8]) < 2e-5);
});

test('rope: scores of lab.rope\'s vectors keep at (3, 1) and (10, 8), and differ with the layouts mixed', () => {
  const q = lab.randomNormal({ shape: [1, 8], seed: 3 }).toArray(), k = lab.randomNormal({ shape: [1, 8], seed: 4 }).toArray();
  const score = (m, n, lq) => {
    const a = lab.rope(q, { layout: lq, offset: m }), b = lab.rope(k, { layout: 'interleaved', offset: n });
    return lab.attention(a, b, [[1]], { scale: 1, stages: ['scores'] }).scores.data[0];
  };
  assert.ok(P.sameInFloat32(score(3, 1, 'interleaved'), score(10, 8, 'interleaved')));
  assert.ok(!P.sameInFloat32(score(3, 1, 'half'), score(10, 8, 'half')), 'the mix-up breaks it');
  // the same number as lab.attention's own rope (query at 3, key at 1: offset 1, three keys)
  const direct = lab.attention(q, [k[0], k[0], k[0]], [[1], [1], [1]], { scale: 1, rope: { offset: 1 } }).scores.data[0];
  assert.ok(P.sameInFloat32(direct, score(3, 1, 'interleaved')));
});
