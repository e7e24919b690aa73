#!/usr/bin/env node
'use strict';
// Knock-out and composition figures of the trainer's own model (issue 29), for the lesson text
// to quote: for each seed, the default induction run trained until a head's induction score
// passes 0.6, then 200 steps more; then every head knocked out alone, each layer's pair, and the
// composition scores. Usage (after a build): node scripts/ablation-report.js [seed ...]
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
}

main().catch((err) => { console.error(err); process.exit(1); });
