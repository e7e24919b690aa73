'use strict';
// Positions through the API (lab.positions, the rope and alibi options of lab.attention and
// lab.createKVCache, the trainer's positions and lossByPosition) against a float64 reference
// written here from the papers: Vaswani et al.'s sinusoid, RoPE's rotation (Su et al.) in both
// pair layouts, ALiBi's slopes as Press et al.'s code computes them. Bad input: named Errors,
// the engine usable after, nothing leaked.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const { random, randomNested } = require('./reference.js');

// ---- the float64 reference ----

/** theta_i = base^(-2i/d). */
const theta = (i, d, base) => base ** (-2 * i / d);

/** x (array of d) turned to position p: interleaved pairs (2i, 2i+1) or half (i, i + d/2). */
function turn(x, p, base, layout) {
  const d = x.length, y = x.slice();
  for (let i = 0; i < d / 2; i++) {
    const a = layout === 'half' ? i : 2 * i, b = layout === 'half' ? i + d / 2 : 2 * i + 1;
    const c = Math.cos(p * theta(i, d, base)), s = Math.sin(p * theta(i, d, base));
    y[a] = x[a] * c - x[b] * s;
    y[b] = x[a] * s + x[b] * c;
  }
  return y;
}

/** ALiBi's slopes as the paper's code gets them (get_slopes). */
function paperSlopes(n) {
  const pow2 = (h) => {
    const start = 2 ** -(2 ** -(Math.log2(h) - 3));
    return Array.from({ length: h }, (_, i) => start * start ** i);
  };
  if (Number.isInteger(Math.log2(n))) return pow2(n);
  const closest = 2 ** Math.floor(Math.log2(n));
  return pow2(closest).concat(paperSlopes(2 * closest).filter((_, i) => i % 2 === 0).slice(0, n - closest));
}

/** One head: softmax(q k^T scale + bias(i, j)) v over the keys allow(i, j) lets through. */
function head(q, k, v, scale, allow, bias = () => 0) {
  const scaled = q.map((qi, i) => k.map((kj, j) => qi.reduce((s, x, c) => s + x * kj[c], 0) * scale + bias(i, j)));
  const weights = scaled.map((row, i) => {
    const best = Math.max(...row.filter((_, j) => allow(i, j)));
    const e = row.map((x, j) => (allow(i, j) ? Math.exp(x - best) : 0));
    const total = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / total);
  });
  const output = weights.map((w) => v[0].map((_, c) => w.reduce((s, wj, j) => s + wj * v[j][c], 0)));
  return { scaled, weights, output };
}

function maxDiff(a, b) {
  if (Array.isArray(a)) return Math.max(...a.map((x, i) => maxDiff(x, b[i])));
  return Math.abs(a - b);
}

const causal = (m, n) => (i, j) => j <= i + n - m;

let lab;
test.before(async () => {
  lab = await loadAttentionLab();
});

test('lab.positions: the sinusoidal table, RoPE\'s angles and ALiBi\'s slopes are the papers\'', () => {
  for (const [n, d, base] of [[64, 10, 10000], [20, 7, 100]]) {
    const t = lab.positions({ kind: 'sinusoidal', n, d, base });
    assert.deepEqual(t.shape, [n, d]);
    const want = Array.from({ length: n }, (_, p) => Array.from({ length: d }, (_, k) => {
      const angle = p / base ** ((k - (k % 2)) / d);
      return k % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
    }));
    assert.ok(maxDiff(t.toArray(), want) <= 1.2e-7, `sinusoidal n = ${n}, d = ${d}`);
  }
  assert.deepEqual(lab.positions({ kind: 'sinusoidal', n: 2, d: 2 }).toArray(), [[0, 1], [Math.fround(Math.sin(1)), Math.fround(Math.cos(1))]]);
  const angles = lab.positions({ kind: 'rope', n: 5, d: 8, base: 500, offset: 1000 });
  assert.deepEqual(angles.shape, [5, 4]);
  angles.toArray().forEach((row, p) => row.forEach((a, i) => {
    const want = (1000 + p) * theta(i, 8, 500);
    assert.ok(Math.abs(a - want) <= 1e-7 * want + 1e-12, `angle ${p}, ${i}`);
  }));
  assert.deepEqual(lab.positions({ kind: 'alibi', heads: 8 }).toArray(), [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]);
  for (const h of [1, 3, 6, 12, 24]) {
    assert.ok(maxDiff(lab.positions({ kind: 'alibi', heads: h }).toArray(), paperSlopes(h)) <= 1e-7 * 0.5, `${h} heads`);
  }
  assert.deepEqual(lab.positions({ kind: 'alibi', heads: 6 }).toArray(), [1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8]);
});

test('lab.attention with rope turns Q and K to their positions, in both layouts', () => {
  const rand = random(4);
  const m = 3, n = 6, d = 8;
  const Q = randomNested([m, d], rand), K = randomNested([n, d], rand), V = randomNested([n, 3], rand);
  for (const layout of ['interleaved', 'half']) {
    const offset = 17, base = 1000;
    const r = lab.attention(Q, K, V, { rope: { layout, base, offset }, causal: true });
    // the last query at the last key's position: query i at offset + n - m + i
    const q = Q.map((x, i) => turn(x, offset + n - m + i, base, layout)), k = K.map((x, j) => turn(x, offset + j, base, layout));
    const want = head(q, k, V, 1 / Math.sqrt(d), causal(m, n));
    assert.ok(maxDiff(r.scaled.toArray().map((row, i) => row.filter((_, j) => j <= i + n - m)),
      want.scaled.map((row, i) => row.filter((_, j) => j <= i + n - m))) <= 2e-6, layout);
    assert.ok(maxDiff(r.weights.toArray(), want.weights) <= 1e-6, layout);
    assert.ok(maxDiff(r.output.toArray(), want.output) <= 2e-6, layout);
  }
  // the two layouts give other numbers for the same Q and K: the classic mix-up
  const a = lab.attention(Q, K, V, { rope: { layout: 'half' } }).scores.toArray();
  const b = lab.attention(Q, K, V, { rope: { layout: 'interleaved' } }).scores.toArray();
  assert.ok(maxDiff(a, b) > 0.05);
});

test('RoPE\'s score depends on i - j only: the same when both positions shift', () => {
  const rand = random(9);
  const d = 32, Q = randomNested([1, d], rand), K = randomNested([5, d], rand), V = randomNested([5, 2], rand);
  const at = (offset) => lab.attention(Q, K, V, { rope: { offset } }).scores.toArray()[0];
  const base = at(0);
  for (const offset of [1, 100, 65536, 2 ** 24 - 5]) {
    assert.ok(maxDiff(at(offset), base) <= 2e-5, `offset ${offset}: ${at(offset)} vs ${base}`);
  }
});

test('lab.rope turns each row to its position, in both layouts; a query and key turned in different layouts lose the relative score', () => {
  const rand = random(12);
  const X = randomNested([2, 4, 6], rand);
  for (const layout of ['interleaved', 'half']) {
    for (const offset of [0, 5, 70000]) {
      const t = lab.rope(X, { layout, base: 300, offset });
      assert.deepEqual(t.shape, [2, 4, 6]);
      const want = X.map((m) => m.map((x, p) => turn(x, offset + p, 300, layout)));
      assert.ok(maxDiff(t.toArray(), want) <= 2e-6, `${layout}, offset ${offset}`);
    }
  }
  assert.ok(maxDiff(lab.rope(X, {}).toArray(), X.map((m) => m.map((x, p) => turn(x, p, 10000, 'interleaved')))) <= 2e-6, 'defaults');
  // the scores of the turned rows are attention's with the same rope
  const Q = randomNested([3, 8], rand), K = randomNested([3, 8], rand), V = randomNested([3, 2], rand);
  const rope = { layout: 'half', offset: 4 };
  const direct = lab.attention(Q, K, V, { rope, scale: 1 }).scores.toArray();
  const turned = lab.attention(lab.rope(Q, rope), lab.rope(K, rope), V, { scale: 1 }).scores.toArray();
  assert.ok(maxDiff(direct, turned) <= 1e-5);
  // (3, 1) against (10, 8): the same layout keeps the score, mixed layouts do not (float64 dot)
  const q = [Q[0]], k = [K[0]];
  const dot = (m, n, lq, lk) => {
    const a = lab.rope(q, { layout: lq, offset: m }).toArray()[0], b = lab.rope(k, { layout: lk, offset: n }).toArray()[0];
    return a.reduce((s, x, c) => s + x * b[c], 0);
  };
  const ref = (m, n, lq, lk) => turn(q[0], m, 10000, lq).reduce((s, x, c) => s + x * turn(k[0], n, 10000, lk)[c], 0);
  for (const [lq, lk] of [['interleaved', 'interleaved'], ['half', 'half'], ['half', 'interleaved']]) {
    assert.ok(Math.abs(dot(3, 1, lq, lk) - ref(3, 1, lq, lk)) <= 1e-5, `${lq}/${lk} at (3, 1)`);
    assert.ok(Math.abs(dot(10, 8, lq, lk) - ref(10, 8, lq, lk)) <= 1e-5, `${lq}/${lk} at (10, 8)`);
  }
  assert.ok(Math.abs(ref(3, 1, 'half', 'half') - ref(10, 8, 'half', 'half')) <= 1e-9, 'the reference is relative');
  assert.ok(Math.abs(ref(3, 1, 'half', 'interleaved') - ref(10, 8, 'half', 'interleaved')) > 1e-2, 'mixed layouts are not');
});

test('lab.attention with alibi: each head (axis -3) less its slope times the distance', () => {
  const rand = random(5);
  const H = 4, n = 5, d = 4;
  const Q = randomNested([2, H, n, d], rand), K = randomNested([2, H, n, d], rand), V = randomNested([2, H, n, 2], rand);
  const r = lab.attention(Q, K, V, { causal: true, alibi: true });
  const slopes = [1 / 4, 1 / 16, 1 / 64, 1 / 256];
  const weights = r.weights.toArray(), output = r.output.toArray();
  for (let b = 0; b < 2; b++) {
    for (let h = 0; h < H; h++) {
      const want = head(Q[b][h], K[b][h], V[b][h], 1 / 2, causal(n, n), (i, j) => -slopes[h] * Math.abs(i - j));
      assert.ok(maxDiff(weights[b][h], want.weights) <= 1e-6);
      assert.ok(maxDiff(output[b][h], want.output) <= 2e-6);
    }
  }
});

test('the KV cache decodes with rope and alibi as lab.attention computes each causal row', () => {
  const rand = random(6);
  const H = 2, n = 5, d = 4;
  const Q = randomNested([H, n, d], rand), K = randomNested([H, n, d], rand), V = randomNested([H, n, d], rand);
  const rope = { layout: 'half', base: 10000, offset: 300 };
  const full = lab.attention(Q, K, V, { causal: true, rope, alibi: true });
  const cache = lab.createKVCache({ heads: H, dHead: d, maxLength: n, rope, alibi: true });
  try {
    const weights = full.weights.toArray(), output = full.output.toArray();
    for (let t = 0; t < n; t++) {
      cache.append(K.map((x) => x[t]), V.map((x) => x[t]));
      const s = cache.attend(Q.map((x) => x[t]));
      for (let h = 0; h < H; h++) {
        assert.ok(maxDiff(s.weights.toArray()[h], weights[h][t].slice(0, t + 1)) <= 1e-6);
        assert.ok(maxDiff(s.output.toArray()[h], output[h][t]) <= 2e-6);
      }
    }
  } finally {
    cache.dispose();
  }
});

test('RoPE without a base uses the papers\' 10000, in lab.attention and in the KV cache alike', () => {
  const rand = random(11);
  const H = 2, n = 4, d = 6;
  const Q = randomNested([H, n, d], rand), K = randomNested([H, n, d], rand), V = randomNested([H, n, d], rand);
  const given = lab.attention(Q, K, V, { causal: true, rope: { base: 10000 } }).weights.toArray();
  assert.deepEqual(lab.attention(Q, K, V, { causal: true, rope: {} }).weights.toArray(), given);
  assert.ok(maxDiff(lab.attention(Q, K, V, { causal: true, rope: { base: 100 } }).weights.toArray(), given) > 1e-3, 'the base matters');
  const cache = lab.createKVCache({ heads: H, dHead: d, maxLength: n, rope: {} });
  try {
    for (let t = 0; t < n; t++) {
      cache.append(K.map((x) => x[t]), V.map((x) => x[t]));
      const w = cache.attend(Q.map((x) => x[t])).weights.toArray();
      for (let h = 0; h < H; h++) assert.ok(maxDiff(w[h], given[h][t].slice(0, t + 1)) <= 1e-6);
    }
  } finally {
    cache.dispose();
  }
});

test('bad position input: named Errors, the engine usable after, nothing leaked', () => {
  const q = [[1, 0, 0, 1], [0, 1, 1, 0]], odd = [[1, 2, 3]];
  const cases = [
    [() => lab.attention(odd, odd, [[1]], { rope: {} }), 'attention: rope needs an even d_k (it turns pairs of dimensions); Q has d_k = 3'],
    [() => lab.attention(q, q, q, { rope: { base: 0 } }), 'attention: rope.base = 0; expected a finite number > 0 (the papers use 10000, Llama 3 500000)'],
    [() => lab.attention(q, q, q, { rope: { base: NaN } }), 'attention: rope.base = NaN; expected a finite number > 0 (the papers use 10000, Llama 3 500000)'],
    [() => lab.attention(q, q, q, { rope: { layout: 'neox' } }), 'attention: rope.layout = "neox"; expected \'interleaved\' (pairs 2i, 2i+1) or \'half\' (pairs i, i + d/2)'],
    [() => lab.attention(q, q, q, { rope: { offset: 2 ** 24 } }), 'attention: rope.offset = 16777216; expected a whole number from 0 to 2^24 - 1 (the last position)'],
    [() => lab.attention(q, q, q, { rope: { offset: 2 ** 24 - 1 } }),
      'attention: positions 16777215 to 16777216 pass the last position, 2^24 - 1 = 16777215; expected fewer tokens or a smaller offset'],
    [() => lab.attention(q, q, q, { rope: { spin: 1 } }), "attention: rope: unknown option 'spin'; expected one of layout, base, offset"],
    [() => lab.attention(q, q, q, { alibi: 1 }), 'attention: alibi is a number; expected true or false'],
    [() => lab.attention({ shape: [2000, 1, 2], data: new Float32Array(4000) }, { shape: [2000, 1, 2], data: new Float32Array(4000) },
      { shape: [2000, 1, 2], data: new Float32Array(4000) }, { alibi: true }),
    "attention: alibi: the heads (axis -3 of Q) = 2000; ALiBi's slopes are defined here for 1 to 1024 heads; expected a head count in that range"],
    [() => lab.createKVCache({ heads: 2, dHead: 3, maxLength: 4, rope: {} }), 'createKVCache: rope needs an even dHead (it turns pairs of dimensions); got dHead = 3'],
    [() => lab.createKVCache({ heads: 2, dHead: 2, maxLength: 4, rope: { base: -1 } }), 'createKVCache: rope.base = -1; expected a finite number > 0 (the papers use 10000, Llama 3 500000)'],
    [() => lab.createKVCache({ heads: 2, dHead: 2, maxLength: 10, rope: { offset: 2 ** 24 - 5 } }),
      'createKVCache: positions 16777211 to 16777220 pass the last position, 2^24 - 1 = 16777215; expected fewer tokens or a smaller offset'],
    [() => lab.rope([1, 2], {}), 'rope: X has 1 axis; expected [..., n, d]: rows of vectors, row p turned to position offset + p'],
    [() => lab.rope(odd, {}), 'rope: X has d = 3; expected an even number of dimensions (RoPE turns them in pairs)'],
    [() => lab.rope(q, { base: NaN }), 'rope: base = NaN; expected a finite number > 0 (the papers use 10000, Llama 3 500000)'],
    [() => lab.rope(q, { offset: 2 ** 24 - 1 }),
      'rope: positions 16777215 to 16777216 pass the last position, 2^24 - 1 = 16777215; expected fewer tokens or a smaller offset'],
    [() => lab.rope(q, { layout: 'neox' }), 'rope: layout = "neox"; expected \'interleaved\' (pairs 2i, 2i+1) or \'half\' (pairs i, i + d/2)'],
    [() => lab.positions({ kind: 'rope', n: 4, d: 5 }), 'positions: d = 5 is odd; expected an even number of dimensions (RoPE turns them in pairs)'],
    [() => lab.positions({ kind: 'sinusoidal', n: 4, d: 4, base: -10 }), 'positions: base = -10; expected a finite number > 0 (the papers use 10000, Llama 3 500000)'],
    [() => lab.positions({ kind: 'sinusoidal', n: 2 ** 24 + 1, d: 1 }), 'positions: n = 16777217; expected a whole number from 1 to 2^24 (positions)'],
    [() => lab.positions({ kind: 'sinusoidal', n: 4 }), "positions: kind 'sinusoidal' needs d; expected { kind: 'sinusoidal', n, d, base }"],
    [() => lab.positions({ kind: 'sinusoidal', n: 4, d: 2, offset: 3 }), "positions: kind 'sinusoidal' does not take offset; expected { kind: 'sinusoidal', n, d, base }"],
    [() => lab.positions({ kind: 'alibi', heads: 0 }), "positions: heads = 0; ALiBi's slopes are defined here for 1 to 1024 heads; expected a head count in that range"],
    [() => lab.positions({ kind: 'alibi', heads: 8, n: 4 }), "positions: kind 'alibi' does not take n; expected { kind: 'alibi', heads } (one slope per head)"],
    [() => lab.positions({ kind: 'xpos', n: 4, d: 4 }), 'positions: kind = "xpos"; expected \'sinusoidal\', \'rope\' or \'alibi\''],
    [() => lab.positions({ kind: 'sinusoidal', n: 20000, d: 20000 }), 'positions: the table [20000, 20000] would take 400000000 floats, more than the limit of 268435456'],
  ];
  const works = () => assert.equal(lab.attention(q, q, q, { rope: {}, alibi: true }).weights.shape[0], 2);
  works();
  for (const [call, message] of cases) {
    assert.throws(call, { message });
    const before = lab.memory().heapInUse;
    assert.throws(call);
    assert.equal(lab.memory().heapInUse, before, `leaked: ${message}`);
    works();
  }
});

test('the trainer\'s positions: each scheme trains, exports and loads; lossByPosition reads past seqLen', () => {
  const small = { vocab: 8, seqLen: 8, dModel: 8, batch: 4, seed: 2 };
  for (const positions of ['learned', 'sinusoidal', 'rope', 'alibi', 'none']) {
    const t = lab.createTrainer({ ...small, positions });
    try {
      const r = t.step(3);
      assert.ok(Number.isFinite(r.loss), positions);
      const file = t.exportWeights();
      assert.equal(file.options.positions, positions);
      assert.equal(file.parameters.some((p) => p.name === 'positionEmbedding'), positions === 'learned');
      const again = lab.loadTrainer(file);
      try {
        assert.deepEqual(again.evaluate(), t.evaluate());
      } finally {
        again.dispose();
      }
      if (positions === 'learned') {
        assert.throws(() => t.lossByPosition({ length: 16 }), {
          message: "Trainer.lossByPosition: length = 16 is past the learned position table, which has vectors for 8 positions (seqLen): a learned table knows nothing of position 8 and beyond; expected a length up to 8, or a model trained with positions 'sinusoidal', 'rope', 'alibi' or 'none'",
        });
      }
      const length = positions === 'learned' ? 8 : 32;
      const l = t.lossByPosition({ length, examples: 6 });
      assert.equal(l.length, length);
      assert.equal(l.loss.length, length);
      // the induction task scores the repeats only: none before the first block has passed
      assert.equal(l.loss[0], null);
      assert.equal(l.scored[0], 0);
      let total = 0, count = 0;
      l.loss.forEach((x, i) => {
        if (x === null) return;
        assert.ok(Number.isFinite(x) && x > 0);
        total += x * l.scored[i];
        count += l.scored[i];
      });
      assert.ok(count > 0 && Math.abs(total / count - l.mean) <= 1e-9 * l.mean);
      assert.deepEqual(t.lossByPosition({ length, examples: 6 }), l);  // fixed sequences: the same each call
    } finally {
      t.dispose();
    }
  }
  const t = lab.createTrainer({ ...small, positions: 'rope' });
  try {
    for (const [spec, message] of [
      [{ length: 1 }, 'Trainer.lossByPosition: length = 1; expected a whole number from 2 to 1024'],
      [{ length: 2048 }, 'Trainer.lossByPosition: length = 2048; expected a whole number from 2 to 1024'],
      [{ length: 16, examples: 0 }, 'Trainer.lossByPosition: examples = 0; expected a whole number from 1 to 1024'],
      [{}, 'Trainer.lossByPosition: length is undefined; expected a number'],
      [{ length: '16' }, 'Trainer.lossByPosition: length is a string; expected a number'],
    ]) assert.throws(() => t.lossByPosition(spec), { message });
    assert.equal(t.lossByPosition({ length: 16, examples: 2 }).length, 16);
  } finally {
    t.dispose();
  }
  assert.throws(() => lab.createTrainer({ ...small, positions: 'rotary' }),
    { message: 'createTrainer: positions = "rotary"; expected \'learned\', \'sinusoidal\', \'rope\', \'alibi\', \'none\'' });
  assert.throws(() => lab.createTrainer({ ...small, dModel: 6, heads: 2, positions: 'rope' }),
    { message: "createTrainer: positions = 'rope' needs an even d_head (RoPE turns pairs of dimensions); dModel = 6 / heads = 2 gives 3" });
  assert.equal(lab.TRAINER_DEFAULTS.positions, 'learned');
});
