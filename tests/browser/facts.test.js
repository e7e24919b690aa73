'use strict';
// The lesson text against the engine. Each page is opened in Chromium and read as a learner
// sees it:
// - a number the prose states about the engine's inputs or a widget's size is marked with
//   data-fact ("timeFlies.K[4]", "worked.Q[0]", "attr:#shapes3@batch") and must equal it;
// - a number that is the reader's own input or a plain fact (a year) is marked with
//   data-input="reason";
// - any other number in the prose (outside formulas, code listings and widgets) fails the
//   test, and formulas may hold whole numbers only: the engine's results are never typed in;
// - a sentence that claims how the engine's numbers behave carries data-claim="id", and the
//   check of that id below computes it with the engine;
// - listings and answers are folded away (closed <details>) when the page opens.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { pathToFileURL } = require('url');
const { launch, watchedPage, settled } = require('./browser.js');
const { loadAttentionLab } = require('../../index.js');
const { PAGES } = require('../../scripts/build-site.js');
const { circuitFact, coverClaim, prevClaim, modesClaim } = require('../node/circuit-facts.js');

const dist = path.resolve(__dirname, '..', '..', 'dist');

/** Numbers that prose may state without a declaration, each with its reason. */
const ALLOWED = [
  [/\blessons? \d\b/gi, "a lesson's number"],
  [/^\d\. (?=[A-Z])/g, 'a numbered lesson title'],
  [/\b(?:b?float|int)(?:8|16|32|64)\b/g, "a number type's name (float16)"],
  [/\bGPT-2\b/g, "a model's name"],
];

const argmax = (row) => row.indexOf(Math.max(...row));
const sum = (row) => row.reduce((a, b) => a + b, 0);

/** data-claim id -> a check with the engine. Each throws (assert) when the sentence is false. */
const CLAIMS = {
  'flies-arrow'(lab) {
    const { Q, K, V } = lab.examples().timeFlies;
    const q = Q.toArray()[1];
    const dir = q.findIndex((x) => x !== 0);
    assert.deepEqual(q.map((x, i) => (x !== 0 ? i : -1)).filter((i) => i >= 0), [dir], 'the query of flies points along one feature');
    assert.deepEqual(K.toArray().map((k, j) => (k[dir] !== 0 ? j : -1)).filter((j) => j >= 0), [1, 4], 'only flies and arrow have keys along it');
    const w = lab.attention(Q, K, V).weights.toArray()[1];
    assert.equal(argmax(w), 4, 'flies puts most weight on arrow');
    assert.ok(w[4] > 0.5, `"most of its weight" means more than half (${w[4]})`);
    assert.equal(argmax(w.map((x, j) => (j === 4 ? -1 : x))), 1, 'the next largest share is on flies itself');
  },
  'function-words-spread'(lab) {
    const { Q, K, V } = lab.examples().timeFlies;
    const w = lab.attention(Q, K, V).weights.toArray();
    assert.ok(Math.max(...w[3]) < 1 / 3, 'the row of "an" has no weight of a third or more');
  },
  'like-spreads'(lab) {
    const { Q, K, V } = lab.examples().timeFlies;
    const d = lab.explainRow(Q, K, V, 2);
    const q = Q.toArray()[2], scores = Array.from(d.scores.data), scaled = Array.from(d.scaled.data), w = Array.from(d.weights.data);
    const spread = (xs) => Math.max(...xs) - Math.min(...xs);
    const flies = Array.from(lab.explainRow(Q, K, V, 1).scores.data);
    assert.ok(Math.max(...q.map(Math.abs)) < 1, 'the query of like has no large entry');
    assert.ok(spread(scores) < spread(flies) / 4, `its scores are close together (a spread of ${spread(scores)} against flies' ${spread(flies)})`);
    assert.ok(spread(scaled) < spread(scores), 'and the scaling brings them closer still');
    assert.ok(Math.max(...w) < 1 / 3, 'no token takes a third of the weight');
    assert.equal(argmax(w), 0, 'time gets the largest share');
    const k = K.toArray()[0];
    assert.ok(k.some((x, c) => x >= 2 && q[c] !== 0), 'the key of time is large where the query of like is not zero');
  },
  temperature(lab) {
    const { Q, K, V } = lab.examples().timeFlies;
    const at = (temperature) => lab.attention(Q, K, V, { temperature }).weights.toArray()[1];
    const hot = at(4);
    const cold = at(0.25);
    assert.ok(hot[4] < 0.5 && argmax(hot) === 4, 'at the largest temperature arrow keeps the top score but less than half the weight');
    assert.ok(cold[4] > 0.99, 'at the smallest temperature the row is nearly one-hot');
  },
  saturation(lab) {
    const [small, , wide] = lab.softmaxSaturation({ dks: [4, 64, 512], keys: 8, trials: 50, seed: 1 });
    assert.ok(wide.maxWeightUnscaled > 0.9, 'unscaled wide scores give a nearly one-hot row');
    assert.ok(wide.maxGradUnscaled < wide.maxGradScaled / 4, 'and a much smaller gradient than the scaled row');
    assert.ok(Math.abs(wide.maxWeightScaled - small.maxWeightScaled) < 0.1, 'scaled rows look alike whatever the width');
  },
  'self-attend'(lab) {
    const { X } = lab.examples().timeFlies;
    const w = lab.attention(X, X, X).weights.toArray();
    w.forEach((row, i) => assert.ok(argmax(row) === i && row[i] > 0.5, `with Q = K = V = X, token ${i} puts most of its weight on itself`));
  },
  'causal-renormalise'(lab) {
    const { Q, K, V } = lab.examples().timeFlies;
    const open = lab.attention(Q, K, V).weights.toArray();
    const causal = lab.attention(Q, K, V, { causal: true }).weights.toArray();
    causal.forEach((row, i) => {
      assert.ok(Math.abs(sum(row) - 1) < 1e-6, `row ${i} sums to one`);
      const factor = row[0] / open[i][0];
      assert.ok(factor >= 1 - 1e-6, `row ${i}: the remaining weights are scaled up`);
      row.forEach((x, j) => (j > i ? assert.equal(x, 0) : assert.ok(Math.abs(x / open[i][j] - factor) < 1e-4, `row ${i}: weight ${j} grows by the same factor`)));
      if (i === causal.length - 1) assert.ok(Math.abs(factor - 1) < 1e-6, 'the last row hides nothing and stays as it was');
      else assert.ok(factor > 1, `row ${i} grows`);
    });
  },
  'causal-row0'(lab) {
    const r = lab.attention(lab.randomNormal({ shape: [5, 4], seed: 7 }), lab.randomNormal({ shape: [5, 4], seed: 8 }), lab.randomNormal({ shape: [5, 4], seed: 9 }), { causal: true });
    assert.deepEqual(r.weights.toArray()[0], [1, 0, 0, 0, 0]);
  },
  'worked-blend'(lab) {
    const { Q, K, V } = lab.examples().worked;
    const w = lab.attention(Q, K, V).weights.toArray()[0];
    assert.ok(w[0] > 0.5 && w[1] > 0, 'mostly the first value, still a blend');
  },
  'heads-agree'(lab) {
    for (const heads of [1, 2, 4, 8]) {
      const X = lab.randomNormal({ shape: [6, 8], seed: 1 });
      const W = (seed) => lab.randomNormal({ shape: [8, 8], seed });
      const args = { X, Wq: W(2), Wk: W(3), Wv: W(4), Wo: W(5), heads };
      const diff = lab.maxAbsDiff(lab.multiHeadAttention({ ...args, method: 'loop' }).output, lab.multiHeadAttention({ ...args, method: 'batched' }).output);
      assert.equal(diff, 0, `loop and batched agree exactly at h = ${heads}`);
    }
  },
  'heads-transpose'(lab) {
    const X = lab.randomNormal({ shape: [6, 8], seed: 1 });
    const W = (seed) => lab.randomNormal({ shape: [8, 8], seed });
    const args = { X, Wq: W(2), Wk: W(3), Wv: W(4), Wo: W(5), heads: 2, method: 'batched' };
    const right = lab.multiHeadAttention(args).output;
    const wrong = lab.multiHeadAttention({ ...args, forgetMergeTranspose: true }).output;
    assert.deepEqual(wrong.shape, right.shape, 'the shapes fit');
    assert.ok(lab.maxAbsDiff(right, wrong) > 1e-3, 'the answer is wrong');
  },
  'padding-leak'(lab) {
    const { Q, K, V } = lab.examples().timeFlies;
    const masked = lab.attention(Q, K, V, { validLens: 3 });
    const leaky = lab.attention(Q, K, V);
    leaky.weights.toArray().slice(0, 3).forEach((row, i) => assert.ok(row[3] + row[4] > 0, `real token ${i} gives weight to padding`));
    assert.ok(lab.maxAbsDiff(masked.output, leaky.output) > 1e-3, 'and its output changes');
  },
  'param-count'(lab) {
    for (const heads of [1, 2, 4, 8]) {
      const d = 512 / heads;
      assert.equal(lab.traceShapes({ batch: 1, n: 10, dModel: 512, heads, dk: d, dv: d }).parameters, 4 * 512 ** 2, `h = ${heads}: 4 d_model^2 parameters`);
    }
  },
  'tracer-wo'(lab) {
    const t = lab.traceShapes({ batch: 32, n: 50, dModel: 64, heads: 1, dk: 64, dv: 128 });
    const shape = (id) => t.steps.find((s) => s.id === id).shape;
    assert.deepEqual(shape('heads'), [32, 50, 128], 'the attention output');
    assert.notDeepEqual(shape('output'), shape('heads'), 'the layer output after W_O is another tensor');
  },
  'quadratic-memory'(lab) {
    for (const n of [64, 1024, 4096]) {
      assert.equal(lab.attentionMatrixBytes({ n: 2 * n }).bytes, 4 * lab.attentionMatrixBytes({ n }).bytes, `doubling n = ${n} quadruples the weight matrix`);
    }
  },
  'online-equals-full'(lab) {
    const [Q, K, V] = [1, 2, 3].map((seed) => lab.randomNormal({ shape: [12, 4], seed }));
    for (const options of [{ block: 1 }, { block: 4 }, { block: 5, causal: true }, { block: 3, window: 4 }]) {
      for (let row = 0; row < 12; row++) {
        const e = lab.explainOnlineSoftmax(Q, K, V, row, options);
        assert.ok(lab.maxAbsDiff(lab.tensor([e.output]), lab.tensor([e.fullOutput])) <= 1e-5, `row ${row}, ${JSON.stringify(options)}: o / l is ordinary attention`);
      }
    }
  },
  'engine-four-stages'(lab) {
    for (const n of [512, 4096]) {
      const c = lab.costFigures({ m: n, n, dk: 64 });
      assert.equal(c.full.peakExtraFloats, n * n, `n = ${n}: a minimal kernel holds one n x n matrix`);
      assert.equal(c.engine.extraFloats, 4 * n * n + 2 * 64 * n, `n = ${n}: this engine keeps four, and K and V packed`);
      assert.equal(c.full.multiplyAdds, c.tiled.multiplyAdds, `n = ${n}: the tiled method does the same arithmetic`);
    }
  },
  'tiled-writes'(lab) {
    // The cost lab's table: its sizes (n up to 16,384, d = 64), tiled for each fast memory it offers.
    const { FAST_MEMORY_CHOICES, fastMemoryFloats } = require('../../web/src/ui/cost-traffic.js');
    for (const n of [1024, 4096, 16384]) {
      const ratios = FAST_MEMORY_CHOICES.map(({ kib }) => {
        const c = lab.costFigures({ m: n, n, dk: 64, fastMemory: fastMemoryFloats(kib) });
        assert.ok(c.tiled.floatsWritten * 30 < c.full.floatsWritten, `n = ${n}, M = ${kib} KiB: writes far fewer (${c.tiled.floatsWritten} against ${c.full.floatsWritten})`);
        return c.trafficRatio;
      });
      assert.ok(Math.max(...ratios) > 2 * Math.min(...ratios), `n = ${n}: how many fewer it moves depends on the fast memory (${ratios})`);
    }
  },
  'tiled-traffic-memory'(lab) {
    const { FAST_MEMORY_CHOICES, fastMemoryFloats } = require('../../web/src/ui/cost-traffic.js');
    for (const n of [1024, 16384]) {
      const own = lab.costFigures({ m: n, n, dk: 64 });
      assert.ok(own.trafficRatio > 1.8 && own.trafficRatio < 2.2, `n = ${n}: with the engine's blocks, about twice as many (${own.trafficRatio})`);
      const ratios = FAST_MEMORY_CHOICES.map(({ kib }) => lab.costFigures({ m: n, n, dk: 64, fastMemory: fastMemoryFloats(kib) }).trafficRatio);
      for (let i = 1; i < ratios.length; i++) assert.ok(ratios[i] > ratios[i - 1], `n = ${n}: a larger M, a larger gap (${ratios})`);
      assert.ok(ratios.includes(own.trafficRatio), "one of the table's choices is the engine's own blocks");
    }
  },
  'tiled-traffic'(lab) {
    for (const n of [1024, 4096]) {
      const { full, tiled } = lab.costFigures({ m: n, n, dk: 64 });
      assert.ok(tiled.peakExtraFloats * 10 < full.peakExtraFloats, `n = ${n}: the tiled kernel holds far fewer extra floats`);
      assert.ok(tiled.floatsRead + tiled.floatsWritten < full.floatsRead + full.floatsWritten, `n = ${n}: and moves fewer`);
    }
  },
  'kv-cache-equal'(lab) {
    const heads = 4, n = 8, d = 4;
    const Q = lab.randomNormal({ shape: [heads, n, d], seed: 5 }), K = lab.randomNormal({ shape: [heads, n, d], seed: 6 }), V = lab.randomNormal({ shape: [heads, n, d], seed: 7 });
    const full = lab.attention(Q, K, V, { causal: true }).output.toArray();
    const token = (x, t) => x.toArray().map((head) => head[t]);
    const cache = lab.createKVCache({ heads, dHead: d, maxLength: n });
    for (let t = 0; t < n; t++) {
      cache.append(token(K, t), token(V, t));
      const row = cache.attend(token(Q, t)).output;
      assert.ok(lab.maxAbsDiff(row, lab.tensor(full.map((head) => head[t]))) <= 1e-5, `step ${t}: the cache's row is row ${t} of causal attention`);
    }
    cache.dispose();
  },
  'kv-scope'(lab) {
    // "Those counts are attention's own, in one layer": the cache step counts scores and the
    // weighted sum and nothing else, with the cache and without it.
    const heads = 2, d = 4, n = 6;
    const x = lab.randomNormal({ shape: [n, heads, d], seed: 3 }).toArray();
    const cache = lab.createKVCache({ heads, dHead: d, maxLength: n });
    for (let t = 0; t < n; t++) {
      cache.append(x[t], x[t]);
      const step = cache.attend(x[t]), length = t + 1;
      assert.equal(step.multiplyAdds, heads * length * 2 * d, `step ${t}: one query against the cache, attention only`);
      assert.equal(step.multiplyAddsWithoutCache, heads * (length * (length + 1) / 2) * 2 * d, `step ${t}: the causal prefix, attention only`);
    }
    cache.dispose();
  },
  'kv-linear'(lab) {
    const heads = 4, d = 4, n = 16;
    const x = lab.randomNormal({ shape: [heads, n, d], seed: 9 }).toArray();
    const cache = lab.createKVCache({ heads, dHead: d, maxLength: n });
    const steps = [];
    for (let t = 0; t < n; t++) {
      const tok = x.map((head) => head[t]);
      cache.append(tok, tok);
      steps.push(cache.attend(tok));
    }
    cache.dispose();
    for (const len of [4, 8]) {
      const a = steps[len - 1], b = steps[2 * len - 1];
      const withCache = b.multiplyAdds / a.multiplyAdds, without = b.multiplyAddsWithoutCache / a.multiplyAddsWithoutCache;
      assert.ok(Math.abs(withCache - 2) < 0.3, `${len} -> ${2 * len}: with the cache about twice (${withCache})`);
      assert.ok(without > 3 && without < 4.5, `${len} -> ${2 * len}: without it about four times (${without})`);
    }
  },
  'gqa-shrinks'(lab) {
    for (const [h, hkv] of [[4, 2], [4, 1], [64, 8], [32, 1]]) {
      const bytes = (kvHeads) => lab.kvCacheBytes({ layers: 2, kvHeads, dHead: 64, tokens: 100 }).bytes;
      assert.equal(bytes(h) / bytes(hkv), h / hkv, `h = ${h}, h_kv = ${hkv}`);
    }
  },
  'window-skips'(lab) {
    const n = 12, window = 4, block = 4;
    const [Q, K, V] = [1, 2, 3].map((seed) => lab.randomNormal({ shape: [n, 4], seed }));
    for (let row = 0; row < n; row++) {
      const e = lab.explainOnlineSoftmax(Q, K, V, row, { block, window });
      for (const b of e.blocks) {
        const overlaps = b.start <= row && b.end - 1 > row - window;
        assert.equal(b.skipped, !overlaps, `row ${row}, keys ${b.start}..${b.end - 1}: skipped exactly when outside the window`);
      }
    }
  },
  'mask-after-last-row'(lab) {
    const { Q, K, V } = lab.examples().timeFlies;
    const r = lab.mistake('mask-after-softmax', { Q, K, V, causal: true });
    const hidden = lab.attention(Q, K, V, { causal: true }).masked.toArray();
    const bad = r.mistaken.weights.toArray(), good = r.correct.weights.toArray(), out = r.mistaken.output.toArray(), right = r.correct.output.toArray();
    bad.forEach((row, i) => row.forEach((w, j) => { if (hidden[i][j] === -Infinity) assert.equal(w, 0, 'masked cells are zero either way'); }));
    bad.slice(0, -1).forEach((row, i) => {
      const total = sum(row);
      assert.ok(total < 1 - 1e-3, `row ${i} falls short of one (${total})`);
      right[i].forEach((o, c) => assert.ok(Math.abs(out[i][c] - total * o) < 1e-5, `output row ${i} shrinks by the row's sum`));
    });
    assert.deepEqual(r.cells[4], bad[4].map(() => false), 'the last row is unchanged');
    assert.ok(Math.abs(sum(good[4]) - 1) < 1e-6);
  },
  'fp16-nan-rows'(lab) {
    const { scenario } = require('../../web/src/ui/mistake-lab.js');
    const sc = scenario('fp16-mask-fill', lab.examples().timeFlies);
    const r = lab.mistake('fp16-mask-fill', sc.spec);
    const hidden = lab.attention(sc.spec.Q, sc.spec.K, sc.spec.V, { causal: true, mask: sc.spec.mask }).masked.toArray();
    r.mistaken.weights.toArray().forEach((row, i) => {
      const seesNothing = hidden[i].every((x) => x === -Infinity);
      assert.equal(row.some(Number.isNaN), seesNothing, `row ${i}: NaN exactly when it sees no key`);
      if (!seesNothing) hidden[i].forEach((x, j) => { if (x === -Infinity) assert.equal(row[j], 0, 'masked keys get exactly zero'); });
    });
  },
  'padding-grows'(lab) {
    const { scenario, PAD_COUNTS } = require('../../web/src/ui/mistake-lab.js');
    const figures = PAD_COUNTS.map((pads) => lab.mistake('no-padding-mask', scenario('no-padding-mask', lab.examples().timeFlies, null, { pads }).spec).figure.value);
    figures.forEach((f, i) => assert.ok(f > (i ? figures[i - 1] : 0), `more pads, more weight on them: ${figures}`));
  },
  'scaling-grows-with-dk'(lab) {
    const { scenario, wideExample, DK_CHOICES, DEFAULT_DK } = require('../../web/src/ui/mistake-lab.js');
    const example = lab.examples().timeFlies;
    const widths = DK_CHOICES.filter((dk) => dk !== DEFAULT_DK);
    for (const name of ['no-scaling', 'scale-by-dk']) {
      const moved = widths.map((dk) => {
        const r = lab.mistake(name, scenario(name, example, null, { wide: wideExample(lab, example.tokens, dk) }).spec);
        return Math.abs(r.figure.value - r.figure.correctValue);
      });
      moved.forEach((m, i) => assert.ok(i === 0 || m > moved[i - 1], `${name}: the largest weight moves further at wider keys (${moved})`));
    }
  },
  'scaling-sharper-flatter'(lab) {
    const { Q, K, V } = lab.examples().timeFlies;
    const rows = (w) => w.toArray().map((row) => ({ top: Math.max(...row), entropy: -sum(row.map((x) => (x > 0 ? x * Math.log(x) : 0))) }));
    const none = lab.mistake('no-scaling', { Q, K, V }), dk = lab.mistake('scale-by-dk', { Q, K, V });
    const good = rows(none.correct.weights), sharp = rows(none.mistaken.weights), flat = rows(dk.mistaken.weights);
    good.forEach((g, i) => {
      assert.ok(sharp[i].top > g.top && sharp[i].entropy < g.entropy, `row ${i}: sharper without the scale`);
      assert.ok(flat[i].top < g.top && flat[i].entropy > g.entropy, `row ${i}: flatter divided by d_k`);
    });
  },
  'keys-not-transposed-every-cell'(lab) {
    const { scenario, squareExample } = require('../../web/src/ui/mistake-lab.js');
    const sc = scenario('keys-not-transposed', lab.examples().timeFlies, squareExample(lab));
    assert.equal(sc.tokens.length, 4, 'a four-word sentence');
    const r = lab.mistake('keys-not-transposed', sc.spec);
    assert.ok(r.cells.every((row) => row.every(Boolean)), 'every weight changes');
  },
};

/** A trainer with the widget's defaults and `options`, trained `steps` steps (the engine's own run). */
function trained(lab, options, steps) {
  const t = lab.createTrainer(options);
  t.step(steps);
  return t;
}

/** Row i's most-weighted key, for the rows of the answer (k to 2k - 1) of head `index` on the task's example. */
function answerArgmax(t, index) {
  const p = t.attention(t.example).patterns;
  const n = t.example.length, k = Math.floor(n / 2), out = [];
  const per = p.data.subarray(index * n * n, (index + 1) * n * n);
  for (let i = k; i < 2 * k; i++) {
    const row = Array.from(per.subarray(i * n, (i + 1) * n));
    out.push(argmax(row));
  }
  return out;
}

Object.assign(CLAIMS, {
  'induction-two-layers'(lab) {
    const t = trained(lab, { task: 'induction' }, 600);
    const s = t.headScores();
    t.dispose();
    const best = (layer, key) => Math.max(...s.filter((h) => h.layer === layer).map((h) => h[key]));
    assert.ok(best(1, 'induction') >= 0.5, `an induction head in the second layer (${best(1, 'induction')})`);
    assert.ok(best(0, 'induction') < 0.5, `none in the first (${best(0, 'induction')})`);
    assert.ok(best(0, 'previousToken') > best(1, 'previousToken'), 'the strongest previous-token head is in the first layer');
  },
  'one-layer-none'(lab) {
    const { TrainingLog, curveShape } = require('../../web/src/ui/training-log.js');
    const run = (layers) => {
      const t = lab.createTrainer({ task: 'induction', layers });
      const r = t.step(600);
      const log = new TrainingLog();
      log.addRecord(1, r);
      const out = { losses: Array.from(r.losses), scores: t.headScores(), uniform: t.uniformLoss, formed: t.formed, shape: curveShape(log, { patience: 600 }) };
      t.dispose();
      return out;
    };
    const one = run(1), two = run(2);
    const late = (r) => sum(r.losses.slice(-50)) / 50;
    assert.ok(Math.max(...one.scores.map((h) => h.induction)) < 0.5 && one.formed === null, 'no induction head in one layer');
    assert.ok(late(one) < one.uniform - 0.5, `it learns something (${late(one)} against ${one.uniform})`);
    assert.equal(one.shape.shape, 'steady', 'with no sudden drop (the trainer\'s own reading of the curve)');
    assert.ok(late(one) > 1 && late(two) < 0.5, `and stays far above two layers (${late(one)} against ${late(two)})`);
  },
  'phase-change'(lab) {
    const { TrainingLog, curveShape } = require('../../web/src/ui/training-log.js');
    const t = lab.createTrainer({ task: 'induction' });
    const log = new TrainingLog();
    while (log.steps < 600 && !(log.formed && log.steps >= log.formed.step + 100)) log.addRecord(log.steps + 1, t.step(25));
    t.dispose();
    assert.ok(log.formed, 'an induction head forms');
    const f = log.formed.step;
    assert.ok(f >= 100 && f <= 600, `after a few hundred steps (${f})`);
    const mean = (a, b) => sum(log.losses.slice(a, b)) / (b - a);
    const plateau = mean(Math.floor(f / 4), f - 50), after = mean(f + 50, f + 75 <= log.steps ? f + 75 : log.steps);
    assert.ok(mean(0, 5) - plateau > 0.3, 'a quick first fall');
    assert.ok(plateau - mean(f - 50, f) < 0.6 * (plateau - after) || after < plateau - 1, `then a steep drop around the head (${plateau} -> ${after})`);
    assert.equal(curveShape(log).shape, 'plateau', 'the trainer reads the curve as a plateau, then a drop');
    // no bump to see at the default rate: after the drop, no 25-step mean rises above the one before it by more than the batch noise
    const means = [];
    for (let a = f; a + 25 <= log.steps; a += 25) means.push(mean(a, a + 25));
    assert.ok(means.every((m, i) => i === 0 || m < means[i - 1] + 0.25), `no rise after the drop: ${means.map((m) => m.toFixed(2))}`);
  },
  'formed-together'(lab) {
    const t = lab.createTrainer({ task: 'induction' });
    const r = t.step(300);
    const f = t.formed.step;
    t.dispose();
    const prev = r.previousToken, ind = r.induction;
    // the first step each score passes halfway from its start to its value at step 300
    const halfway = (xs) => xs.findIndex((x) => x >= (xs[0] + xs[xs.length - 1]) / 2) + 1;
    assert.ok(prev[f - 101] < 0.5, `no previous-token head a hundred steps before the induction head (${prev[f - 101]})`);
    assert.ok(prev[f + 49] - prev[f - 101] > 0.3, `the previous-token score climbs in the same stretch (${prev[f - 101]} -> ${prev[f + 49]})`);
    assert.ok(Math.abs(halfway(prev) - halfway(ind)) <= 50, `both pass halfway within 50 steps of each other (${halfway(prev)}, ${halfway(ind)})`);
  },
  'previous-first-copy'(lab) {
    const t = trained(lab, { task: 'induction' }, 600);
    const s = t.headScores();
    t.dispose();
    const best = s.filter((h) => h.layer === 0).reduce((a, b) => (b.previousTokenFirstCopy > a.previousTokenFirstCopy ? b : a));
    assert.ok(best.previousTokenFirstCopy > 0.9, `close to one over the first copy (${best.previousTokenFirstCopy})`);
    assert.ok(best.previousToken > 0.35 && best.previousToken < 0.6, `near one half over every row (${best.previousToken})`);
  },
  'knockout-cover'(lab) {
    coverClaim(lab, assert);
  },
  'knockout-prev'(lab) {
    prevClaim(lab, assert);
  },
  'ablation-modes'(lab) {
    modesClaim(lab, assert);
  },
  'lr-too-large'(lab) {
    const { LEARNING_RATES } = require('../../web/src/ui/training-log.js');
    assert.ok(LEARNING_RATES.includes(0.03), 'the rate is on the trainer\'s menu');
    const slow = lab.createTrainer({ task: 'induction', lr: 0.001 }), usual = lab.createTrainer({ task: 'induction' });
    slow.step(300);
    usual.step(300);
    assert.ok(usual.formed && (!slow.formed || slow.formed.step > usual.formed.step), 'a smaller rate: a longer plateau');
    slow.dispose();
    usual.dispose();
    const t = lab.createTrainer({ task: 'induction', lr: 0.03 });
    let r;
    do r = t.step(50); while (!r.worseThanUniform && t.steps < 1500);
    const formed = t.formed;
    t.dispose();
    assert.ok(formed && formed.step < 100, `the head forms quickly (${formed && formed.step})`);
    assert.ok(r.worseThanUniform, `the loss climbs back above a uniform guess's within the trainer's 1500 steps (at ${r.step}: ${r.recentLoss})`);
    assert.ok(r.induction[r.induction.length - 1] < 0.5, 'the head has come apart');
    const big = lab.createTrainer({ task: 'induction', lr: LEARNING_RATES[LEARNING_RATES.length - 2] });
    const d = big.step(100);
    big.dispose();
    assert.ok(d.diverged && d.step < 10, `the largest rates stop within a few steps (${d.step})`);
  },
  'copy-offset-diagonal'(lab) {
    const t = trained(lab, { task: 'copy' }, 300);
    const n = t.example.length, k = Math.floor(n / 2);
    const heads = t.options.heads, found = [];
    for (let h = 0; h < heads; h++) found.push(answerArgmax(t, heads + h));
    t.dispose();
    const line = found.find((a) => a.filter((j, r) => j === r).length >= k - 1);
    assert.ok(line, `a second-layer head looks from answer position k + r to input position r: ${JSON.stringify(found)}`);
  },
  'reverse-anti-diagonal'(lab) {
    const t = trained(lab, { task: 'reverse' }, 300);
    const n = t.example.length, k = Math.floor(n / 2);
    const heads = t.options.heads, found = [];
    for (let h = 0; h < heads; h++) found.push(answerArgmax(t, heads + h));
    t.dispose();
    const line = found.find((a) => a.filter((j, r) => j === k - 1 - r).length >= k - 1);
    assert.ok(line, `a second-layer head looks from the separator to the last input token, then one further back each step: ${JSON.stringify(found)}`);
  },
  'sort-slower'(lab) {
    const accuracy = (task) => {
      const t = trained(lab, { task }, 200);
      const a = t.evaluate().accuracy;
      t.dispose();
      return a;
    };
    const copy = accuracy('copy'), reverse = accuracy('reverse'), sorted = accuracy('sort');
    assert.ok(sorted < Math.min(copy, reverse) - 0.2, `after the same steps, sort is behind (copy ${copy}, reverse ${reverse}, sort ${sorted})`);
  },
});

// Lesson 7: the shipped model (lab.loadModel) on the text its widget starts with, and the
// pasted GPT-2 attention as the page holds it (3 decimals, between its fixture markers).
const MODEL_TEXT = 'a part of the body of a person. a part of the body of a';
let shippedModel = null;
const model = () => shippedModel || (shippedModel = lab.loadModel());
const { pageFixture } = require('../../scripts/lesson-fixture.js');
const { SCORES } = require('../../web/src/ui/head-table.js');
const { earlierCopies, inductionHead } = require('../../web/src/ui/induction-question.js');
let gpt2Data = null;
/** The GPT-2 attention lesson 7's pasted widget shows, and the engine's summary of it as the widget computes it. */
function gpt2() {
  if (!gpt2Data) {
    const data = pageFixture(require('fs').readFileSync(path.join(dist, 'lesson-7.html'), 'utf8'));
    gpt2Data = { data, rows: lab.headSummary(data.attentions, { tokens: data.tokens, causal: true, decimals: 3 }) };
  }
  return gpt2Data;
}
/** The widget's induction head on the text in the box (by the engine's prefix matching apart from the previous token). */
function modelRows(text = MODEL_TEXT) {
  const a = model().attention(text);
  return { a, rows: lab.headSummary(a.attentions, { tokens: a.tokens, causal: true }) };
}
/** The repeat in the box: the last token's earlier copy in the same words, and the distance L back to it. */
function period() {
  const { tokens } = model().attention(MODEL_TEXT);
  return tokens.length - 1 - earlierCopies(tokens)[0];
}
/** Each head of layer 1: the weight its last row (the last " a") puts on the earlier " person". */
function lastRowOnPerson() {
  const a = model().attention(MODEL_TEXT);
  const n = a.tokens.length, at = a.tokens.indexOf(' person');
  assert.ok(at > 0 && a.tokens.lastIndexOf(' person') === at, 'one " person" in the text');
  return a.attentions[1].map((head) => head[n - 1][at]);
}
/** The shipped model's knock-out of `heads` on the text in the box, as lesson 7's knock-out widget asks the engine. */
const knockout = (heads, mode = 'zero') => model().ablate(MODEL_TEXT, { heads, mode, truncate: true });
const layerMeans = (score) => Array.from({ length: 12 }, (_, l) => {
  const r = gpt2().rows.filter((x) => x.layer === l);
  return r.reduce((a, b) => a + b[score], 0) / r.length;
});

Object.assign(CLAIMS, {
  'model-repeat-guess'() {
    const top = model().predict(MODEL_TEXT).next[0];
    assert.equal(top.token, ' person', `the top guess after the repeated phrase (${JSON.stringify(top)})`);
  },
  'model-previous-token'() {
    // Heads 0 and 2 of layer 0 are the previous-token heads (over 0.5), and no other head is, on the
    // text in the box; on other sentences they stay clear (over 0.8).
    const { rows } = modelRows();
    assert.deepEqual(rows.filter((h) => h.previousToken > 0.5).map((h) => [h.layer, h.head]), [[0, 0], [0, 2]]);
    for (const text of ['a quick brown fox jumps over the lazy dog near the river bank', 'The cat sat on the mat', 'he swore vengeance on the king who had killed his father.']) {
      const scores = model().headScores(text);
      for (const h of [0, 2]) assert.ok(scores[h].previousToken > 0.8, `head 0.${h} on ${JSON.stringify(text)}: ${scores[h].previousToken}`);
    }
  },
  'model-first-token'() {
    const second = model().headScores(MODEL_TEXT).filter((h) => h.layer === 1);
    assert.ok(second.length > 0 && second.every((h) => h.firstToken > 0.5), `the second layer's first-token scores: ${second.map((h) => h.firstToken.toFixed(2))}`);
  },
  'model-induction'() {
    const scores = model().headScores(MODEL_TEXT);
    const best = scores.reduce((a, b) => (b.prefixMatching > a.prefixMatching ? b : a));
    assert.equal(best.layer, 1, `the strongest prefix-matching head is in the second layer (${best.layer}.${best.head}: ${best.prefixMatching})`);
    const widget = inductionHead(modelRows().rows);
    assert.deepEqual([widget.layer, widget.head], [best.layer, best.head], "the widget's induction head is that head");
  },
  'model-stripe'() {
    // In the widget's induction head, most rows of the second copy are brightest at i - (L - 1).
    const L = period();
    const { a, rows } = modelRows();
    const head = inductionHead(rows);
    const W = a.attentions[head.layer][head.head];
    // The second copy: the last rows that each repeat the token L back.
    const n = a.tokens.length;
    let from = n - 1;
    while (from - 1 - L >= 0 && a.tokens[from - 1] === a.tokens[from - 1 - L]) from--;
    assert.ok(n - from >= 5, `the phrase repeats over ${n - from} rows`);
    const on = [];
    for (let i = from; i < n; i++) if (argmax(W[i]) === i - (L - 1)) on.push(i);
    assert.ok(on.length > (n - from) / 2, `rows brightest at i - (L - 1): ${on} of ${n - from}`);
  },
  'model-knockout-layer1'() {
    // Every head of layer 1 scores prefix matching from 0.63 (head 0, the lowest) to 0.82 (head 1, the highest).
    const second = model().headScores(MODEL_TEXT).filter((h) => h.layer === 1);
    assert.equal(second.length, 4);
    const low = second.reduce((a, b) => (b.prefixMatching < a.prefixMatching ? b : a)), high = second.reduce((a, b) => (b.prefixMatching > a.prefixMatching ? b : a));
    assert.deepEqual([low.head, high.head], [0, 1], second.map((h) => h.prefixMatching.toFixed(3)).join(' '));
    assert.ok(low.prefixMatching > 0.5, 'each is an induction head by its score');
  },
  'model-knockout-induction'() {
    // Knocking out the strongest induction head (the widget's own pick) changes the top guess from " person" to " m".
    const head = inductionHead(modelRows().rows);
    assert.deepEqual([head.layer, head.head], [1, 1], 'head 1 of layer 1 is the strongest induction head');
    const best = model().headScores(MODEL_TEXT).filter((h) => h.layer === 1);
    assert.deepEqual(best.reduce((a, b) => (b.prefixMatching > a.prefixMatching ? b : a)).head, 1, 'and the highest prefix-matching score of its layer');
    const r = knockout([[1, 1]]);
    assert.equal(r.baseline.next[0].token, ' person');
    assert.equal(r.next[0].token, ' m', `the new top guess (${JSON.stringify(r.next.slice(0, 2))})`);
    assert.ok(r.repeatedLoss > r.baseline.repeatedLoss, 'the loss on the repeated pairs rises');
  },
  'model-knockout-last-row'() {
    // From the last " a", head 1.1 puts more weight on the earlier " person" than on any other key but
    // less than head 1.3 does; head 1.3 puts more there than any other head of the layer.
    const w = lastRowOnPerson();
    assert.ok(w[3] > w[1] && w[1] > 0.4, JSON.stringify(w));
    assert.ok(w.every((x, k) => k === 3 || x < w[3]), `head 3 the most: ${JSON.stringify(w)}`);
  },
  'model-knockout-weight-not-need'() {
    // Head 1.3, with the most weight on " person", keeps it on top when knocked out, and its repeated
    // loss rises least of the four heads of layer 1.
    const r = knockout([[1, 3]]);
    assert.equal(r.next[0].token, ' person');
    const rises = [0, 1, 2, 3].map((k) => knockout([[1, k]]).repeatedLoss);
    assert.equal(rises.indexOf(Math.min(...rises)), 3, JSON.stringify(rises));
  },
  'model-knockout-group'() {
    // All four heads of layer 1 together raise the repeated loss above any one of them, and above the sum of their single rises.
    const all = knockout([[1, 0], [1, 1], [1, 2], [1, 3]]);
    const single = [0, 1, 2, 3].map((k) => knockout([[1, k]]));
    const base = all.baseline.repeatedLoss;
    assert.ok(single.every((r) => r.repeatedLoss < all.repeatedLoss));
    assert.ok(all.repeatedLoss - base > single.reduce((t, r) => t + r.repeatedLoss - base, 0), 'more than the single rises added');
  },
  'model-knockout-previous'() {
    // The previous-token head 0.0 puts almost no weight two or more back, yet its knock-out raises the repeated loss most of any single head.
    const h = model().headScores(MODEL_TEXT).find((x) => x.layer === 0 && x.head === 0);
    assert.ok(h.previousToken > 0.9 && h.prefixMatchingApart < 0.01, JSON.stringify(h));
    const rises = [];
    for (let l = 0; l < 2; l++) for (let k = 0; k < 4; k++) rises.push({ head: `${l}.${k}`, loss: knockout([[l, k]]).repeatedLoss });
    const most = rises.reduce((a, b) => (b.loss > a.loss ? b : a));
    assert.equal(most.head, '0.0', JSON.stringify(rises));
  },
  'model-knockout-quiet'() {
    // Head 0.3 mostly reads its own token (diagonal over 0.8), its other scores near zero; without it
    // " part" leads, and " part" follows an earlier " a" in the text.
    const h = model().headScores(MODEL_TEXT).find((x) => x.layer === 0 && x.head === 3);
    for (const key of ['previousToken', 'prefixMatching', 'firstToken']) assert.ok(h[key] < 0.05, `${key} ${h[key]}`);
    assert.ok(h.diagonal > 0.8, `diagonal ${h.diagonal}`);
    assert.equal(knockout([[0, 3]]).next[0].token, ' part');
    const { tokens } = model().attention(MODEL_TEXT);
    assert.ok(tokens.some((t, i) => t === ' part' && tokens[i - 1] === ' a'), 'an earlier " a part"');
  },
  'summary-entropy-last'() {
    assert.equal(SCORES[SCORES.length - 1].key, 'entropy', "entropy is the summary's last column");
  },
  'model-repeats-half'() {
    assert.equal(model().about.settings.training.repeats, 0.5);
  },
  'model-plain-text'() {
    // A measurement from the model's making, too long to rerun in a test: the lesson says what docs/model.md records.
    const doc = require('fs').readFileSync(path.join(__dirname, '..', '..', 'docs', 'model.md'), 'utf8').replace(/\s+/g, ' ');
    assert.match(doc, /3250 steps of text with `repeats: 0\.5` and no copying stage left .* the best prefix-matching score on a repeated phrase at 0\.04/);
  },
  'gpt2-previous-token'() {
    const { rows } = gpt2();
    const best = rows.reduce((a, b) => (b.previousToken > a.previousToken ? b : a));
    assert.deepEqual([best.layer, best.head], [4, 11], `the best previous-token head (${best.previousToken})`);
    assert.equal(rows.length, 144);
  },
  'gpt2-first-token'() {
    const m = layerMeans('firstToken');
    const [l0, early, late, last] = [m[0], m.slice(1, 5), m.slice(5, 11), m[11]];
    assert.ok(l0 < Math.min(...early) && Math.max(...early) < Math.min(...late) && last < Math.min(...late) && last > Math.max(...early),
      `layer means ${m.map((x) => x.toFixed(2))}`);
  },
  'gpt2-self'() {
    const layer0 = gpt2().rows.filter((r) => r.layer === 0);
    assert.deepEqual(layer0.filter((r) => r.diagonal > 0.8).map((r) => r.head), [1, 3, 5], 'the heads of layer 0 that keep over 0.8 on the token itself');
    assert.deepEqual(layer0.filter((r) => r.diagonal > 0.5 && r.diagonal <= 0.8).map((r) => r.head), [4], 'and the one that keeps more than half, named after them: none is left out');
  },
  'gpt2-no-prefix'() {
    const { data, rows } = gpt2();
    assert.equal(new Set(data.tokens).size, data.tokens.length, 'no token occurs twice');
    assert.ok(data.tokens.includes('The') && data.tokens.includes(' the'));
    assert.ok(rows.every((r) => r.prefixMatching === null), 'prefix matching is not defined for any head');
  },
});

// Lesson 8 (word order): its facts ("order:...") and claims are decided in tests/node/order-lesson.js,
// which tests/node/order-lesson.test.js also checks against the page's source. Its race trains each
// of five models once in this process (about 22 s of CPU).
const order = require('../node/order-lesson.js');
Object.assign(CLAIMS, order.CLAIMS);

let browser, lab;
test.before(async () => {
  [browser, lab] = await Promise.all([launch(), loadAttentionLab()]);
});
test.after(() => browser.close());

/** What the page says: facts, inputs, claims, stray numbers, and the folded state of listings and answers. */
function readPage(allowed) {
  const text = (el) => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll('annotation').forEach((a) => a.remove());
    return copy.textContent;
  };
  const skip = (el) => el.closest('pre, nav, [data-fact], [data-input]') || Array.from(ancestors(el)).some((a) => a.localName.includes('-'));
  function* ancestors(el) { for (let a = el; a; a = a.parentElement) yield a; }
  const stray = [];
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (skip(el) || el.closest('annotation')) continue;
    let t = node.textContent;
    if (el.closest('math')) {
      if (/\d\.\d/.test(t)) stray.push(`a decimal in a formula: ${t}`);
      continue;
    }
    for (const [source, flags] of allowed) t = t.replace(new RegExp(source, flags), '');
    if (/\d/.test(t)) stray.push(`"${node.textContent.trim().slice(0, 80)}"`);
  }
  return {
    facts: Array.from(document.querySelectorAll('[data-fact]'), (el) => {
      const m = el.dataset.fact.match(/^attr:(#[\w-]+)@([\w-]+)$/);
      const target = m && document.querySelector(m[1]);
      return { fact: el.dataset.fact, text: text(el), attr: m ? (target ? target.getAttribute(m[2]) : null) : undefined };
    }),
    inputs: Array.from(document.querySelectorAll('[data-input]'), (el) => el.dataset.input),
    claims: Array.from(document.querySelectorAll('[data-claim]'), (el) => el.dataset.claim),
    stray,
    folded: Array.from(document.querySelectorAll('pre.listing, details.answer > :not(summary)'), (el) => {
      const d = el.closest('details');
      return Boolean(d) && !d.open && !el.checkVisibility();
    }),
  };
}

/** The numbers written in a fact's text, after its "=" if it has one (so "k1 = [1, 0]" gives 1, 0); a minus sign reads as "-". */
const numbersIn = (s) => (s.includes('=') ? s.slice(s.lastIndexOf('=') + 1) : s).replace(/\u2212/g, '-').match(/-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?/g).map((x) => Number(x.replace(/,/g, '')));

// Constants of the widgets' own rules that prose may state (data-fact="const:NAME").
const CONSTANTS = { FORMED: require('../../web/src/ui/training-log.js').FORMED };

/** A score as the prose writes it: rounded to the decimals of `text`. */
const asWritten = (x, text) => {
  const d = (text.match(/\.(\d+)/) || ['', ''])[1].length;
  return Math.round(x * 10 ** d) / 10 ** d;
};

/** Lesson 7's facts about the shipped model's heads, its record, and the pasted GPT-2 attention. */
function lesson7Fact(fact, text) {
  let m = fact.match(/^model-head:(\d+)\.(\d+):(\w+)$/);
  if (m) return [asWritten(model().headScores(MODEL_TEXT).find((r) => r.layer === +m[1] && r.head === +m[2])[m[3]], text)];
  m = fact.match(/^model-about:([\w.]+)$/);
  if (m) return [m[1].split('.').reduce((o, k) => o[k], model().about)];
  m = fact.match(/^model-knockout:(\d+)\.(\d+):(zero|mean):(\w+)$/);
  if (m) {
    // The knock-out widget's numbers on the text in the box (model.ablate), percentages as the widget shows them.
    const r = knockout([[+m[1], +m[2]]], m[3]);
    const top = r.baseline.next[0];
    const value = { before: 100 * top.probability, kept: 100 * r.probabilities[top.id], top: 100 * r.next[0].probability,
      repeatedBefore: r.baseline.repeatedLoss, repeatedLoss: r.repeatedLoss, lossBefore: r.baseline.loss, loss: r.loss }[m[4]];
    assert.equal(typeof value, 'number', `${fact}: a figure of the knock-out`);
    return [asWritten(value, text)];
  }
  m = fact.match(/^model-last-row:1\.(\d+):person$/);
  if (m) return [asWritten(lastRowOnPerson()[+m[1]], text)];
  m = fact.match(/^model-knockout-layer:(\d+):(zero|mean):(\w+)$/);
  if (m) {
    const heads = Array.from({ length: model().options.heads }, (_, k) => [+m[1], k]);
    return [asWritten(knockout(heads, m[2])[m[3]], text)];
  }
  m = fact.match(/^model-knockout-layer-single:(\d+):(zero|mean):(\w+):(min|max)$/);
  if (m) {
    const values = Array.from({ length: model().options.heads }, (_, k) => knockout([[+m[1], k]], m[2])[m[3]]);
    return [asWritten(Math[m[4]](...values), text)];
  }
  if (fact === 'model-text:period') return [period()];
  if (fact === 'model-text:period-1') return [period() - 1];
  m = fact.match(/^gpt2:(\w+)$/);
  if (m) {
    const { data } = gpt2();
    return [{ layers: data.attentions.length, heads: data.attentions[0].length, allHeads: data.attentions.length * data.attentions[0].length, tokens: data.tokens.length }[m[1]]];
  }
  m = fact.match(/^gpt2-head:(\d+)\.(\d+):(\w+)$/);
  if (m) return [asWritten(gpt2().rows.find((r) => r.layer === +m[1] && r.head === +m[2])[m[3]], text)];
  m = fact.match(/^gpt2-layer:(\d+):(\w+)$/);
  if (m) return [asWritten(layerMeans(m[2])[+m[1]], text)];
  m = fact.match(/^gpt2-layer-(min|max):(\d+)-(\d+):(\w+)$/);
  if (m) return [asWritten(Math[m[1]](...layerMeans(m[4]).slice(+m[2], +m[3] + 1)), text)];
  return null;
}

function factValue(fact, attr, text) {
  const lesson7 = lesson7Fact(fact, text);
  if (lesson7) return lesson7;
  const lesson8 = order.orderFact(lab, fact, text);
  if (lesson8) return lesson8;
  // lesson 6's knock-outs and composition, from the engine's runs (tests/node/circuit-facts.js)
  const circuit = circuitFact(lab, fact, text);
  if (circuit) return circuit;
  if (fact.startsWith('model:')) {
    const key = fact.slice(6);
    const m = model();
    const value = key in m.options ? m.options[key] : m[key];
    assert.equal(typeof value, 'number', `${fact}: a number the shipped model has`);
    return [value];
  }
  if (fact.startsWith('const:')) {
    assert.ok(fact.slice(6) in CONSTANTS, `${fact}: a constant this test knows`);
    return [CONSTANTS[fact.slice(6)]];
  }
  if (fact.startsWith('attr:')) {
    assert.notEqual(attr, null, `${fact}: the element and attribute exist on the page`);
    return attr.match(/-?\d+(?:\.\d+)?/g).map(Number);
  }
  const m = fact.match(/^(\w+)\.(\w+)\[(\d+)\]$/);
  assert.ok(m, `${fact}: a fact is "example.tensor[row]" or "attr:#id@attribute"`);
  const example = lab.examples()[m[1]];
  assert.ok(example && example[m[2]], `${fact}: the engine has this example tensor`);
  return example[m[2]].toArray()[Number(m[3])];
}

const seenClaims = new Set();
for (const { file } of PAGES) {
  test(`${file}: every number in the prose is a checked fact or a declared input, and every claim holds`, async () => {
    const { page, close } = await watchedPage(browser);
    await page.goto(pathToFileURL(path.join(dist, file)).href);
    const said = await page.evaluate(readPage, ALLOWED.map(([re, reason]) => [re.source, re.flags, reason]).map(([s, f]) => [s, f]));
    await close();
    assert.deepEqual(said.stray, [], 'numbers in the prose that are neither a data-fact nor a data-input');
    for (const { fact, text, attr } of said.facts) {
      assert.deepEqual(numbersIn(text).map(Math.fround), factValue(fact, attr, text).map(Math.fround), `"${text.trim()}" states ${fact}`);
    }
    for (const reason of said.inputs) assert.ok(reason.trim().length > 3, 'a data-input says why the number is not an engine result');
    for (const id of said.claims) {
      assert.ok(CLAIMS[id], `data-claim="${id}" has a check in this test`);
      CLAIMS[id](lab);
      seenClaims.add(id);
    }
    assert.ok(said.folded.every(Boolean), 'every listing and answer is folded away when the page opens');
  });
}

test('every claim check belongs to a sentence on some page', () => {
  assert.deepEqual([...seenClaims].sort(), Object.keys(CLAIMS).sort());
});

test('display formulas are not clipped: each looks the same with its overflow let out', async () => {
  const { page, close } = await watchedPage(browser);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    for (const { file } of PAGES) {
      await page.goto(pathToFileURL(path.join(dist, file)).href);
      // A widget still drawing beside a formula moves it between the two pictures: wait for all of them.
      await settled(page, 60000);
      // Formulas folded into "After you have answered" boxes are checked opened.
      await page.$$eval('details', (boxes) => boxes.forEach((d) => { d.open = true; }));
      const count = await page.locator('.math-display').count();
      for (let i = 0; i < count; i++) {
        const block = page.locator('.math-display').nth(i);
        await block.scrollIntoViewIfNeeded();
        const box = await block.boundingBox();
        // The formula's column and a margin, not the widget that may sit beside it (a caret blinking
        // in one of its boxes would differ between the two pictures).
        const left = Math.max(0, box.x - 24);
        const clip = { x: left, y: Math.max(0, box.y - 12), width: Math.min(width - left, box.width + 48), height: box.height + 24 };
        const clipped = await page.screenshot({ clip });
        await block.evaluate((el) => { el.style.overflow = 'visible'; });
        const free = await page.screenshot({ clip });
        await block.evaluate((el) => { el.style.overflow = ''; });
        assert.ok(clipped.equals(free), `${file} at ${width} px: formula ${i + 1} loses ink to its box`);
        assert.ok(await block.evaluate((el) => el.scrollWidth <= el.clientWidth), `${file} at ${width} px: formula ${i + 1} fits without scrolling`);
      }
    }
  }
  await close();
});
