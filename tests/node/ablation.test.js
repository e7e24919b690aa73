'use strict';
// Trainer.ablate, Model.ablate and composition() (web/src/api/ablation.js over
// cpp/src/ablation.cpp and circuits.cpp) against a float64 reference written here: the
// model's forward pass in plain loops, with the knocked-out heads' rows of Wo set to 0 (zero
// ablation) or their outputs replaced by the reference's own means (mean ablation), and the
// composition scores from the full d x d matrices. Bad input: named Errors, the objects usable.

const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const { SHIPPED_FILE } = require('../../scripts/train-model.js');

const shipped = require(SHIPPED_FILE);

// ---- the float64 reference ----

function half(h) {
  const sign = h >> 15 ? -1 : 1, e = (h >> 10) & 31, f = h & 1023;
  if (e === 0) return sign * f * 2 ** -24;
  return sign * (1 + f / 1024) * 2 ** (e - 15);
}

/** A weights file's parameters as Float64Arrays by name. */
function weightsOf(file) {
  const out = {};
  for (const p of file.parameters) {
    const bytes = Buffer.from(p.data, 'base64');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const n = p.dtype === 'float16' ? bytes.length / 2 : bytes.length / 4;
    const w = new Float64Array(n);
    for (let i = 0; i < n; i++) w[i] = p.dtype === 'float16' ? half(view.getUint16(2 * i, true)) : view.getFloat32(4 * i, true);
    out[p.name] = w;
  }
  return out;
}

function linear(x, w, b, rows, inn, out) {
  const y = new Float64Array(rows * out);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < out; j++) {
      let s = b ? b[j] : 0;
      for (let k = 0; k < inn; k++) s += x[r * inn + k] * w[k * out + j];
      y[r * out + j] = s;
    }
  }
  return y;
}

function layerNorm(x, gain, bias, rows, d) {
  const y = new Float64Array(x.length);
  for (let r = 0; r < rows; r++) {
    let mean = 0, v = 0;
    for (let c = 0; c < d; c++) mean += x[r * d + c] / d;
    for (let c = 0; c < d; c++) v += (x[r * d + c] - mean) ** 2 / d;
    for (let c = 0; c < d; c++) y[r * d + c] = ((x[r * d + c] - mean) / Math.sqrt(v + 1e-5)) * gain[c] + bias[c];
  }
  return y;
}

const gelu = (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));

/**
 * Logits [n, vocab] of one sequence. `replace`: Map of 'layer,head' -> d_head numbers every
 * output row of that head becomes; `sums`: Map where each head's output rows are summed.
 */
function forward(o, w, ids, replace = new Map(), sums = null) {
  const n = ids.length, d = o.dModel, H = o.heads, dh = d / H;
  let x = new Float64Array(n * d);
  for (let t = 0; t < n; t++) for (let c = 0; c < d; c++) x[t * d + c] = w.tokenEmbedding[ids[t] * d + c] + w.positionEmbedding[t * d + c];
  for (let l = 0; l < o.layers; l++) {
    const p = (name) => w[`layers.${l}.${name}`];
    const a = o.layerNorm ? layerNorm(x, p('ln1.gain'), p('ln1.bias'), n, d) : x;
    const qkv = linear(a, p('qkv'), null, n, d, 3 * d);
    const merged = new Float64Array(n * d);
    for (let h = 0; h < H; h++) {
      const key = `${l},${h}`, sum = sums && (sums.get(key) || sums.set(key, new Float64Array(dh)).get(key));
      for (let i = 0; i < n; i++) {
        const s = [];
        for (let j = 0; j <= i; j++) {
          let dot = 0;
          for (let c = 0; c < dh; c++) dot += qkv[i * 3 * d + h * dh + c] * qkv[j * 3 * d + d + h * dh + c];
          s.push(dot / Math.sqrt(dh));
        }
        const top = Math.max(...s), e = s.map((z) => Math.exp(z - top)), total = e.reduce((u, v) => u + v, 0);
        for (let c = 0; c < dh; c++) {
          let out = 0;
          for (let j = 0; j <= i; j++) out += (e[j] / total) * qkv[j * 3 * d + 2 * d + h * dh + c];
          if (sum) sum[c] += out;
          merged[i * d + h * dh + c] = replace.has(key) ? replace.get(key)[c] : out;
        }
      }
    }
    const y = linear(merged, p('out'), null, n, d, d);
    x = x.map((v, i) => v + y[i]);
    if (o.mlp) {
      const m = o.layerNorm ? layerNorm(x, p('ln2.gain'), p('ln2.bias'), n, d) : x;
      const hidden = linear(m, p('mlp.in'), p('mlp.inBias'), n, d, o.mlp).map(o.activation === 'relu' ? (v) => Math.max(v, 0) : gelu);
      const z = linear(hidden, p('mlp.out'), p('mlp.outBias'), n, o.mlp, d);
      x = x.map((v, i) => v + z[i]);
    }
  }
  const f = o.layerNorm ? layerNorm(x, w['final.gain'], w['final.bias'], n, d) : x;
  return linear(f, w.unembedding, w.unembeddingBias, n, d, o.vocab);
}

/** The weights with the heads' d_head rows of Wo set to 0: the model rebuilt without them. */
function without(o, w, heads) {
  const copy = { ...w }, d = o.dModel, dh = d / o.heads;
  for (const [l, h] of heads) {
    const wo = (copy[`layers.${l}.out`] = Float64Array.from(copy[`layers.${l}.out`]));
    wo.fill(0, h * dh * d, (h + 1) * dh * d);
  }
  return copy;
}

function softmaxRow(z, r, vocab) {
  const row = Array.from(z.subarray(r * vocab, (r + 1) * vocab)), top = Math.max(...row);
  const e = row.map((v) => Math.exp(v - top)), total = e.reduce((u, v) => u + v, 0);
  return e.map((v) => v / total);
}

/** Mean cross-entropy of the logits at the rows where `scored`, against the next token. */
function meanLoss(z, ids, vocab, scored) {
  let s = 0, count = 0;
  for (let i = 0; i + 1 < ids.length; i++) {
    if (!scored(i)) continue;
    s -= Math.log(softmaxRow(z, i, vocab)[ids[i + 1]]);
    count++;
  }
  return count ? s / count : null;
}

const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

// ---- the tests ----

let lab, model;
test.before(async () => {
  lab = await loadAttentionLab();
  model = lab.loadModel();
});

test('Trainer.ablate in zero mode is the model rebuilt without the heads\' rows of Wo', () => {
  const tr = lab.createTrainer({ vocab: 10, seqLen: 10, layers: 2, heads: 2, dModel: 16, mlp: 16, layerNorm: true, batch: 8, seed: 4 });
  tr.step(60);
  const file = tr.exportWeights(), o = file.options, w = weightsOf(file);
  const heads = [[1, 1], [0, 0]];
  const r = tr.ablate({ heads, mode: 'zero' });
  assert.deepEqual(r.tokens, tr.example);
  assert.deepEqual(r.heads, heads);
  assert.equal(r.mode, 'zero');
  assert.deepEqual(r.probabilities.shape, [10, 10]);
  const got = r.probabilities.toArray(), base = r.baseline.probabilities.toArray();
  const ref = forward(o, without(o, w, heads), tr.example), clean = forward(o, w, tr.example);
  let worst = 0;
  for (let i = 0; i < 10; i++) {
    const p = softmaxRow(ref, i, 10), q = softmaxRow(clean, i, 10);
    for (let j = 0; j < 10; j++) worst = Math.max(worst, Math.abs(got[i][j] - p[j]), Math.abs(base[i][j] - q[j]));
  }
  assert.ok(worst < 1e-5, `largest difference ${worst}`);
  // the evaluation set's losses: the baseline's scored loss is evaluate()'s
  close(r.baseline.scoredLoss, tr.evaluate().loss, 1e-9, 'baseline');
  assert.equal(r.positions, 128 * 10);
  assert.ok(r.scored > 0 && r.scored < r.positions);
  assert.notEqual(r.loss, r.baseline.loss);
  // no head: the model itself, in either mode, with the heads' own scores
  const scores = tr.headScores();
  for (const mode of ['zero', 'mean']) {
    const none = tr.ablate({ heads: [], mode });
    assert.equal(none.loss, none.baseline.loss);
    assert.equal(none.scoredLoss, r.baseline.scoredLoss);
    assert.deepEqual(Array.from(none.induction), scores.map((x) => x.induction));
    assert.deepEqual(Array.from(none.previousToken), scores.map((x) => x.previousToken));
  }
  // a layer-0 head knocked out: layer 0's scores stay, layer 1's move
  assert.deepEqual(Array.from(r.previousToken.slice(0, 2)), scores.slice(0, 2).map((x) => x.previousToken));
  assert.ok([2, 3].some((k) => r.induction[k] !== scores[k].induction));
  // mean ablation is another model: not the zero one, and defined for every head at once
  const mean = tr.ablate({ heads, mode: 'mean', tokens: [1, 2, 3] });
  assert.notEqual(mean.loss, r.loss);
  assert.deepEqual(mean.probabilities.shape, [3, 10]);
  const all = tr.ablate({ heads: [[0, 0], [0, 1], [1, 0], [1, 1]] });
  assert.equal(all.mode, 'zero');
  assert.ok(Number.isFinite(all.loss) && Number.isFinite(all.scoredLoss));
  tr.dispose();
});

test('Model.ablate on the shipped model: the next token and the losses match the float64 reference', () => {
  const o = shipped.weights.options, w = weightsOf(shipped.weights);
  const text = 'the cat sat on the mat. the cat sat on the';
  const heads = [[1, 2], [0, 3]];
  const r = model.ablate(text, { heads, mode: 'zero', top: 4 });
  const ids = model.tokenize(text).map((t) => t.id);
  assert.deepEqual(r.tokens, model.tokenize(text).map((t) => t.text));
  const ref = forward(o, without(o, w, heads), ids), clean = forward(o, w, ids);
  const n = ids.length, V = o.vocab;
  const p = softmaxRow(ref, n - 1, V), q = softmaxRow(clean, n - 1, V);
  let worst = 0;
  for (let j = 0; j < V; j++) worst = Math.max(worst, Math.abs(r.probabilities[j] - p[j]), Math.abs(r.baseline.probabilities[j] - q[j]));
  assert.ok(worst < 1e-5, `largest difference ${worst}`);
  // the repeated positions: the pair (ids[i], ids[i + 1]) seen before
  const repeated = (i) => ids.slice(0, i).some((x, j) => x === ids[i] && ids[j + 1] === ids[i + 1]);
  assert.equal(r.positions, n - 1);
  assert.equal(r.repeated, ids.slice(0, n - 1).filter((_, i) => repeated(i)).length);
  assert.ok(r.repeated >= 5);
  close(r.loss, meanLoss(ref, ids, V, () => true), 1e-5, 'loss');
  close(r.repeatedLoss, meanLoss(ref, ids, V, repeated), 1e-5, 'repeated loss');
  close(r.baseline.repeatedLoss, meanLoss(clean, ids, V, repeated), 1e-5, 'baseline repeated loss');
  // the top guesses: the largest probabilities, most probable first, with their pieces
  assert.equal(r.next.length, 4);
  const order = Array.from(r.probabilities.keys()).sort((a, b) => r.probabilities[b] - r.probabilities[a]);
  assert.deepEqual(r.next.map((x) => x.id), order.slice(0, 4));
  assert.equal(r.next[0].token, model.tokenizer.pieces[order[0]]);

  // mean mode over two other texts: the reference's own means of each head's output rows
  const over = ['a dog ran to the park.', 'the sun is hot'];
  const m = model.ablate(text, { heads, mode: 'mean', meanOver: over });
  const sums = new Map();
  let rows = 0;
  for (const t of over) {
    const tids = model.tokenize(t).map((x) => x.id);
    forward(o, w, tids, new Map(), sums);
    rows += tids.length;
  }
  const means = new Map(heads.map(([l, h]) => [`${l},${h}`, sums.get(`${l},${h}`).map((v) => v / rows)]));
  const meanRef = forward(o, w, ids, means);
  close(m.loss, meanLoss(meanRef, ids, V, () => true), 1e-5, 'mean loss');
  const pm = softmaxRow(meanRef, n - 1, V);
  assert.ok(pm.every((v, j) => Math.abs(v - m.probabilities[j]) < 1e-5));
  // mean mode with no meanOver averages over the text itself
  const self = model.ablate(text, { heads, mode: 'mean' });
  const selfSums = new Map();
  forward(o, w, ids, new Map(), selfSums);
  const selfRef = forward(o, w, ids, new Map(heads.map(([l, h]) => [`${l},${h}`, selfSums.get(`${l},${h}`).map((v) => v / n)])));
  close(self.loss, meanLoss(selfRef, ids, V, () => true), 1e-5, 'mean over the text');
});

test('composition() matches the definitions multiplied out in float64', () => {
  const tr = lab.createTrainer({ vocab: 8, seqLen: 8, layers: 2, heads: 2, dModel: 8, batch: 4, seed: 2 });
  tr.step(20);
  const file = tr.exportWeights(), w = weightsOf(file), d = 8, dh = 4;
  const c = tr.composition();
  const mat = (rows, cols, f) => Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => f(i, j)));
  const mul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((s, v, k) => s + v * b[k][j], 0)));
  const tr2 = (a) => a[0].map((_, j) => a.map((row) => row[j]));
  const fro = (a) => Math.sqrt(a.flat().reduce((s, v) => s + v * v, 0));
  const qk = [], ov = [];
  for (let l = 0; l < 2; l++) {
    const qkv = w[`layers.${l}.qkv`], out = w[`layers.${l}.out`];
    for (let h = 0; h < 2; h++) {
      const col = (base) => mat(d, dh, (i, j) => qkv[i * 3 * d + base + h * dh + j]);
      qk.push(mul(col(0), tr2(col(d))));
      ov.push(mul(col(2 * d), mat(dh, d, (i, j) => out[(h * dh + i) * d + j])));
    }
  }
  assert.equal(c.composition.length, 4);
  for (const e of c.composition) {
    const a = e.from[0] * 2 + e.from[1], b = e.to[0] * 2 + e.to[1];
    assert.equal(e.from[0], 0);
    assert.equal(e.to[0], 1);
    close(e.q, fro(mul(ov[a], qk[b])) / (fro(ov[a]) * fro(qk[b])), 1e-9, 'Q');
    close(e.k, fro(mul(ov[a], tr2(qk[b]))) / (fro(ov[a]) * fro(qk[b])), 1e-9, 'K');
    close(e.v, fro(mul(ov[a], ov[b])) / (fro(ov[a]) * fro(ov[b])), 1e-9, 'V');
  }
  // copying: sum(lambda) / sum(|lambda|), where sum(lambda) is the trace of the full OV circuit
  const E = mat(8, d, (i, j) => w.tokenEmbedding[i * d + j]), U = mat(d, 8, (i, j) => w.unembedding[i * 8 + j]);
  assert.equal(c.copying.length, 4);
  for (const [a, h] of c.copying.entries()) {
    const full = mul(mul(E, ov[a]), U);
    const trace = full.reduce((s, row, i) => s + row[i], 0);
    let size = 0;
    for (let i = 0; i < h.eigenvalues.length; i += 2) size += Math.hypot(h.eigenvalues[i], h.eigenvalues[i + 1]);
    assert.equal(h.eigenvalues.length, 2 * dh);
    close(h.score, trace / size, 1e-9, 'copying');
  }
  // the shipped model too: 2 layers x 4 heads, 16 pairs, 8 heads
  const s = model.composition();
  assert.equal(s.composition.length, 16);
  assert.ok(s.copying.every((x) => x.score >= -1 && x.score <= 1));
  tr.dispose();
});

test('the trained induction circuit: the previous-token head and the two induction heads matter, and compose by K', () => {
  // the default run (2 layers x 2 heads), trained until an induction head forms, then 200 steps more
  // (node scripts/ablation-report.js prints the full table for seeds 1, 2 and 6)
  const t = lab.createTrainer({ seed: 1 });
  while (!t.headScores().some((h) => h.induction > 0.6)) t.step(50);
  t.step(200);
  const scores = t.headScores(), base = t.evaluate().loss;
  assert.ok(base < 0.1, `loss on the repeats ${base}`);
  const [a, b] = scores.slice(0, 2);
  const prev = a.previousToken > b.previousToken ? a : b, other = prev === a ? b : a;
  const loss = (heads) => t.ablate({ heads }).scoredLoss;
  // the previous-token head carries the circuit; the other layer-0 head does not
  assert.ok(loss([[0, prev.head]]) > 2, 'previous-token head knocked out');
  assert.ok(loss([[0, other.head]]) < 0.5, 'the other layer-0 head knocked out');
  // the two layer-1 heads are both induction heads and cover for each other
  assert.ok(scores[2].induction > 0.9 && scores[3].induction > 0.9);
  const one = Math.max(loss([[1, 0]]), loss([[1, 1]])), both = loss([[1, 0], [1, 1]]);
  assert.ok(one < 1.2 && both > 3, `one induction head out: ${one}; both: ${both}`);
  // knocking out the previous-token head takes the induction heads' pattern with it
  const after = t.ablate({ heads: [[0, prev.head]] }).induction;
  assert.ok(after[2] < 0.5 && after[3] < 0.5, `induction scores after: ${after[2]}, ${after[3]}`);
  // K-composition: the previous-token head into each induction head stands out
  const k = t.composition().composition;
  const fromPrev = k.filter((e) => e.from[1] === prev.head).map((e) => e.k);
  const fromOther = k.filter((e) => e.from[1] === other.head).map((e) => e.k);
  assert.ok(Math.min(...fromPrev) > Math.max(...fromOther), `K from ${fromPrev} vs ${fromOther}`);
  t.dispose();
});

test('bad input is refused by name, and both objects stay usable', () => {
  const tr = lab.createTrainer({ vocab: 8, seqLen: 8, layers: 2, heads: 2, dModel: 8, batch: 4 });
  const cases = [
    [() => tr.ablate({ heads: [[2, 0]] }), 'Trainer.ablate: heads[0] = [2, 0]: layer 2 is out of range; expected [layer, head] with layer from 0 to 1 and head from 0 to 1'],
    [() => tr.ablate({ heads: [[0, 0], [1, 3]] }), 'Trainer.ablate: heads[1] = [1, 3]: head 3 is out of range; expected [layer, head] with layer from 0 to 1 and head from 0 to 1'],
    [() => tr.ablate({ heads: [[0, 1], [1, 1], [0, 1]] }), 'Trainer.ablate: heads[2] = [0, 1] repeats heads[0]; expected each head at most once'],
    [() => tr.ablate({ heads: [[0, 1, 1]] }), 'Trainer.ablate: heads[0] has 3 entries; expected a [layer, head] pair'],
    [() => tr.ablate({ heads: [0, 1] }), 'Trainer.ablate: heads[0] is a number; expected an array of numbers'],
    [() => tr.ablate({ heads: [[0, -1]] }), /^Trainer\.ablate: heads\[0\]\[1\] = -1; expected/],
    [() => tr.ablate({ heads: [[0, 0]], mode: 'half' }), 'Trainer.ablate: mode = "half"; expected \'zero\' or \'mean\''],
    [() => tr.ablate({ mode: 'zero' }), 'Trainer.ablate: heads is undefined; expected an array of [layer, head] pairs'],
    [() => tr.ablate({ heads: [], tokens: [1, 9] }), 'Trainer.ablate: tokens[1] = 9; expected a token id from 0 to 7 (vocab = 8)'],
    [() => tr.ablate({ heads: [], tokens: [] }), 'Trainer.ablate: tokens has 0 entries; expected 1 to 8 (seqLen)'],
    [() => model.ablate('the cat', { heads: [[0, 4]] }), 'Model.ablate: heads[0] = [0, 4]: head 4 is out of range; expected [layer, head] with layer from 0 to 1 and head from 0 to 3'],
    [() => model.ablate('the cat', { heads: [[0, 0]], mode: 'mean', meanOver: [] }), 'Model.ablate: meanOver is empty; expected at least one text to average the heads\' outputs over'],
    [() => model.ablate('the cat', { heads: [[0, 0]], mode: 'mean', meanOver: ['a', ''] }), 'Model.ablate: meanOver[1] is empty; expected at least one character'],
    [() => model.ablate('the cat', { heads: [[0, 0]], meanOver: ['a'] }), 'Model.ablate: meanOver is given but mode is \'zero\'; expected mode: \'mean\' with it'],
    [() => model.ablate('the cat', { heads: [[0, 0]], top: 0 }), 'Model.ablate: top = 0; expected a whole number from 1 to 100'],
    [() => model.ablate('', { heads: [] }), 'Model.ablate: text is empty; expected at least one character'],
    [() => model.ablate('the cat'), /^Model\.ablate: expected an object \{ heads, mode/],
  ];
  for (const [call, message] of cases) {
    assert.throws(call, (err) => err instanceof Error && (typeof message === 'string' ? err.message === message : message.test(err.message)) || assert.fail(err.message));
  }
  // a long text in meanOver: refused by name unless truncating
  const long = 'the cat sat on the mat. '.repeat(20);
  assert.throws(() => model.ablate('the cat', { heads: [[0, 0]], mode: 'mean', meanOver: [long] }), { message: /^Model\.ablate: meanOver\[0\] has \d+ tokens; expected at most 64 / });
  assert.ok(Number.isFinite(model.ablate('the cat', { heads: [[0, 0]], mode: 'mean', meanOver: [long], truncate: true }).loss));
  // every head at once is allowed: the model without attention
  const all = model.ablate('the cat sat', { heads: [0, 1].flatMap((l) => [0, 1, 2, 3].map((h) => [l, h])) });
  assert.ok(Number.isFinite(all.loss));
  assert.notEqual(all.loss, all.baseline.loss);
  // one token: nothing to score
  assert.equal(model.tokenize('the').length, 1);
  const one = model.ablate('the', { heads: [[0, 0]] });
  assert.equal(one.positions, 0);
  assert.equal(one.loss, null);
  assert.equal(one.repeatedLoss, null);
  // still usable, and nothing kept: repeated calls, good and bad, leave the engine's heap as it was
  assert.ok(Number.isFinite(tr.ablate({ heads: [[1, 1]] }).loss));
  const round = () => {
    tr.ablate({ heads: [[1, 1], [0, 0]], mode: 'mean' });
    model.ablate('the cat sat. the cat', { heads: [[0, 2]], mode: 'mean', meanOver: ['a dog', 'the sun'] });
    tr.composition();
    for (const [call] of cases) assert.throws(call);
  };
  round();
  const before = lab.memory();
  for (let i = 0; i < 20; i++) round();
  assert.equal(lab.memory().heapInUse, before.heapInUse);
  tr.step(2);
  assert.equal(model.predict('the cat').next.length, 5);
  tr.dispose();
  assert.throws(() => tr.ablate({ heads: [] }), { message: /^Trainer\.ablate: the trainer was disposed/ });
  assert.throws(() => tr.composition(), { message: /^Trainer\.composition: the trainer was disposed/ });
});
