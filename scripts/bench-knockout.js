'use strict';
// The knock-out benchmark row (issue 29's performance): one head of the shipped model knocked
// out on a 64-token text, as <model-attention model>'s knock-out view asks for it on a click
// (model.ablate, zero and mean; the engine reads the text twice: as it is and without the
// head), beside one plain reading (model.predict). Target: under 20 ms per knock-out in node.
// CPU time (user + system), which waiting for a core does not inflate: median of 7 rounds,
// the three calls interleaved. Printed by `npm run bench`; alone: node scripts/bench-knockout.js

const { median } = require('./bench-common.js');

/** A text of exactly `n` tokens of the shipped model: a repeated phrase, then more words. */
function textOf(model, n) {
  let text = 'a part of the body of a person. a part of the body of a person. ';
  while (model.tokenize(text).length < n) text += 'the cat sat on the mat. ';
  return text.slice(0, model.tokenize(text)[n - 1].end);
}

function knockoutRows(lab) {
  const model = lab.loadModel();
  const text = textOf(model, 64);
  const calls = {
    predict: () => model.predict(text),
    zero: () => model.ablate(text, { heads: [[1, 1]] }),
    mean: () => model.ablate(text, { heads: [[1, 1]], mode: 'mean' }),
  };
  const times = { predict: [], zero: [], mean: [] };
  for (const f of Object.values(calls)) for (let i = 0; i < 3; i++) f();  // warm
  const reps = 20;
  for (let round = 0; round < 7; round++) {
    for (const [k, f] of Object.entries(calls)) {
      const t0 = process.cpuUsage();
      for (let i = 0; i < reps; i++) f();
      const t = process.cpuUsage(t0);
      times[k].push((t.user + t.system) / 1000 / reps);
    }
  }
  const [p, z, m] = ['predict', 'zero', 'mean'].map((k) => median(times[k]));
  console.log(`\nknock-out, shipped model, ${model.tokenize(text).length} tokens, ms of CPU per call (median of 7 rounds of ${reps}, interleaved):`);
  console.log(`  predict ${p.toFixed(2)}; ablate one head, zero ${z.toFixed(2)} (x${(z / p).toFixed(2)} of predict), mean ${m.toFixed(2)} (x${(m / p).toFixed(2)}) (target: under 20 ms)`);
  model.dispose();
}

module.exports = { knockoutRows, textOf };

if (require.main === module) {
  require('../index.js').loadAttentionLab().then(knockoutRows).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
