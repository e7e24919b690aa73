'use strict';
// Lesson 6's "Test the circuit" figures, from the engine's own runs: the trainer's defaults
// (lab.TRAINER_DEFAULTS: 2 layers of 2 heads, the induction task, lr 0.003) with seeds 1, 2
// and 3, each trained for the widget's 1,500 steps (one press of Train), then every head knocked
// out alone and each layer's heads together (zero ablation, Trainer.ablate), and composition().
// tests/node/lesson-6-circuit.test.js and tests/browser/facts.test.js read the lesson's
// data-fact="circuit:..." numbers through circuitFact; the data-claims "knockout-cover",
// "knockout-prev" and "ablation-modes" through coverClaim, prevClaim and modesClaim.

const SEEDS = [1, 2, 3];
const STEPS = 1500;

const runs = new WeakMap();

/** The figures of one seed's run (computed once per engine). */
function circuitRun(lab, seed) {
  if (!runs.has(lab)) runs.set(lab, new Map());
  const cache = runs.get(lab);
  if (cache.has(seed)) return cache.get(seed);
  const t = lab.createTrainer({ seed });
  try {
    const untrained = t.composition().composition;  // the same heads before any step
    t.step(STEPS);
    const { layers, heads } = t.options;
    const zero = (set) => t.ablate({ heads: set, mode: 'zero' }).scoredLoss;
    const scores = t.headScores();
    const alone = new Map(scores.map((s) => [`${s.layer}.${s.head}`, zero([[s.layer, s.head]])]));
    const meanAlone = new Map(scores.map((s) => [`${s.layer}.${s.head}`, t.ablate({ heads: [[s.layer, s.head]], mode: 'mean' }).scoredLoss]));
    const inductionAfter = new Map(scores.map((s) => [`${s.layer}.${s.head}`, Array.from(t.ablate({ heads: [[s.layer, s.head]], mode: 'zero' }).induction)]));
    const together = Array.from({ length: layers }, (_, l) => zero(Array.from({ length: heads }, (_, k) => [l, k])));
    // the previous-token head: the layer-0 head with the higher score over the first copy
    const prev = scores.filter((s) => s.layer === 0).reduce((a, b) => (b.previousTokenFirstCopy > a.previousTokenFirstCopy ? b : a));
    const c = t.composition();
    const induction = new Map(scores.map((s) => [`${s.layer}.${s.head}`, s.induction]));
    const run = { seed, base: t.evaluate().loss, uniform: t.uniformLoss, alone, meanAlone, inductionAfter, induction, together, prev: [prev.layer, prev.head], composition: c.composition, untrained,
      copying: new Map(c.copying.map((x) => [`${x.layer}.${x.head}`, x.score])) };
    cache.set(seed, run);
    return run;
  } finally {
    t.dispose();
  }
}

/** Numbers as the text writes them: each rounded to the decimals it is written with. */
function asWritten(values, text) {
  const written = text.match(/\d+(?:\.\d+)?/g) || [];
  return values.map((x, i) => {
    const d = ((written[i] || '').match(/\.(\d+)/) || ['', ''])[1].length;
    return Math.round(x * 10 ** d) / 10 ** d;
  });
}

const ALL = () => SEEDS;
const range = (xs) => [Math.min(...xs), Math.max(...xs)];

/**
 * The engine's value(s) of a lesson fact "circuit:...", rounded as `text` writes them; null when
 * `fact` is not one of these. Facts:
 *   circuit:steps, circuit:seeds (first and last), circuit:uniform;
 *   circuit:<seed>:base, circuit:<seed>:prev-head ([layer, head]), circuit:<seed>:alone:<l.h>,
 *   circuit:<seed>:layer:<l> (its heads together), circuit:<seed>:k:<l.h>-<l.h>, circuit:<seed>:copying:<l.h>;
 *   circuit:<seed>:untrained-k (the lowest and highest K-composition of the same heads before training);
 *   circuit-range:base | prev | layer1-alone | layer1 | layer0 (min and max over the seeds).
 */
function circuitFact(lab, fact, text) {
  let m = /^circuit:(steps|seeds|uniform)$/.exec(fact);
  if (m) {
    if (m[1] === 'steps') return [STEPS];
    if (m[1] === 'seeds') return [SEEDS[0], SEEDS[SEEDS.length - 1]];
    return asWritten([circuitRun(lab, SEEDS[0]).uniform], text);
  }
  m = /^circuit:(\d+):untrained-k$/.exec(fact);
  if (m) return asWritten(range(circuitRun(lab, Number(m[1])).untrained.map((e) => e.k)), text);
  m = /^circuit:(\d+):(base|prev-head|alone:\d\.\d|layer:\d|k:\d\.\d-\d\.\d|copying:\d\.\d)$/.exec(fact);
  if (m) {
    const r = circuitRun(lab, Number(m[1]));
    const [what, arg] = m[2].split(/:(.*)/);
    if (what === 'base') return asWritten([r.base], text);
    if (what === 'prev-head') return r.prev;
    if (what === 'alone') return asWritten([r.alone.get(arg)], text);
    if (what === 'layer') return asWritten([r.together[Number(arg)]], text);
    if (what === 'copying') return asWritten([r.copying.get(arg)], text);
    const [from, to] = arg.split('-');
    const e = r.composition.find((x) => x.from.join('.') === from && x.to.join('.') === to);
    return asWritten([e.k], text);
  }
  m = /^circuit-range:(base|prev|layer1-alone|layer1|layer0)$/.exec(fact);
  if (m) {
    const rs = ALL().map((s) => circuitRun(lab, s));
    const pick = {
      base: (r) => [r.base],
      prev: (r) => [r.alone.get(r.prev.join('.'))],
      'layer1-alone': (r) => [...r.alone].filter(([k]) => k.startsWith('1.')).map(([, v]) => v),
      layer1: (r) => [r.together[1]],
      layer0: (r) => [r.together[0]],
    }[m[1]];
    return asWritten(range(rs.flatMap(pick)), text);
  }
  return null;
}

/**
 * The claim that the two layer-1 heads cover for each other, by the widget's own rule
 * (ui/trainer-knockout.js: a knock-out matters when it takes the loss on the repeat more than
 * half the way back to a uniform guess): on every seed neither layer-1 head matters alone, and
 * both together do. Throws (assert) when it does not hold.
 */
function coverClaim(lab, assert) {
  const { matters } = require('../../web/src/ui/trainer-knockout.js');
  for (const seed of SEEDS) {
    const r = circuitRun(lab, seed);
    const as = (scoredLoss) => ({ scoredLoss, baseline: { scoredLoss: r.base } });
    for (const head of ['1.0', '1.1']) assert.ok(!matters(as(r.alone.get(head)), r.uniform), `seed ${seed}: layer-1 head ${head} alone says little (${r.alone.get(head)})`);
    assert.ok(matters(as(r.together[1]), r.uniform), `seed ${seed}: both together say much (${r.together[1]})`);
    assert.ok(matters(as(r.alone.get(r.prev.join('.'))), r.uniform), `seed ${seed}: the previous-token head alone matters (${r.alone.get(r.prev.join('.'))})`);
    // K-composition: the previous-token head into each induction head stands out from the other layer-0 head's
    const k = (from, to) => r.composition.find((x) => x.from.join('.') === from && x.to.join('.') === to).k;
    const other = `0.${1 - r.prev[1]}`;
    for (const to of ['1.0', '1.1']) assert.ok(k(r.prev.join('.'), to) > k(other, to), `seed ${seed}: K-composition ${r.prev.join('.')} -> ${to} above ${other}'s`);
  }
}

/**
 * The claim about the previous-token head: on seed 1 its knock-out alone leaves the model worse
 * than a uniform guess, and on every seed the induction heads lose their pattern without it
 * (both layer-1 induction scores below 0.5, from 0.5 or more with every head).
 */
function prevClaim(lab, assert) {
  const first = circuitRun(lab, SEEDS[0]);
  assert.ok(first.alone.get(first.prev.join('.')) > first.uniform, `seed ${SEEDS[0]}: worse than a uniform guess (${first.alone.get(first.prev.join('.'))})`);
  for (const seed of SEEDS) {
    const r = circuitRun(lab, seed);
    const after = r.inductionAfter.get(r.prev.join('.'));
    assert.ok(r.induction.get('1.0') >= 0.5 && r.induction.get('1.1') >= 0.5, `seed ${seed}: two induction heads with every head in`);
    assert.ok(after[2] < 0.5 && after[3] < 0.5, `seed ${seed}: both induction scores fall below one half (${after.slice(2)})`);
  }
}

/**
 * The claim on the two ablations: which costs more varies. On the trainer's own seed (the first)
 * mean ablation costs more than zero ablation for every head alone; on another seed zero costs
 * more for at least one head.
 */
function modesClaim(lab, assert) {
  const first = circuitRun(lab, SEEDS[0]);
  for (const [head, zero] of first.alone) assert.ok(first.meanAlone.get(head) > zero, `seed ${SEEDS[0]}: head ${head} mean ${first.meanAlone.get(head)} above zero ${zero}`);
  const reversed = SEEDS.slice(1).some((seed) => {
    const r = circuitRun(lab, seed);
    return [...r.alone].some(([head, zero]) => zero > r.meanAlone.get(head));
  });
  assert.ok(reversed, 'on another seed zero ablation costs more for some head');
}

module.exports = { SEEDS, STEPS, circuitRun, circuitFact, coverClaim, prevClaim, modesClaim };
