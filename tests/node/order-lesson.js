'use strict';
// Lesson 8 (web/site/lesson-8.html, how attention knows word order) against the engine: what each
// data-fact="order:..." of the page is, and a check for each data-claim="order-...". Used by
// tests/node/order-lesson.test.js (which reads the page's source) and tests/browser/facts.test.js
// (which reads the page as a learner sees it), so one place decides what every number is.
//
// The race (the lesson's table) is the engine's own run with the race's fixed settings:
// lab.TRAINER_DEFAULTS with { positions, seed: 1 }, RACE.steps updates, a head formed at the first
// update whose recorded score is above the trainer's formedThreshold, then lossByPosition at the
// training length and at 2x and 4x it. The five runs take about 22 s of CPU together (4.2-4.6 s
// each, measured with process.cpuUsage on the 2-core machine), so each process runs each scheme
// once: race() keeps its results.
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');

const SCHEMES = ['learned', 'sinusoidal', 'rope', 'alibi', 'none'];
const RACE = Object.freeze({ seed: 1, steps: 1000, lengths: Object.freeze([64, 128]) });
// The sinusoid's example table and RoPE's example vectors: the rotary lab's q and k, which the
// lesson's listing holds too (the listing tests check it), defined once, in ui/position-lab.js.
const PE = Object.freeze({ n: 64, d: 16 });
const { LISTING_Q: Q, LISTING_K: K } = require('../../web/src/ui/position-lab.js');

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);

/** The numbers a fact's text states ("−2.46" and "-2.46" alike; "1,000" is 1000). */
function numbersIn(text) {
  const s = text.replace(/\u2212/g, '-');
  return (s.match(/-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?/g) || []).map((x) => x.replace(/,/g, ''));
}

/** `values` rounded each to the decimals its counterpart in the text is written with. */
function asWritten(values, text) {
  const written = numbersIn(text);
  assert.equal(written.length, values.length, `"${text.trim()}" states ${written.length} numbers; the engine has ${values.length}`);
  return values.map((v, i) => {
    const d = (written[i].split('.')[1] || '').length;
    return Math.round(v * 10 ** d) / 10 ** d;
  });
}

/** The score of query position m on key position n (m >= n) under RoPE, from lab.attention: key j sits at offset + j, the last query at the last key's position. */
function ropeScore(lab, m, n, layout, q = Q, k = K) {
  const keys = Array.from({ length: m - n + 1 }, () => k);
  return lab.attention([q], keys, keys, { rope: { layout, offset: n } }).scores.toArray()[0][0];
}

/** Head `head`'s weights of `heads` ALiBi heads under a causal mask, every plain score zero: only the penalty is left. */
function alibiWeights(lab, heads, head, n) {
  const zeros = Array.from({ length: heads }, () => Array.from({ length: n }, () => [0, 0]));
  return lab.attention(zeros, zeros, zeros, { causal: true, alibi: true }).weights.toArray()[head];
}

const sinusoids = (lab) => lab.positions({ kind: 'sinusoidal', n: PE.n, d: PE.d }).toArray();

let raced = null;
/** The race, once per process: { scheme: { prev, induction, loss: { 32, 64, 128 } | refused } }. */
function race(lab) {
  if (raced) return raced;
  raced = {};
  for (const positions of SCHEMES) {
    const t = lab.createTrainer({ ...lab.TRAINER_DEFAULTS, positions, seed: RACE.seed });
    try {
      const r = t.step(RACE.steps);
      assert.equal(r.previousToken.length, RACE.steps, 'a record of every update');
      const first = (scores) => {
        const i = Array.from(scores).findIndex((x) => x >= t.formedThreshold);  // the engine's rule (t.formed)
        return i < 0 ? null : i + 1;
      };
      const loss = {}, refused = {};
      for (const length of [t.options.seqLen, ...RACE.lengths]) {
        try {
          // At the training length the mean over every scored position; past it, as <position-race>
          // shows, the mean over the positions the model never saw in training (each position once).
          const e = t.lossByPosition({ length });
          if (length === t.options.seqLen) loss[length] = e.mean;
          else {
            const past = e.loss.slice(t.options.seqLen).filter((x) => x !== null);
            loss[length] = past.reduce((a, b) => a + b, 0) / past.length;
          }
        } catch (err) {
          refused[length] = err.message;
        }
      }
      raced[positions] = { prev: first(r.previousToken), induction: first(r.induction), formed: t.formed, loss, refused, seqLen: t.options.seqLen };
    } finally {
      t.dispose();
    }
  }
  return raced;
}

function trainerFacts(lab) {
  const t = lab.createTrainer({});
  try {
    return { seqLen: t.options.seqLen, layers: t.options.layers, heads: t.options.heads, formedThreshold: t.formedThreshold, uniform: t.uniformLoss };
  } finally {
    t.dispose();
  }
}

/** The raw engine numbers behind data-fact="order:...", or null for another lesson's fact. */
function rawFact(lab, fact) {
  const p = fact.split(':');
  if (p[0] !== 'order') return null;
  switch (p[1]) {
    case 'causal-equal': {
      const i = Number(p[2]);
      const zeros = Array.from({ length: i + 2 }, () => [0, 0]);
      return [lab.attention(zeros, zeros, zeros, { causal: true }).weights.toArray()[i][0]];
    }
    case 'trainer': return [trainerFacts(lab)[p[2]]];
    case 'uniform': return [trainerFacts(lab).uniform];
    case 'model': return [lab.loadModel()[p[2]]];
    case 'pe-dot': {
      const pe = sinusoids(lab);
      return [dot(pe[Number(p[2])], pe[Number(p[3])])];
    }
    case 'rope-theta': return lab.positions({ kind: 'rope', n: 2, d: Number(p[2]) }).toArray()[1];
    case 'rope':
      if (p[2] === 'none') return [lab.attention([Q], [K], [K]).scores.toArray()[0][0]];
      return [ropeScore(lab, Number(p[3]), Number(p[4]), p[2] === 'half' ? 'half' : 'interleaved')];
    case 'alibi-fractions': {
      // "1/2, 1/4, ..., 1/256": the first two slopes and the last; all of them when there are two
      const s = Array.from(lab.positions({ kind: 'alibi', heads: Number(p[2]) }).data);
      return (s.length > 2 ? [s[0], s[1], s[s.length - 1]] : s).flatMap((m) => [1, 1 / m]);
    }
    case 'alibi-ratio': {
      const dist = Number(p[3]);
      const w = alibiWeights(lab, 8, Number(p[2]), dist + 1)[dist];
      return [w[dist] / w[0]];
    }
    case 'race':
      if (p[2] === 'seed' || p[2] === 'steps') return [RACE[p[2]]];
      if (p[2] === 'length') return [RACE.lengths[Number(p[3])]];
      {
        const r = race(lab)[p[2]];
        assert.ok(r, `${fact}: a scheme of the race`);
        if (p[3] === 'loss') {
          assert.ok(Number(p[4]) in r.loss, `${fact}: the ${p[2]} model was read at length ${p[4]}`);
          return [r.loss[p[4]]];
        }
        assert.notEqual(r[p[3]], null, `${fact}: the ${p[2]} model formed this head`);
        return [r[p[3]]];
      }
    default:
      throw new Error(`${fact}: not a fact this module knows`);
  }
}

/** The numbers of data-fact="order:..." as the text writes them (rounded to its decimals), or null for another lesson's fact. */
function orderFact(lab, fact, text) {
  const raw = rawFact(lab, fact);
  return raw && asWritten(Array.from(raw), text);
}

const CLAIMS = {
  'order-equivariant'(lab) {
    const n = 6, perm = [3, 0, 5, 1, 4, 2];
    const [q, k, v] = [11, 12, 13].map((seed) => lab.randomNormal({ shape: [n, 8], seed }).toArray());
    const P = (rows) => perm.map((i) => rows[i]);
    const out = lab.attention(q, k, v).output.toArray();
    const shuffled = lab.attention(P(q), P(k), P(v)).output.toArray();
    const diff = lab.maxAbsDiff(lab.tensor(P(out)), lab.tensor(shuffled));
    assert.ok(diff <= 4 * 2 ** -23 * Math.max(...out.flat().map(Math.abs)), `each row moves with its token and keeps its value to float32 rounding (${diff})`);
  },
  'order-positions-break'(lab) {
    // The sinusoids of each place added to the token that stands there, before and after the shuffle.
    const n = 6, perm = [3, 0, 5, 1, 4, 2];
    const x = lab.randomNormal({ shape: [n, 8], seed: 11 }).toArray();
    const pe = lab.positions({ kind: 'sinusoidal', n, d: 8 }).toArray();
    const placed = (rows) => rows.map((row, i) => row.map((v, c) => v + pe[i][c]));
    const out = lab.attention(placed(x), placed(x), placed(x)).output.toArray();
    const px = perm.map((i) => x[i]);
    const shuffled = lab.attention(placed(px), placed(px), placed(px)).output.toArray();
    const moved = perm.map((i, r) => Math.max(...out[i].map((v, c) => Math.abs(v - shuffled[r][c]))));
    // A token that keeps its place changes only through the others; every token that moves changes a lot.
    assert.ok(moved.every((d, r) => d > (perm[r] === r ? 1e-3 : 0.05)), `with positions added, the rows change value (${moved.map((d) => d.toFixed(3))})`);
  },
  'order-causal-breaks'(lab) {
    const n = 6, perm = [3, 0, 5, 1, 4, 2];
    const [q, k, v] = [11, 12, 13].map((seed) => lab.randomNormal({ shape: [n, 8], seed }).toArray());
    const P = (rows) => perm.map((i) => rows[i]);
    const out = lab.attention(q, k, v, { causal: true }).output.toArray();
    const shuffled = lab.attention(P(q), P(k), P(v), { causal: true }).output.toArray();
    const moved = P(out).map((row, i) => Math.max(...row.map((x, c) => Math.abs(x - shuffled[i][c]))));
    assert.ok(moved.filter((d) => d > 0.05).length >= n - 1, `with the mask, the rows change value (${moved.map((d) => d.toFixed(3))})`);
  },
  'order-causal-count'(lab) {
    const n = 8, zeros = Array.from({ length: n }, () => [0, 0]);
    lab.attention(zeros, zeros, zeros, { causal: true }).weights.toArray().forEach((row, i) => row.forEach((w, j) => {
      assert.ok(Math.abs(w - (j <= i ? 1 / (i + 1) : 0)) < 1e-7, `row ${i}, key ${j}: ${w}`);
    }));
  },
  'order-trainer-learned'(lab) {
    assert.equal(lab.TRAINER_DEFAULTS.positions, 'learned');
    const t = lab.createTrainer({});
    const table = t.exportWeights().parameters.find((p) => p.name === 'positionEmbedding');
    const { seqLen, dModel } = t.options;
    t.dispose();
    assert.deepEqual(table.shape, [seqLen, dModel], 'a trained row for each position');
  },
  'order-model-learned'(lab) {
    const model = lab.loadModel();
    assert.ok(model.options.positions === undefined || model.options.positions === 'learned', `the shipped model's positions: ${model.options.positions}`);
    const file = fs.readFileSync(path.join(__dirname, '..', '..', 'web', 'model', 'attention-lab-model.js'), 'utf8');
    const m = file.match(/"name":"positionEmbedding","shape":\[(\d+),(\d+)\]/);
    assert.ok(m, 'the model file holds a learned position table');
    assert.equal(Number(m[1]), model.maxTokens, 'as many rows as the tokens it reads');
  },
  'order-learned-refuses'(lab) {
    const t = lab.createTrainer({});
    const length = 2 * t.options.seqLen;
    assert.throws(() => t.lossByPosition({ length }), new RegExp(`^Error: Trainer\\.lossByPosition: length = ${length} is past the learned position table, which has vectors for ${t.options.seqLen} positions`));
    t.dispose();
  },
  'order-pe-relative'(lab) {
    const pe = sinusoids(lab);
    for (let k = 0; k < PE.n; k++) {
      const dots = [];
      for (let i = 0; i + k < PE.n; i++) dots.push(dot(pe[i], pe[i + k]));
      assert.ok(Math.max(...dots) - Math.min(...dots) < 1e-5, `distance ${k}: every pair gives the same dot product (${Math.min(...dots)} .. ${Math.max(...dots)})`);
    }
  },
  'order-pe-peak'(lab) {
    const pe = sinusoids(lab);
    for (let i = 0; i < PE.n; i++) {
      for (let j = 0; j < PE.n; j++) {
        const x = dot(pe[i], pe[j]);
        if (i === j) assert.ok(Math.abs(x - PE.d / 2) < 1e-5, `PE(${i}) . PE(${i}) = d/2 (${x})`);
        else assert.ok(x < PE.d / 2 - 1e-2, `PE(${i}) . PE(${j}) = ${x} is below d/2`);
      }
    }
  },
  'order-rope-theta'(lab) {
    for (const d of [8, 16, 64]) {
      const angles = lab.positions({ kind: 'rope', n: 2, d }).toArray()[1];
      angles.forEach((a, i) => assert.ok(Math.abs(a - 10000 ** (-2 * i / d)) <= 1e-7 * Math.max(1, a), `d = ${d}, pair ${i}: ${a}`));
    }
  },
  'order-rope-relative'(lab) {
    const at = (m, n) => ropeScore(lab, m, n, 'interleaved');
    const base = at(3, 1);
    for (const shift of [0, 1, 7, 50, 1000]) {
      assert.ok(Math.abs(at(3 + shift, 1 + shift) - base) < 1e-5, `shifted by ${shift}: ${at(3 + shift, 1 + shift)} against ${base}`);
    }
    const plain = dot(Q, K);
    for (const p of [0, 3, 10, 500]) assert.ok(Math.abs(at(p, p) - plain) < 1e-5, `at equal positions ${p}: the plain dot product`);
  },
  'order-rope-layouts'(lab) {
    const interleaved = ropeScore(lab, 3, 1, 'interleaved'), half = ropeScore(lab, 3, 1, 'half');
    assert.ok(Math.abs(interleaved - half) > 0.1, `the layouts give different scores (${interleaved}, ${half})`);
    const order = [0, 2, 4, 6, 1, 3, 5, 7];
    const reordered = ropeScore(lab, 3, 1, 'half', order.map((i) => Q[i]), order.map((i) => K[i]));
    assert.ok(Math.abs(reordered - interleaved) < 1e-6, `reordered first, the half-split layout gives the interleaved score (${reordered})`);
  },
  'order-alibi-slopes'(lab) {
    const eight = Array.from(lab.positions({ kind: 'alibi', heads: 8 }).data);
    assert.equal(eight[0], 0.5);
    eight.forEach((m, i) => i && assert.equal(m, eight[i - 1] / 2, 'each half the one before'));
    for (const h of [1, 2, 4, 16, 64]) {
      Array.from(lab.positions({ kind: 'alibi', heads: h }).data).forEach((m, i) => assert.ok(Math.abs(m - 2 ** (-8 * (i + 1) / h)) <= 1e-7 * m, `h = ${h}, head ${i}: ${m}`));
    }
  },
  'order-alibi-ratio'(lab) {
    const ratio = (head) => {
      const w = alibiWeights(lab, 8, head, 11)[10];
      return w[10] / w[0];
    };
    assert.ok(Math.abs(ratio(0) / Math.exp(5) - 1) < 1e-5, `e^5 in the steepest head (${ratio(0)})`);
    assert.ok(Math.abs(ratio(7) / Math.exp(10 / 256) - 1) < 1e-5, `e^(10/256) in the flattest (${ratio(7)})`);
  },
  'order-race-learned-first'(lab) {
    const r = race(lab);
    const others = SCHEMES.filter((s) => s !== 'learned').flatMap((s) => [r[s].prev, r[s].induction]).filter((x) => x !== null);
    assert.ok(Math.max(r.learned.prev, r.learned.induction) < Math.min(...others), `learned ${r.learned.prev}/${r.learned.induction} against ${others}`);
    assert.ok(r.learned.loss[r.learned.seqLen] < 0.01, `almost perfect at the training length (${r.learned.loss[r.learned.seqLen]})`);
    assert.deepEqual(Object.keys(r.learned.refused).map(Number), RACE.lengths, 'and refuses the longer lengths');
  },
  'order-race-together'(lab) {
    const r = race(lab);
    for (const s of ['sinusoidal', 'rope']) assert.ok(r[s].induction < r[s].prev, `${s}: induction ${r[s].induction} before previous-token ${r[s].prev}`);
    assert.ok(r.sinusoidal.prev - r.sinusoidal.induction >= 200, `hundreds of steps later (${r.sinusoidal.prev - r.sinusoidal.induction})`);
  },
  'order-race-none-formed'(lab) {
    const r = race(lab);
    for (const s of ['alibi', 'none']) {
      assert.deepEqual([r[s].prev, r[s].induction, r[s].formed], [null, null, null], `${s}: no head formed in ${RACE.steps} steps`);
      for (const o of ['learned', 'sinusoidal', 'rope']) assert.ok(r[s].loss[r[s].seqLen] > r[o].loss[r[o].seqLen] + 1, `${s}'s loss far above ${o}'s`);
    }
  },
  'order-race-longer'(lab) {
    const r = race(lab);
    for (const s of SCHEMES.filter((x) => x !== 'learned')) {
      const [a, b, c] = [r[s].seqLen, ...RACE.lengths].map((n) => r[s].loss[n]);
      assert.ok(a < b && b < c, `${s}: ${a} < ${b} < ${c}`);
    }
  },
  'order-race-rope-best'(lab) {
    const r = race(lab);
    for (const n of RACE.lengths) {
      for (const s of ['sinusoidal', 'alibi', 'none']) assert.ok(r.rope.loss[n] < r[s].loss[n], `at ${n}: rope ${r.rope.loss[n]} below ${s} ${r[s].loss[n]}`);
    }
    assert.ok(r.sinusoidal.loss[32] < 0.2 && r.sinusoidal.loss[RACE.lengths[0]] > 1, `the sinusoids: near-perfect at the training length, above one nat at twice it (${r.sinusoidal.loss[32]}, ${r.sinusoidal.loss[64]})`);
  },
};

module.exports = { CLAIMS, orderFact, numbersIn, race, ropeScore, alibiWeights, RACE, SCHEMES, PE, Q, K };
