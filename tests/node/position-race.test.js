'use strict';
// <position-race>'s DOM-free parts (web/src/ui/position-race.js) and its runner's core
// (web/src/kit/race-runner.js) on the real engine: the five schemes trained in turns as the
// widget trains them, the formation steps read from the engine's per-step records against the
// engine's own mark (Trainer.formed) and against one uninterrupted run, the learned table's
// refusal past its end, and the prediction's rules.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const race = require('../../web/src/ui/position-race.js');
const { RaceCore, PageRace } = require('../../web/src/kit/race-runner.js');
const { TrainingSession } = require('../../web/src/kit/trainer-runner.js');

// Measured with these settings (lab.TRAINER_DEFAULTS, positions, seed 1), 1000 steps each,
// by one t.step(1000) per scheme and the first step record at or above formedThreshold (0.5).
const MEASURED = {
  learned: { previousToken: 156, induction: 192 },
  sinusoidal: { previousToken: 735, induction: 271 },
  rope: { previousToken: 383, induction: 361 },
  alibi: { previousToken: null, induction: null },
  none: { previousToken: null, induction: null },
};

let lanes, core;
test.before(async () => {
  const lab = await loadAttentionLab();
  core = new RaceCore(TrainingSession, lab, race.SCHEMES.map((s) => race.raceOptions(lab.TRAINER_DEFAULTS, s.value)));
  const info = core.info();
  lanes = race.SCHEMES.map((s, k) => new race.Lane(s.value, info[k].formedThreshold));
  // in turns of a few steps, the lane furthest behind first, as the widget's worker runs them
  for (let t = core.turn(5, race.BUDGET); t; t = core.turn(5, race.BUDGET)) lanes[t.lane].add(t.report);
  lanes.forEach((l, k) => l.setLengths(race.LENGTHS.map((n) => core.lossAt(k, n)), 32));
});
test.after(() => core.dispose());

test('every scheme trains the budget in turns, and the formation steps are the engine\'s', () => {
  for (const [k, l] of lanes.entries()) {
    const t = core.lanes[k].trainer;
    assert.equal(t.options.positions, l.scheme);
    assert.equal(t.options.seed, 1);
    assert.equal(l.steps, race.BUDGET);
    assert.equal(t.steps, race.BUDGET);
    // the engine marks its first induction head itself: the record read here names the same step
    assert.equal(l.formed.induction, t.formed ? t.formed.step : null, l.scheme);
    // and a run in turns forms its heads at the step one uninterrupted run of 1000 did
    assert.deepEqual(l.formed, MEASURED[l.scheme], l.scheme);
  }
  assert.deepEqual(race.ranking(lanes), { learned: '1', sinusoidal: '2', rope: '3', alibi: 'none', none: 'none' });
  // short cells, so the results table fits a phone (review V8, L1): the header says "at step (of 1,000)"
  assert.equal(race.formedText(lanes[0], 'induction'), '192');
  assert.equal(race.formedText(lanes[3], 'induction'), 'none');
  assert.equal(race.formedText(lanes[1], 'previousToken'), '735');
  assert.equal(race.formedText(new race.Lane('rope', 0.5), 'induction'), 'not yet');
});

test('the losses by position are the engine\'s, the learned table refuses past 32, and the mean past 32 decides what still works', async () => {
  const lab = await loadAttentionLab();
  const learned = lanes[0].lengths;
  for (const r of learned) assert.match(r.refused, new RegExp(`^Trainer.lossByPosition: length = ${r.length} is past the learned position table, which has vectors for 32 positions`));
  assert.equal(race.lengthText(lanes[0], 64), 'no vector from 32 on');
  assert.equal(race.lengthText(lanes[0], 64, true), 'refused');
  assert.equal(race.lengthText(lanes[2], 64, true), lanes[2].lengths[0].past.toFixed(2));
  assert.equal(race.lengthText(lanes[2], 64), `${lanes[2].lengths[0].past.toFixed(2)} nats`);
  // the lesson's question: which keeps its loss lowest at 4x the length (RoPE, whose mean is the smallest of the four readable ones)
  const byPast = lanes.slice(1).map((l) => [l.scheme, l.lengths[1].past]).sort((a, b) => a[1] - b[1]);
  assert.deepEqual(race.lowestAt(lanes, 128), { scheme: byPast[0][0], past: byPast[0][1] });
  assert.equal(race.lowestAt(lanes, 128).scheme, 'rope');
  assert.equal(race.lowestAt([new race.Lane('rope', 0.5)], 128), null);
  assert.equal(race.worksAt(lanes[0], 128), 'refused');
  // each lane's reading against a separate model trained the same way (RoPE's, the scheme that differs most by length)
  const t = lab.createTrainer({ ...lab.TRAINER_DEFAULTS, positions: 'rope', seed: 1 });
  try {
    t.step(race.BUDGET);
    for (const [i, length] of race.LENGTHS.entries()) {
      const r = t.lossByPosition({ length });
      assert.deepEqual(lanes[2].lengths[i].loss, r.loss);
      // the mean past the training length, in float64 over the scored positions
      const past = r.loss.slice(32).filter((x) => x !== null);
      assert.ok(Math.abs(lanes[2].lengths[i].past - past.reduce((a, b) => a + b, 0) / past.length) < 1e-12);
    }
  } finally {
    t.dispose();
  }
  const past = Object.fromEntries(lanes.slice(1).map((l) => [l.scheme, l.lengths.map((r) => Number(r.past.toFixed(2)))]));
  assert.deepEqual(past, { sinusoidal: [1.8, 1.95], rope: [0.37, 1.37], alibi: [2.58, 2.74], none: [2.82, 2.87] });
  const means = Object.fromEntries(lanes.slice(1).map((l) => [l.scheme, l.lengths.map((r) => Number(r.mean.toFixed(2)))]));
  assert.deepEqual(means, { sinusoidal: [1.3, 1.73], rope: [0.26, 1.21], alibi: [2.39, 2.66], none: [2.64, 2.8] });
  assert.deepEqual(race.LENGTHS.map((n) => lanes.filter((l) => race.worksAt(l, n) === true).map((l) => l.scheme)), [['rope'], []]);
});

test('the prediction: every scheme placed once, places without a gap, and judged against the race', () => {
  const works = { 64: new Set(), 128: new Set() };
  const place = { learned: '1', sinusoidal: '2', rope: '3', alibi: 'none', none: '' };
  assert.equal(race.predictionProblem({ place, works }), 'Give every scheme a place (or none).');
  assert.equal(race.predictionProblem({ place: { ...place, none: '1' }, works }), 'Two schemes are placed 1st: each place once.');
  assert.match(race.predictionProblem({ place: { ...place, rope: '4', none: 'none' }, works }), /without a gap/);
  const right = { place: { ...place, none: 'none' }, works: { 64: new Set(['rope']), 128: new Set() } };
  assert.equal(race.predictionProblem(right), null);
  const v = race.judgePrediction(right, lanes);
  assert.equal(v.places.ok, true);
  assert.equal(v.places.message, 'Right: the engine\u2019s order: learned table (step 192), sinusoidal (step 271), RoPE (step 361); none in 1,000 steps: ALiBi, no positions.');
  assert.deepEqual(v.lengths.map((x) => x.ok), [true, true]);
  const wrong = race.judgePrediction({ place: { learned: '3', sinusoidal: '2', rope: '1', alibi: '4', none: 'none' }, works: { 64: new Set(['learned', 'alibi']), 128: new Set(['rope']) } }, lanes);
  assert.equal(wrong.places.ok, false);
  assert.match(wrong.places.message, /^2 of 5 placed right: /);
  assert.equal(wrong.lengths[0].message, 'Not quite at 64 tokens: you said learned table, ALiBi; still working (loss from position 32 on under 1 nat): RoPE. Lowest: RoPE, 0.37 nats.');
  assert.match(wrong.lengths[1].message, /still working \(loss from position 32 on under 1 nat\): none\. Lowest: RoPE, 1\.37 nats\.$/);
  assert.equal(wrong.lengths[1].ok, false);
});

test('the charts: five loss curves by step, and the loss at each position with the training length marked', () => {
  const [loss, pos] = race.raceCharts(lanes);
  assert.equal(loss.series.length, 5);
  assert.equal(loss.xMax, race.BUDGET);
  assert.deepEqual(loss.series.map((s) => s.cls), race.CURVES);
  for (const s of loss.series) assert.equal(s.ys.length, loss.xs.length);
  assert.equal(pos.xs.length, 128);
  assert.deepEqual(pos.marks, [{ x: 32, label: 'training length' }]);
  assert.ok(pos.series[0].ys.every((y) => y === null), 'the learned table draws nothing past its end');
  assert.deepEqual(pos.series[2].ys, lanes[2].lengths[1].loss);
  assert.match(pos.desc, /learned table no vector from 32 on, sinusoidal 1\.95 nats, RoPE 1\.37 nats/);
  // the 1-nat line is named in the legend under the chart, not by a label drawn over the curves
  assert.deepEqual(pos.guides, [{ y: race.WORKS_BELOW, label: '' }]);
  assert.equal(race.GUIDE_LEGEND.cls, 'al-guide');
});

test('firstAtOrAbove reads a record from its first step', () => {
  assert.equal(race.firstAtOrAbove([0.1, 0.49, 0.5, 0.9], 0.5, 11), 13);
  assert.equal(race.firstAtOrAbove(new Float64Array([0.1, 0.2]), 0.5, 1), null);
});

test('on the page (no worker) the race trains in turns, then reads each length a task at a time; the learned table refuses', async () => {
  const lab = await loadAttentionLab();
  const runner = new PageRace(lab);
  const infos = await runner.create(race.SCHEMES.map((s) => race.raceOptions(lab.TRAINER_DEFAULTS, s.value)));
  assert.equal(infos.length, 5);
  const steps = [0, 0, 0, 0, 0];
  const done = new Promise((resolve) => {
    runner.onReport = (k, r) => { assert.equal(r.first, steps[k] + 1); steps[k] = r.step; };
    runner.onLengths = resolve;
  });
  runner.train(3, race.LENGTHS);
  const results = await done;
  assert.deepEqual(steps, [3, 3, 3, 3, 3]);
  assert.deepEqual(results.map((r) => r.map((x) => x.length)), race.SCHEMES.map(() => race.LENGTHS));
  assert.match(results[0][0].refused, /^Trainer.lossByPosition: length = 64 is past the learned position table/);
  assert.equal(results[2][1].loss.length, 128);
  runner.stop();
});
