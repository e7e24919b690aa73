'use strict';
// Lesson 6's "Test the circuit" against the engine: every data-fact="circuit..." number of the
// page is the engine's, from the runs tests/node/circuit-facts.js describes (the trainer's
// defaults, seeds 1 to 3, 1,500 steps, zero ablation), and the claim that the two layer-1 heads
// cover for each other holds by the widget's own rule. The browser facts test reads the same
// facts from the built page; this one needs no build of the site.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { loadAttentionLab } = require('./lab.js');
const { circuitFact, coverClaim, prevClaim, modesClaim, circuitRun, SEEDS } = require('./circuit-facts.js');

const html = fs.readFileSync(path.resolve(__dirname, '..', '..', 'web', 'site', 'lesson-6.html'), 'utf8');
const facts = Array.from(html.matchAll(/<span data-fact="(circuit[^"]*)">([^<]*)<\/span>/g), (m) => ({ fact: m[1], text: m[2] }));
const numbers = (s) => s.match(/\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?/g).map((x) => Number(x.replace(/,/g, '')));

let lab;
test.before(async () => { lab = await loadAttentionLab(); });

test('every knock-out and composition number in lesson 6 is the engine\'s', () => {
  assert.ok(facts.length >= 15, `the section states its numbers as facts (${facts.length})`);
  for (const { fact, text } of facts) {
    const value = circuitFact(lab, fact, text);
    assert.ok(value, `${fact}: a fact circuit-facts.js knows`);
    assert.deepEqual(numbers(text), value, `"${text}" states ${fact}`);
  }
});

test('the two layer-1 heads cover for each other: one knocked out says little, both say much, on every seed', () => {
  assert.match(html, /data-claim="knockout-cover"/);
  coverClaim(lab, assert);
  // and the claim's check can fail: a made-up run where one layer-1 head carries the loss alone is refused
  const r = circuitRun(lab, SEEDS[0]);
  const saved = r.alone.get('1.0');
  r.alone.set('1.0', r.together[1]);
  try {
    assert.throws(() => coverClaim(lab, assert), /layer-1 head 1\.0 alone says little/);
  } finally {
    r.alone.set('1.0', saved);
  }
});

test('without the previous-token head the induction heads lose their pattern, and on seed 1 the model does worse than a uniform guess', () => {
  assert.match(html, /data-claim="knockout-prev"/);
  prevClaim(lab, assert);
});

test('which ablation costs more varies: on seed 1 mean costs more for every head, on another seed zero costs more for one', () => {
  assert.match(html, /data-claim="ablation-modes"/);
  modesClaim(lab, assert);
});

test('the figures are the widget\'s: the runner\'s session gives the same knock-out as the trainer for the same seed and steps', () => {
  const { TrainingSession } = require('../../web/src/kit/trainer-runner.js');
  const s = new TrainingSession(lab, { seed: 1 });
  try {
    s.trainer.step(300);
    const a = s.ablate({ heads: [[1, 0], [1, 1]], mode: 'zero' });
    const t = lab.createTrainer({ seed: 1 });
    t.step(300);
    const b = t.ablate({ heads: [[1, 0], [1, 1]], mode: 'zero' });
    t.dispose();
    assert.equal(a.scoredLoss, b.scoredLoss);
    assert.equal(a.step, 300);
    assert.deepEqual(Array.from(a.induction), Array.from(b.induction));
    // plain data a worker can post: no Tensor, no function
    assert.doesNotThrow(() => structuredClone(a));
    assert.doesNotThrow(() => structuredClone(s.composition()));
  } finally {
    s.dispose();
  }
});
