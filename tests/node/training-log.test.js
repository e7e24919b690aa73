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

test('an induction head counts as formed at the first reading of 0.5 or more, and stays so', () => {
  const l = new log.TrainingLog();
  l.addLosses(1, new Array(300).fill(3));
  l.addScores(100, heads(0.2, 0.3));
  assert.equal(l.formed, null);
  l.addScores(200, heads(0.3, 0.62));
  l.addScores(300, heads(0.3, 0.4));
  assert.deepEqual(l.formed, { step: 200, layer: 1, head: 0, score: 0.62 });
  assert.deepEqual(l.scoreSeries(), { xs: [100, 200, 300], previous: [0.2, 0.3, 0.3], induction: [0.3, 0.62, 0.4] });
});

test('the CSV has every step and the heads\' scores on the steps they were read', () => {
  const l = new log.TrainingLog();
  l.addLosses(1, [3.5, 3.25, 3]);
  l.addScores(2, heads(0.25, 0.125));
  const lines = l.toCSV().trim().split('\r\n');
  assert.deepEqual(lines, [
    'step,loss,L0H0 previous-token,L0H0 induction,L1H0 previous-token,L1H0 induction',
    '1,3.5,,,,',
    '2,3.25,0.25,0.05,0.1,0.125',
    '3,3,,,,',
  ]);
});

test('the reveal judges both predictions against the run, and waits while it is too early to say', () => {
  const l = new log.TrainingLog();
  l.addLosses(1, [...new Array(180).fill(3.4), ...new Array(120).fill(0.5)]);
  l.addScores(100, heads(0.2, 0.1));
  assert.equal(log.judgeRun(l, { layer: 'layer-1', curve: 'plateau' }, { patience: 1000 }), null);
  l.addScores(200, heads(0.4, 0.7));
  const right = log.judgeRun(l, { layer: 'layer-1', curve: 'plateau' });
  assert.equal(right.layer.ok, true);
  assert.equal(right.curve.ok, true);
  assert.match(right.layer.message, /^Right: the induction head formed in layer 1 \(head 0, induction score 0\.70 at step 200\)\. It needs a layer below it/);
  assert.match(right.curve.message, /after a quick first fall, the loss levelled off at about 3\.40 \(its mean from step 50 to 175\), then fell to 0\.50 within 100 steps, as the induction head formed at step 200/);
  const wrong = log.judgeRun(l, { layer: 'layer-0', curve: 'steady' });
  assert.equal(wrong.layer.ok, false);
  assert.equal(wrong.curve.ok, false);
  assert.match(wrong.layer.message, /^Not this time/);
  // no induction head: after `patience` steps, 'none' and 'early' are right
  const flat = new log.TrainingLog();
  flat.addLosses(1, new Array(400).fill(2));
  flat.addScores(400, heads(0.1, 0.15));
  assert.equal(log.judgeRun(flat, { layer: 'none', curve: 'early' }, { patience: 500 }), null);
  const none = log.judgeRun(flat, { layer: 'none', curve: 'early' }, { patience: 400 });
  assert.equal(none.layer.ok, true);
  assert.match(none.layer.message, /With one layer/);
  assert.equal(none.curve.ok, true);
  assert.deepEqual(log.layerChoices(2).map((c) => c.value), ['layer-0', 'layer-1', 'none']);
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
