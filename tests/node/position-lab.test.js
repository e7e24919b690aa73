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
  assert.equal(P.judgeAlibi('last', [0.5, 0.25], 6).close, true);
  assert.equal(P.judgeAlibi('first', [0.5, 0.25], 6).close, false);
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

// ---- review V8: the layout mistake, copies of a word, the ALiBi slopes, the table's numbers ----

/** RoPE in float64, written here: pairs (2i, 2i+1) or (i, i + d/2), turned by pos * base^(-2i/d). */
function ropeRef(x, pos, layout, base = 10000) {
  const d = x.length, out = x.slice();
  for (let i = 0; i < d / 2; i++) {
    const [a, b] = layout === 'half' ? [i, i + d / 2] : [2 * i, 2 * i + 1];
    const t = pos * base ** (-2 * i / d), c = Math.cos(t), s = Math.sin(t);
    out[a] = x[a] * c - x[b] * s;
    out[b] = x[a] * s + x[b] * c;
  }
  return out;
}

test('rope modes: the layout mistake turns q and k both the other way (the score changes, still relative); the mix turns only q the other way (not relative)', () => {
  const q = Array.from(P.LISTING_Q), k = Array.from(P.LISTING_K);
  assert.equal(dot(q, k), -1.5, 'the listing\'s plain dot product');
  assert.deepEqual(P.ropeLayouts('right', 'interleaved'), { q: 'interleaved', k: 'interleaved' });
  assert.deepEqual(P.ropeLayouts('wrong', 'interleaved'), { q: 'half', k: 'half' });
  assert.deepEqual(P.ropeLayouts('mixed', 'interleaved'), { q: 'half', k: 'interleaved' });
  assert.deepEqual(P.ropeLayouts('wrong', 'half'), { q: 'interleaved', k: 'interleaved' });
  // the engine's score, as the element computes it, against the float64 reference
  const score = (m, n, mode) => {
    const l = P.ropeLayouts(mode, 'interleaved');
    const a = lab.rope([q], { layout: l.q, offset: m }), b = lab.rope([k], { layout: l.k, offset: n });
    return lab.attention(a, b, [[1]], { scale: 1, stages: ['scores'] }).scores.data[0];
  };
  const ref = (m, n, mode) => {
    const l = P.ropeLayouts(mode, 'interleaved');
    return dot(ropeRef(q, m, l.q), ropeRef(k, n, l.k));
  };
  for (const mode of P.ROPE_MODES) {
    for (const [m, n] of [[3, 1], [10, 8], [1003, 1001]]) assert.ok(Math.abs(score(m, n, mode) - ref(m, n, mode)) < 2e-5, `${mode} (${m}, ${n}): ${score(m, n, mode)} vs ${ref(m, n, mode)}`);
  }
  assert.ok(Math.abs(ref(3, 1, 'right') - -2.46396) < 1e-5, `${ref(3, 1, 'right')}`);
  assert.ok(Math.abs(ref(3, 1, 'wrong') - -1.894179) < 1e-6, `${ref(3, 1, 'wrong')}`);
  // the mistake: another score, but the same at (3, 1), (10, 8) and (1003, 1001)
  assert.ok(!P.sameInFloat32(score(3, 1, 'wrong'), score(3, 1, 'right')));
  assert.ok(P.sameInFloat32(score(3, 1, 'wrong'), score(10, 8, 'wrong')));
  assert.ok(Math.abs(score(3, 1, 'wrong') - score(1003, 1001, 'wrong')) < 1e-4);
  // the mix: not relative
  assert.ok(!P.sameInFloat32(score(3, 1, 'mixed'), score(10, 8, 'mixed')));
  const a = score(3, 1, 'wrong'), b = score(10, 8, 'wrong'), right = score(3, 1, 'right');
  const wrong = P.ropeReport({ m: 3, n: 1, shift: 7, mode: 'wrong', a, b, same: true, right });
  assert.equal(wrong, 'score at (3, 1): \u22121.89418; at (10, 8): \u22121.89418. Not the \u22122.46396 the model was trained for, yet the same at both: the score still depends on m \u2212 n only.');
  const mixed = P.ropeReport({ m: 3, n: 1, shift: 7, mode: 'mixed', a: score(3, 1, 'mixed'), b: score(10, 8, 'mixed'), same: false, right });
  assert.match(mixed, /Different: q and k turn in different pairs, so the score depends on where they are, not just how far apart\.$/);
  assert.deepEqual(P.ropeChoices('interleaved').map(([v]) => v), P.ROPE_MODES);
  assert.deepEqual(P.ropeChoices('interleaved').map(([, label]) => label), ['right: q and k both interleaved', 'the mistake: loaded as half-split, q and k both half-split', 'another bug: q half-split, k interleaved']);
});

test('copies of a word: the k-th copy now is compared with the k-th copy then, so swapping the two "the"s changes no row', () => {
  const tokens = ['the', 'dog', 'bit', 'the', 'man'];
  assert.deepEqual(P.matchCopies([3, 1, 2, 0, 4], tokens), [0, 1, 2, 3, 4]);
  assert.deepEqual(P.matchCopies([4, 1, 2, 3, 0], tokens), [4, 1, 2, 0, 3], 'man dog bit the the: the first "the" now is the first then');
  assert.deepEqual(P.matchCopies([1, 0, 2, 3, 4], tokens), [1, 0, 2, 3, 4], 'no copies crossed: the order itself');
  assert.equal(P.sameSentence([3, 1, 2, 0, 4], tokens), true);
  assert.equal(P.sameSentence([1, 0, 2, 3, 4], tokens), false);
  const X = tokens.map((w) => Array.from(lab.randomNormal({ shape: [4], seed: seedFrom(w) }).data));
  const order = [3, 1, 2, 0, 4], Xs = order.map((o) => X[o]), ref = P.matchCopies(order, tokens);
  for (const opts of [{}, { causal: true }, { rope: {} }, { rope: {}, causal: true }]) {
    const was = lab.attention(X, X, X, opts).output.toArray(), now = lab.attention(Xs, Xs, Xs, opts).output.toArray();
    const changes = order.map((_, p) => lab.maxAbsDiff([now[p]], [was[ref[p]]]));
    assert.deepEqual(changes.map(P.changed), [false, false, false, false, false], JSON.stringify(opts));
  }
  const rows = tokens.map((token) => ({ token, change: 0, seenBefore: [], seenNow: [] }));
  const report = P.shuffleReport(rows, { rope: true, causal: true, identity: false, same: true });
  assert.match(report, /^The same sentence: two copies of one word swapped places\./);
  assert.doesNotMatch(report, /changed|new outputs/);
});

test('ALiBi slopes as fractions where they are one over a power of two; the wrong answer\'s distance is the lab\'s', () => {
  const slopes = Array.from(lab.positions({ kind: 'alibi', heads: 8 }).data);
  assert.deepEqual(slopes.map(P.slopeText), ['1/2', '1/4', '1/8', '1/16', '1/32', '1/64', '1/128', '1/256']);
  assert.deepEqual(Array.from(lab.positions({ kind: 'alibi', heads: 2 }).data).map(P.slopeText), ['1/16', '1/256']);
  // a slope that is no power of two is a decimal
  assert.equal(P.slopeText(2 ** (-8 / 3)), String(Number((2 ** (-8 / 3)).toFixed(6))));
  assert.equal(P.slopeText(0.75), '0.75');
  const m = P.judgeAlibi('first', slopes, 6).message;
  assert.match(m, /largest slope \(1\/2 with 8 heads\), so a token 5 back loses 2\.5 from its score/);
  assert.equal(P.judgeAlibi('last', slopes, 6).close, true);
});

test('the shuffle table writes every number of a row with two decimals', () => {
  assert.equal(P.outputText([-0.94, 0.0038, 0.08, 0.04]), '[\u22120.94, 0.00, 0.08, 0.04]');
  assert.equal(P.outputText([-0.001, 1]), '[0.00, 1.00]');
});

test('the rotary lab turns the q and k of lesson 8\'s NumPy listing', () => {
  const html = require('fs').readFileSync(require('path').join(__dirname, '..', '..', 'web', 'site', 'lesson-8.html'), 'utf8');
  const code = html.match(/data-listing="positions-numpy"[^>]*><code>([\s\S]*?)<\/code>/)[1];
  const vector = (name) => JSON.parse(code.match(new RegExp(`^${name} = np\\.array\\((\\[[^\\]]*\\])\\)$`, 'm'))[1]);
  assert.deepEqual(Array.from(P.LISTING_Q), vector('q'));
  assert.deepEqual(Array.from(P.LISTING_K), vector('k'));
});
