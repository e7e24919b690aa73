'use strict';
// <attention-trainer>'s DOM-free parts: the training log (web/src/ui/training-log.js) and the
// training session its runners share (web/src/kit/trainer-runner.js), on the real engine.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const log = require('../../web/src/ui/training-log.js');
const { TrainingSession } = require('../../web/src/kit/trainer-runner.js');

const heads = (prev, ind) => [{ layer: 0, head: 0, previousToken: prev, induction: 0.05 }, { layer: 1, head: 0, previousToken: 0.1, induction: ind }];

test('the log keeps every loss in order and refuses a gap', () => {
  const l = new log.TrainingLog();
  l.addLosses(1, [3, 2.5]);
  l.addLosses(3, new Float64Array([2]));
  assert.equal(l.steps, 3);
  assert.equal(l.lastLoss(), 2);
  assert.throws(() => l.addLosses(5, [1]), /losses from step 5 after step 3/);
});

test('the loss curve is thinned to stretches of equal length, each point the mean of its stretch', () => {
  const l = new log.TrainingLog();
  l.addLosses(1, [1, 2, 3, 4, 5]);
  assert.deepEqual(l.lossSeries(2), { xs: [3, 5], ys: [2, 4.5], per: 3 });
  assert.deepEqual(l.lossSeries(10), { xs: [1, 2, 3, 4, 5], ys: [1, 2, 3, 4, 5], per: 1 });
  assert.deepEqual(l.lossRange(2, 4), { lo: 2, hi: 4, mean: 3 });
});

test('the first induction head is the engine\'s record, kept once; snapshots of the heads do not move it', () => {
  const l = new log.TrainingLog();
  l.addRecord(1, { losses: new Array(200).fill(3), induction: new Array(200).fill(0.2), previousToken: new Array(200).fill(0.3), formed: null });
  l.addScores(100, heads(0.2, 0.7));
  assert.equal(l.formed, null, 'a snapshot over 0.5 is not the engine\'s record');
  l.addRecord(201, { losses: [2.5], induction: [0.55], previousToken: [0.6], formed: { step: 201, layer: 1, head: 0, score: 0.55 } });
  l.addRecord(202, { losses: [2.4], induction: [0.6], previousToken: [0.6], formed: { step: 201, layer: 1, head: 0, score: 0.55 } });
  assert.deepEqual(l.formed, { step: 201, layer: 1, head: 0, score: 0.55 });
  assert.equal(l.last('induction'), 0.6);
  const thin = l.series('induction', 101);
  assert.equal(thin.per, 2);
  assert.equal(thin.xs[thin.xs.length - 1], 202);
  assert.equal(thin.ys[thin.ys.length - 1], (0.55 + 0.6) / 2);
});

test('the CSV has every step with its accuracy and best scores, and every head\'s scores on the steps they were read', () => {
  const l = new log.TrainingLog();
  l.addRecord(1, { losses: [3.5, 3.25, 3], accuracies: [0, 0.25, 0.5], induction: [0.1, 0.2, 0.3], previousToken: [0.4, 0.5, 0.6] });
  l.addScores(2, heads(0.25, 0.125));
  const lines = l.toCSV().trim().split('\r\n');
  assert.deepEqual(lines, [
    'step,loss,accuracy,best induction,best previous-token (first copy),L0H0 previous-token,L0H0 induction,L1H0 previous-token,L1H0 induction',
    '1,3.5,0,0.1,0.4,,,,',
    '2,3.25,0.25,0.2,0.5,0.25,0.05,0.1,0.125',
    '3,3,0.5,0.3,0.6,,,,',
  ]);
});

/** A log of the given losses (one per step), with the engine's fields where given. */
function logOf(losses, extra = {}) {
  const l = new log.TrainingLog();
  l.addRecord(1, { losses, ...extra });
  return l;
}

test('the curve is judged by its shape alone: a plateau then a drop, a steady fall, a drop at once, or a rise', () => {
  const plateau = [...new Array(25).fill(4.2), ...new Array(150).fill(3.3), ...Array.from({ length: 100 }, (_, i) => 3.3 - 0.03 * i), ...new Array(100).fill(0.3)];
  const p = log.curveShape(logOf(plateau));
  assert.equal(p.shape, 'plateau', 'judged before patience once the drop is over');
  assert.ok(Math.abs(p.level - 3.3) < 0.1);
  const steady = Array.from({ length: 1000 }, (_, i) => 4.4 - 2.2 * Math.sqrt(i / 1000));
  assert.equal(log.curveShape(logOf(steady), { patience: 1000 }).shape, 'steady');
  assert.equal(log.curveShape(logOf(steady.slice(0, 999)), { patience: 1000 }), null, 'too early to say');
  const early = Array.from({ length: 1000 }, (_, i) => (i < 60 ? 4.4 - 0.04 * i : 2));
  assert.equal(log.curveShape(logOf(early), { patience: 1000 }).shape, 'early');
  const fast = Array.from({ length: 1000 }, (_, i) => (i < 60 ? 4.4 - 0.07 * i : 0.1));
  assert.equal(log.curveShape(logOf(fast), { patience: 1000 }).shape, 'steady', 'a drop at once that does not level off high');
  const rose = logOf(early, { recentLoss: 3.6, bestLoss: 0.2, bestAt: 200, rising: true, worseThanUniform: true });
  assert.equal(log.curveShape(rose).shape, 'rose');
});

test('the reveal judges the layer by the engine\'s record and the curve by its shape, and says when a head came apart', () => {
  const l = new log.TrainingLog();
  const plateau = [...new Array(25).fill(4.2), ...new Array(150).fill(3.3), ...Array.from({ length: 100 }, (_, i) => 3.3 - 0.03 * i), ...new Array(100).fill(0.3)];
  l.addRecord(1, { losses: plateau.slice(0, 150), induction: new Array(150).fill(0.1) });
  assert.equal(log.judgeRun(l, { layer: 'layer-1', curve: 'plateau' }, { patience: 1000 }), null);
  l.addRecord(151, { losses: plateau.slice(150), induction: new Array(225).fill(0.9), formed: { step: 200, layer: 1, head: 0, score: 0.7 } });
  const right = log.judgeRun(l, { layer: 'layer-1', curve: 'plateau' });
  assert.equal(right.layer.ok, true);
  assert.equal(right.curve.ok, true);
  assert.match(right.layer.message, /^Right: the induction head formed in layer 1 \(head 0, induction score 0\.70 at step 200\)\. It needs a layer below it/);
  assert.match(right.curve.message, /^Right: after a quick first fall, the loss stayed at about 3\.\d\d \(its mean from step 26 to \d+\), then dropped to 0\.\d\d by step \d+\.$/);
  const wrong = log.judgeRun(l, { layer: 'layer-0', curve: 'steady' });
  assert.equal(wrong.layer.ok, false);
  assert.equal(wrong.curve.ok, false);
  assert.match(wrong.layer.message, /^Not this time/);
  // the head came apart and the loss rose: said, never reported as if it stayed
  l.addRecord(376, { losses: new Array(100).fill(3.6), induction: new Array(100).fill(0.14), recentLoss: 3.6, bestLoss: 0.3, bestAt: 350, rising: true, worseThanUniform: true });
  const undone = log.judgeRun(l, { layer: 'layer-1', curve: 'plateau' });
  assert.match(undone.layer.message, /formed in layer 1 .*, then came apart: the best induction score is 0\.14 at step 475\./);
  assert.equal(undone.curve.ok, false);
  assert.match(undone.curve.message, /then rose again to 3\.60: none of the three/);
  // no induction head: the one-layer run's steady fall is judged as steady, not by the missing head
  const one = logOf(Array.from({ length: 1000 }, (_, i) => 4.4 - 2.2 * Math.sqrt(i / 1000)), { induction: new Array(1000).fill(0.1) });
  const v = log.judgeRun(one, { layer: 'none', curve: 'steady' }, { patience: 1000 });
  assert.equal(v.layer.ok, true);
  assert.match(v.layer.message, /With one layer/);
  assert.equal(v.curve.ok, true);
  assert.match(v.curve.message, /^Right: the loss fell from about 4\.27 to 2\.21 \(the mean of its last 25 steps\); it was still falling after the first 100 steps \(3\.75 then\): it fell steadily from the start\.$/);
  assert.equal(log.judgeRun(one, { layer: 'none', curve: 'early' }, { patience: 1000 }).curve.ok, false);
  assert.deepEqual(log.layerChoices(2).map((c) => c.value), ['layer-0', 'layer-1', 'none']);
});

test('a run that got worse than a uniform guess is told in words: its loss against the guess\'s, its best, the head that came apart', () => {
  const l = logOf(new Array(990).fill(1), { induction: new Array(990).fill(0.15), formed: { step: 66, layer: 1, head: 0, score: 0.53 },
    recentLoss: 3.512, bestLoss: 0.2234, bestAt: 182, rising: true, worseThanUniform: true });
  const t = log.worseText(l, { uniformLoss: Math.log(32), lossWindow: 50, options: { vocab: 32, lr: 0.03 } });
  assert.match(t, /^By step 990 the loss averaged 3\.51 nats over the last 50 steps: worse than 3\.47, the loss of a model that gives all 32 tokens the same chance/);
  assert.match(t, /At step 182 it was down to 0\.22\. The induction head that formed at step 66 has come apart: the best induction score is 0\.15\. A learning rate of 0\.03 moves the weights too far at each step\. Reset and choose a smaller one, or continue\. $/);
  assert.doesNotMatch(t, /NaN|Infinity|undefined/);
  // Just past ln 32 = 3.4657 both round to 3.47: the text shows as many decimals as tell them apart.
  const close = logOf(new Array(981).fill(1), { recentLoss: 3.4660, bestLoss: 0.2, bestAt: 150, rising: true, worseThanUniform: true });
  assert.match(log.worseText(close, { uniformLoss: Math.log(32), lossWindow: 50, options: { vocab: 32, lr: 0.03 } }),
    /^By step 981 the loss averaged 3\.4660 nats over the last 50 steps: worse than 3\.4657, /);
});

test('the seed box takes any number for the engine to judge, and says what is wrong with text', () => {
  assert.deepEqual(log.parseSeed(' 42 '), { ok: true, value: 42 });
  assert.deepEqual(log.parseSeed('-5'), { ok: true, value: -5 });
  assert.deepEqual(log.parseSeed('99999999999999999999'), { ok: true, value: 1e20 });
  assert.equal(log.parseSeed('').ok, false);
  assert.match(log.parseSeed('').message, /type a seed/);
  assert.match(log.parseSeed('seven').message, /“seven” is not a number/);
  assert.match(log.parseSeed('x'.repeat(100)).message, /“x{24}…” is not a number/);
  assert.equal(log.parseSeed('Infinity').ok, false);
});

test('a diverged run is told in words, never as NaN or Infinity', () => {
  const info = { divergenceLimit: 20.4, uniformLoss: 3.4657, options: { vocab: 32, lr: 10 } };
  const texts = [NaN, Infinity, 1234.5, 5e7].map((loss) => log.divergenceText({ step: 7, loss }, info));
  for (const t of texts) {
    assert.doesNotMatch(t, /NaN|Infinity/);
    assert.match(t, /^At step 7 /);
    assert.match(t, /A learning rate of 10 moves every weight too far/);
  }
  assert.match(texts[0], /stopped being a number/);
  assert.match(texts[2], /reached 1234\.5 nats, past the limit of 20\.4 \(guessing among the 32 tokens at random scores 3\.47\)/);
  assert.match(texts[3], /reached 5\.0e\+7 nats/);
});

test('steps per second come from the last few seconds of reports', () => {
  assert.equal(log.stepsPerSecond([{ at: 0, step: 0 }]), null);
  assert.equal(log.stepsPerSecond([{ at: 0, step: 0 }, { at: 5000, step: 100 }, { at: 6000, step: 200 }, { at: 7000, step: 400 }]), 150);
});

test('a training session runs within its time budget, its losses continue step by step, and its snapshot fits the model', async () => {
  const lab = await loadAttentionLab();
  const session = new TrainingSession(lab, { task: 'induction', seed: 3, batch: 8 });
  try {
    const info = session.info();
    assert.equal(info.example.length, info.options.seqLen);
    assert.equal(info.uniformLoss, Math.log(32));
    const a = session.run(30, 1000);
    const b = session.run(30, 2);
    assert.equal(a.first, 1);
    assert.equal(b.first, a.step + 1);
    assert.ok(b.losses.length <= 2 && b.losses.length >= 1);
    assert.equal(a.losses.length, a.step);
    const snap = session.snapshot();
    assert.equal(snap.step, b.step);
    assert.equal(snap.scores.length, info.options.layers * info.options.heads);
    assert.equal(snap.patterns.length, info.options.layers * info.options.heads * info.options.seqLen ** 2);
    // the same seed trains the same losses on another session
    const again = new TrainingSession(lab, { task: 'induction', seed: 3, batch: 8 });
    const c = again.run(1e9, a.step + b.losses.length);
    assert.deepEqual(Array.from(c.losses), [...a.losses, ...b.losses]);
    again.dispose();
  } finally {
    session.dispose();
  }
  assert.equal(lab.memory().handles, 0);
});

test('the engine marks the first induction head at the step its score crosses, however the run is cut: seed 1 at step 192', async () => {
  const lab = await loadAttentionLab();
  // the independent reading: headScores() after every single step
  const polled = lab.createTrainer({ seed: 1 });
  let crossing = null, recorded = [];
  try {
    while (!crossing && polled.steps < 400) {
      const r = polled.step(1);
      recorded.push(r.induction[0]);
      const best = polled.headScores().reduce((a, b) => (b.induction > a.induction ? b : a));
      assert.equal(r.induction[0], best.induction, 'the record is what headScores() reads after the step');
      if (best.induction >= polled.formedThreshold) crossing = { step: polled.steps, layer: best.layer, head: best.head, score: best.induction };
    }
    assert.deepEqual(polled.formed, crossing);
  } finally {
    polled.dispose();
  }
  assert.equal(crossing.step, 192);
  assert.equal(crossing.layer, 1);
  assert.equal(log.FORMED, lab.createTrainer({ seed: 1 }).formedThreshold, 'the widget\'s threshold is the engine\'s');
  // the widget's session, sliced by time budgets as a slow or fast machine would: the same step
  for (const budget of [0, 3, 1e9]) {
    const session = new TrainingSession(lab, { seed: 1 });
    const l = new log.TrainingLog();
    try {
      while (!l.formed && l.steps < 400) l.addRecord(l.steps + 1, session.run(budget, 400 - l.steps));
      assert.deepEqual(l.formed, crossing, `a budget of ${budget} ms a slice`);
      assert.deepEqual(l.induction.slice(0, recorded.length), recorded);
    } finally {
      session.dispose();
    }
  }
});

test('a session\'s run ends at the engine call in which the head formed, so the widget hears of it at once; later runs fill their budget', async () => {
  const lab = await loadAttentionLab();
  const session = new TrainingSession(lab, { seed: 1 });
  try {
    // A budget no machine reaches and room for 1000 steps: only the head ends the run.
    const a = session.run(1e9, 1000);
    assert.deepEqual(a.formed, { step: 192, layer: 1, head: 1, score: a.formed.score });
    assert.ok(a.step >= 192 && a.step < 1000, `the run ended at step ${a.step}`);
    assert.equal(a.losses.length, a.step);
    const b = session.run(1e9, 40);
    assert.equal(b.first, a.step + 1);
    assert.equal(b.losses.length, 40, 'with the head formed a run takes every step its budget allows');
  } finally {
    session.dispose();
  }
  assert.equal(lab.memory().handles, 0);
});

test('the trainer\'s charts (web/src/ui/trainer-charts.js) draw the engine\'s record: the formed step marked, the score series per step, the copy task\'s accuracy instead', async () => {
  const { trainerCharts } = require('../../web/src/ui/trainer-charts.js');
  const lab = await loadAttentionLab();
  const t = lab.createTrainer({ seed: 1 });
  try {
    const l = new log.TrainingLog();
    const r = t.step(250);
    l.addRecord(1, r);
    assert.ok(t.formed, 'seed 1 forms an induction head within 250 steps');
    const [loss, score] = trainerCharts(l, { uniformLoss: Math.log(32), recordsHeads: true }, { maxSteps: 1500, logScale: false });
    assert.deepEqual(loss.marks, [{ x: t.formed.step, label: `induction head, step ${t.formed.step}` }]);
    assert.equal(loss.xMax, 1500);
    assert.equal(loss.yMax, Math.ceil(Math.max(...r.losses)));
    assert.equal(loss.series[0].ys.length, 250);  // 250 steps fit in 300 points: one a step
    assert.equal(loss.series[0].ys[249], r.losses[249]);
    assert.deepEqual(score.series.map((s) => s.ys[249]), [r.induction[249], r.previousToken[249]]);
    assert.deepEqual(score.marks, [{ x: t.formed.step, label: `induction head, step ${t.formed.step}`, low: true }]);
    assert.equal(score.guides[0].y, log.FORMED);
    const [logLoss] = trainerCharts(l, { uniformLoss: Math.log(32), recordsHeads: true }, { maxSteps: 100, logScale: true });
    assert.equal(logLoss.yLog, true);
    assert.equal(logLoss.xMax, 250, 'the axis grows past the run\'s length');
    const copy = new log.TrainingLog();
    const c = lab.createTrainer({ task: 'copy', seed: 2 });
    try {
      copy.addRecord(1, c.step(20));
      const [, acc] = trainerCharts(copy, { uniformLoss: Math.log(32), recordsHeads: false }, { maxSteps: 1500, logScale: false });
      assert.equal(acc.title, 'How often the answer is right');
      assert.equal(acc.series[0].ys[19], copy.accuracies[19]);
      assert.match(acc.desc, new RegExp(`got ${Math.round(100 * copy.accuracies[19])}% of the answer`));
    } finally {
      c.dispose();
    }
  } finally {
    t.dispose();
  }
});
