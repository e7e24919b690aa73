#!/usr/bin/env node
'use strict';
// Knock-out and composition figures of the trainer's own model (issue 29), for the lesson text
// to quote: for each seed, the default induction run trained until a head's induction score
// passes 0.6, then 200 steps more; then every head knocked out alone, each layer's pair, and the
// composition scores; then the CPU time of knocking a head out of the shipped model.
// Usage (after a build): node scripts/ablation-report.js [seed ...]
const { loadAttentionLab } = require('../index.js');

const f = (x) => (x === null ? '-' : x.toFixed(3));

async function main() {
  const lab = await loadAttentionLab();
  const seeds = process.argv.slice(2).map(Number);
  for (const seed of seeds.length ? seeds : [1, 2, 6]) {
    const t = lab.createTrainer({ seed });
    let at = 0;
    while (at < 20000) {
      const r = t.step(50);
      at = r.step;
      if (t.headScores().some((h) => h.induction > 0.6)) break;
    }
    t.step(200);
    const scores = t.headScores();
    const { heads, layers } = t.options;
    console.log(`seed ${seed}: trained ${t.steps} steps; evaluation loss on the repeats ${f(t.evaluate().loss)} nats`);
    console.log('  head   prev-token  induction  | zero: loss on repeats (all)   induction scores after | mean: loss on repeats');
    const sets = scores.map((h) => [[h.layer, h.head]]);
    for (let l = 0; l < layers; l++) sets.push(Array.from({ length: heads }, (_, h) => [l, h]));
    for (const set of sets) {
      const z = t.ablate({ heads: set, mode: 'zero' }), m = t.ablate({ heads: set, mode: 'mean' });
      const name = set.map(([l, h]) => `${l}.${h}`).join('+');
      const own = set.length === 1 ? scores.find((h) => h.layer === set[0][0] && h.head === set[0][1]) : null;
      console.log(`  ${name.padEnd(7)} ${own ? f(own.previousToken).padStart(9) : ''.padStart(9)}  ${own ? f(own.induction).padStart(9) : ''.padStart(9)}  | ${f(z.scoredLoss)} (${f(z.loss)})`
        + `   [${Array.from(z.induction, f).join(' ')}] | ${f(m.scoredLoss)}`);
    }
    const c = t.composition();
    const top = [...c.composition].sort((a, b) => b.k - a.k);
    console.log('  K-composition, largest first: ' + top.map((e) => `${e.from.join('.')}->${e.to.join('.')} ${f(e.k)}`).join(', '));
    console.log('  Q: ' + c.composition.map((e) => `${e.from.join('.')}->${e.to.join('.')} ${f(e.q)}`).join(', '));
    console.log('  V: ' + c.composition.map((e) => `${e.from.join('.')}->${e.to.join('.')} ${f(e.v)}`).join(', '));
    console.log('  copying: ' + c.copying.map((h) => `${h.layer}.${h.head} ${f(h.score)}`).join(', '));
    t.dispose();
  }
  // Speed (CPU time, median of 5 rounds): one head of the shipped model knocked out on a
  // 64-token text (the model read twice: as it is and with the head out), beside one reading.
  const m = lab.loadModel();
  let text = 'a part of the body of a person. a part of the body of a person. ';
  while (m.tokenize(text).length < 64) text += 'the cat sat on the mat. ';
  text = text.slice(0, m.tokenize(text)[63].end);
  const cpu = (f, reps) => {
    for (let i = 0; i < 3; i++) f();
    const times = [];
    for (let r = 0; r < 5; r++) {
      const a = process.cpuUsage();
      for (let i = 0; i < reps; i++) f();
      const d = process.cpuUsage(a);
      times.push((d.user + d.system) / 1000 / reps);
    }
    return times.sort((x, y) => x - y)[2];
  };
  const read = cpu(() => m.predict(text), 20), zero = cpu(() => m.ablate(text, { heads: [[1, 2]] }), 20);
  const mean = cpu(() => m.ablate(text, { heads: [[1, 2]], mode: 'mean' }), 20), comp = cpu(() => m.composition(), 5);
  console.log(`shipped model, ${m.tokenize(text).length} tokens, ms of CPU per call: predict ${read.toFixed(2)}; ablate one head, zero ${zero.toFixed(2)} `
    + `(x${(zero / read).toFixed(2)}), mean over the text ${mean.toFixed(2)}; composition() ${comp.toFixed(1)}`);
}

main().catch((err) => { console.error(err); process.exit(1); });
