'use strict';
// <attention-trainer>'s knock-out mode and composition view, DOM-free (web/src/ui/trainer-knockout.js):
// the heads a link keeps, the one rule for "matters", the words of a knock-out and of the verdict,
// and the composition grid, on the engine's own results for a trained model.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const ko = require('../../web/src/ui/trainer-knockout.js');

let lab, t, info;
test.before(async () => {
  lab = await loadAttentionLab();
  t = lab.createTrainer({ seed: 1 });
  t.step(400);
  info = { uniformLoss: t.uniformLoss, recordsHeads: t.recordsHeads, options: t.options };
});
test.after(() => t.dispose());

test('a link\'s heads: valid pairs once each, sorted; anything else dropped; toggling adds and removes', () => {
  assert.deepEqual(ko.parseKnocked('1.1-0.1-1.1', 2, 2), [[0, 1], [1, 1]]);
  assert.deepEqual(ko.parseKnocked('2.0-0.2-x-1.-0.0', 2, 2), [[0, 0]]);
  assert.deepEqual(ko.parseKnocked(undefined, 2, 2), []);
  assert.deepEqual(ko.parseKnocked('0.0-'.repeat(10000), 2, 2), [[0, 0]], 'a long link is read no further than 256 pieces');
  assert.equal(ko.formatKnocked([[1, 0], [0, 1]]), '0.1-1.0');
  assert.deepEqual(ko.parseKnocked(ko.formatKnocked([[1, 1], [0, 0]]), 2, 2), [[0, 0], [1, 1]]);
  let set = ko.toggle([], 1, 1);
  set = ko.toggle(set, 0, 1);
  assert.deepEqual(set, [[0, 1], [1, 1]]);
  assert.deepEqual(ko.toggle(set, 1, 1), [[0, 1]]);
});

test('"matters": more than half the way from the trained loss back to a uniform guess', () => {
  const r = (scored, base) => ({ scoredLoss: scored, baseline: { scoredLoss: base } });
  assert.equal(ko.matters(r(1.9, 0.1), 3.5), true);
  assert.equal(ko.matters(r(1.7, 0.1), 3.5), false);
  assert.equal(ko.matters(r(7, 0.1), 3.5), true, 'worse than uniform matters');
  assert.equal(ko.matters(r(4.5, 4.55), 3.47), false, 'an untrained model, worse than uniform, has nothing to lose');
  assert.equal(ko.matters(r(9, 4.55), 3.47), false);
  const words = ko.knockoutText({ heads: [[0, 1]], mode: 'zero', scoredLoss: 4.51, loss: 4.5, baseline: { scoredLoss: 4.55 } }, { uniformLoss: 3.47, recordsHeads: false });
  assert.match(words.loss, /: the model does no better than a uniform guess yet, so no head has anything to lose\.$/);
});

test('a knock-out in words: the engine\'s losses and the induction scores after, the knocked heads named', () => {
  const r = t.ablate({ heads: [[1, 0], [1, 1]], mode: 'zero' });
  const words = ko.knockoutText(r, info);
  // losses under 0.1 with three decimals (a trained model's 0.004 is not 0.00); past a uniform guess said so
  const shown = (x) => x.toFixed(x < 0.1 ? 3 : 2);
  const verdict = r.scoredLoss > t.uniformLoss ? 'worse than a uniform guess' : `${ko.matters(r, t.uniformLoss) ? 'more' : 'less'} than half the way back to a uniform guess`;
  assert.equal(words.loss, `With layer 1 head 0 and layer 1 head 1 knocked out, the loss on the repeat is ${shown(r.scoredLoss)} nats, against ${shown(r.baseline.scoredLoss)} with every head `
    + `and ${t.uniformLoss.toFixed(2)} for a uniform guess: ${verdict}.`);
  assert.ok(r.baseline.scoredLoss < 0.1 && r.scoredLoss > t.uniformLoss, 'this run shows both rules');
  assert.deepEqual(words.scores.map((s) => [s.name, s.induction, s.knocked]),
    Array.from(r.induction, (x, i) => [`layer ${i >> 1} head ${i & 1}`, x, i >= 2]));
  const none = ko.knockoutText(t.ablate({ heads: [], mode: 'zero' }), info);
  assert.match(none.loss, /^With every head the loss on the repeat is \d\.\d\d\d? nats/);
  const mean = ko.knockoutText(t.ablate({ heads: [[0, 1]], mode: 'mean' }), { ...info, recordsHeads: false });
  assert.match(mean.loss, /^With layer 0 head 1 replaced by its mean output, the loss on the answer is/);
  const both = ko.knockoutText(t.ablate({ heads: [[1, 0], [1, 1]], mode: 'mean' }), info);
  assert.match(both.loss, /^With layer 1 head 0 and layer 1 head 1 replaced by their mean outputs, /);
  assert.equal(mean.scores, null);
});

test('the verdict: right when the picked heads are the ones that matter alone; a layer whose heads each say little and together much covers for itself', () => {
  const singles = [[0, 0], [0, 1], [1, 0], [1, 1]].map((p) => t.ablate({ heads: [p], mode: 'zero' }));
  const layers = [0, 1].map((l) => t.ablate({ heads: [[l, 0], [l, 1]], mode: 'zero' }));
  const needed = singles.filter((r) => ko.matters(r, t.uniformLoss)).map((r) => r.heads[0]);
  assert.ok(needed.length >= 1, 'some head matters alone');
  const right = ko.judgeKnockout(needed, singles, layers, t.uniformLoss);
  assert.equal(right.ok, true);
  assert.match(right.lines[0], /^Right: you picked /);
  const wrong = ko.judgeKnockout([[1, 0]], singles, layers, t.uniformLoss);
  assert.equal(wrong.ok, false);
  assert.match(wrong.lines[0], /^Not quite: you picked layer 1 head 0\. Knocked out alone, /);
  const shown = (x) => x.toFixed(x < 0.1 ? 3 : 2);
  assert.equal(wrong.lines[1], `Alone: ${singles.map((r) => `${ko.headName(r.heads[0])} ${shown(r.scoredLoss)}`).join('; ')} (every head: ${shown(singles[0].baseline.scoredLoss)}).`);
  const layer1Covers = singles.slice(2).every((r) => !ko.matters(r, t.uniformLoss)) && ko.matters(layers[1], t.uniformLoss);
  assert.equal(right.cover.some((line) => line.startsWith('Layer 1\u2019s heads cover for each other')), layer1Covers);
  // a made-up run: each alone little, together much
  const fake = (heads, scoredLoss) => ({ heads, scoredLoss, baseline: { scoredLoss: 0.01 } });
  const v = ko.judgeKnockout([], [fake([[0, 0]], 0.1), fake([[0, 1]], 0.2)], [fake([[0, 0], [0, 1]], 4)], 3.47);
  assert.equal(v.ok, true, 'none is an answer, and here it is right');
  assert.deepEqual(v.cover, ['Layer 0\u2019s heads cover for each other: knocked out one at a time they take the loss only to 0.10 and 0.20, but both together take it to 4.00. '
    + 'A single knock-out can say a head does little when another head does the same job.']);
});

test('the composition grid: earlier heads in rows, later heads in columns, the engine\'s scores in place, impossible pairs masked', () => {
  const c = t.composition();
  const g = ko.compositionGrid(c, 2, 2, 'k');
  assert.deepEqual(g.rowLabels, ['0.0', '0.1']);
  assert.deepEqual(g.colLabels, ['1.0', '1.1']);
  for (const e of c.composition) assert.equal(g.weights[e.from[1]][e.to[1]], e.k);
  assert.deepEqual(g.masked, [[false, false], [false, false]]);
  // three layers: a layer-1 head cannot feed another layer-1 head
  const fake = { composition: [], copying: [] };
  for (const [a, b] of [[0, 1], [0, 2], [1, 2]]) fake.composition.push({ from: [a, 0], to: [b, 0], q: 0.1, k: 0.2 + a + b, v: null });
  const g3 = ko.compositionGrid(fake, 3, 1, 'k');
  assert.deepEqual(g3.rowLabels, ['0.0', '1.0']);
  assert.deepEqual(g3.colLabels, ['1.0', '2.0']);
  assert.deepEqual(g3.masked, [[false, false], [true, false]]);
  assert.deepEqual(ko.compositionGrid(fake, 3, 1, 'v').masked, [[true, true], [true, true]], 'a null score is no score');
  // the colours run over [0, the largest score]: the strongest pair is the top of the scale
  const scale = ko.compositionScale(g.weights);
  const colors = require('../../web/src/ui/colors.js');
  const max = Math.max(...g.weights.flat());
  assert.equal(scale.color(max), colors.color(1));
  assert.equal(scale.color(max / 2), colors.color(0.5));
  assert.equal(scale.high, max.toFixed(2));
  assert.equal(ko.compositionScale([[]]).high, '1.00', 'no score: the plain [0, 1]');
  // exported as the view draws it: the stretched colours and the legend's top value
  const { toSVG } = require('../../web/src/ui/export.js');
  const svg = toSVG({ kind: 'heatmap', title: 'How the heads compose', caption: '', settings: {}, ...g, values: g.weights, showNumbers: true, rowWord: 'earlier head', colWord: 'later head', scale });
  assert.ok(svg.includes(`>${max.toFixed(2)}<`), 'the legend ends at the largest score');
  assert.ok(svg.includes(colors.color(1)), 'the strongest pair has the top colour');
  // every pair equal to the top at two decimals is named
  const best = Math.max(...c.composition.map((e) => e.k));
  const tops = c.composition.filter((e) => e.k.toFixed(2) === best.toFixed(2)).map((e) => `layer ${e.from[0]} head ${e.from[1]} \u2192 layer ${e.to[0]} head ${e.to[1]}`);
  assert.match(ko.strongestText(c, 'k'), new RegExp(`^The strongest K-composition: ${tops.join(' and ')}, ${best.toFixed(2)} \\(the other pairs`));
  // beside the same heads untrained (a fresh trainer of the same seed is the model at step 0)
  const fresh = lab.createTrainer({ seed: 1 });
  const untrained = fresh.composition().composition;
  fresh.dispose();
  const chance = untrained.map((e) => e.k);
  const withChance = ko.strongestText({ ...c, untrained }, 'k');
  if (best > Math.max(...chance)) assert.match(withChance, new RegExp(`untrained, the same heads scored ${Math.min(...chance).toFixed(2)} to ${Math.max(...chance).toFixed(2)}\\)`));
  // a kind where no trained pair rises above the untrained scores says so
  const flat = { composition: c.composition.map((e) => ({ ...e, q: 0.1 })), untrained: untrained.map((e) => ({ ...e, q: 0.2 })) };
  assert.equal(ko.strongestText(flat, 'q'), 'No pair stands out in Q-composition: the strongest, 0.10, is within what the same heads scored untrained (0.20), as unrelated matrices do.');
  assert.equal(ko.copyingText(c), `Copying scores (from \u22121 to 1; near 1: attending to a token raises that same token\u2019s logit): ${c.copying.map((x) => `layer ${x.layer} head ${x.head}: ${x.score.toFixed(3)}`).join('; ')}.`);
});

test('the knock-outs as CSV: one row each, the engine\'s numbers in full', () => {
  const a = t.ablate({ heads: [[0, 1]], mode: 'zero' }), b = t.ablate({ heads: [[1, 0], [1, 1]], mode: 'mean' });
  const rows = ko.knockoutCSV([{ ...a, step: 400 }, { ...b, step: 400 }], 2).trim().split('\r\n').map((l) => l.split(','));
  assert.equal(rows[0].length, 11);
  assert.deepEqual(rows[0].slice(7), ['induction after L0H0', 'induction after L0H1', 'induction after L1H0', 'induction after L1H1']);
  assert.deepEqual(rows[1].slice(0, 3), ['400', '0.1', 'zero']);
  assert.equal(Number(rows[1][3]), a.scoredLoss);
  assert.deepEqual(rows[2].slice(1, 3), ['1.0 1.1', 'mean']);
  assert.equal(Number(rows[2][10]), b.induction[3]);
});
