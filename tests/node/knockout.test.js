'use strict';
// The knock-out view's words and figures (web/src/ui/knockout.js) on the shipped model's
// knock-outs (model.ablate, itself checked against a float64 reference in ablation.test.js):
// the top guess before and after read here from the probabilities by our own argmax, the
// judged prediction, the losses as written, the heads a link keeps, and what the view says
// of a knock-out of every head or of a text with nothing to score.

const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const ko = require('../../web/src/ui/knockout.js');

const TEXT = 'a part of the body of a person. a part of the body of a';
let lab, model;
test.before(async () => {
  lab = await loadAttentionLab();
  model = lab.loadModel();
});
test.after(() => model.dispose());

const argmax = (p) => p.reduce((best, x, i) => (x > p[best] ? i : best), 0);
const pct = (p) => `${(100 * p).toFixed(1)}%`;

test('the outcome says whether the top guess changed, with the probabilities the engine gives, for every single head and both modes', () => {
  let changed = 0, kept = 0;
  for (const mode of ko.MODES) {
    for (let l = 0; l < model.options.layers; l++) {
      for (let hd = 0; hd < model.options.heads; hd++) {
        const r = model.ablate(TEXT, { heads: [[l, hd]], mode });
        const before = argmax(Array.from(r.baseline.probabilities)), after = argmax(Array.from(r.probabilities));
        const o = ko.knockoutOutcome(r);
        assert.equal(o.changed, before !== after, `${l}.${hd} ${mode}`);
        const name = (id) => `\u201c${model.tokenizer.pieces[id].replace(/\n/g, '\u21b5')}\u201d`;
        if (o.changed) {
          changed++;
          assert.ok(o.sentence.includes(`${name(after)} (${pct(r.probabilities[after])}) takes the place of ${name(before)}, which falls from ${pct(r.baseline.probabilities[before])} to ${pct(r.probabilities[before])}`), o.sentence);
        } else {
          kept++;
          assert.ok(o.sentence.includes(`stays ${name(before)}: ${pct(r.baseline.probabilities[before])} as the model is, ${pct(r.probabilities[before])} without the head`), o.sentence);
        }
        assert.ok(o.sentence.startsWith(`With layer ${l}, head ${hd} knocked out (${mode})`));
        assert.deepEqual(o.losses.map((x) => [x.before, x.after]), [[r.baseline.loss.toFixed(2), r.loss.toFixed(2)], [r.baseline.repeatedLoss.toFixed(2), r.repeatedLoss.toFixed(2)]]);
        // the change is the difference of the two figures as shown, so a learner who subtracts gets it
        const change = (Math.round(r.loss * 100) - Math.round(r.baseline.loss * 100)) / 100;
        assert.equal(o.losses[0].change, change === 0 ? '0.00' : `${change < 0 ? '\u2212' : '+'}${Math.abs(change).toFixed(2)}`);
        assert.equal(o.note, '');
        // The prediction is judged against the same outcome: the right answer is right, the other gets a hint first.
        const right = ko.judgeKnockout(o.changed ? 'changes' : 'stays', r), wrong = ko.judgeKnockout(o.changed ? 'stays' : 'changes', r);
        assert.equal(right.close, true);
        assert.equal(wrong.close, false);
        assert.ok(wrong.hint && !/stays|changes/.test(wrong.hint), 'the hint does not give the answer away');
        // it gives the top guess's lead over the second, and leans away from the wrong answer: a head can carry the guess, or add little to it
        const [top, next] = r.baseline.next;
        assert.ok(wrong.hint.includes(`by ${(100 * (top.probability - next.probability)).toFixed(1)} points`), wrong.hint);
        assert.ok(!/\u201c/.test(wrong.hint), 'no token named (quoted): the guesses are hidden until the answer');
        assert.match(wrong.hint, o.changed ? /this head supplies: a head that copies an earlier token can carry the guess/ : /this head adds to it: a head can look at a token and still add little/);
        assert.equal(ko.judgeKnockout('maybe', r).ok, false);
      }
    }
  }
  // The shipped model has both kinds on this text: the view is not always one answer.
  assert.ok(changed > 0 && kept > 0, `changed ${changed}, kept ${kept}`);
});

test('the question names the heads and the mode and no token; the export figure holds both runs\' probabilities', () => {
  const q = ko.knockoutQuestion([[0, 2], [1, 3]], 'mean');
  assert.equal(q.question, 'You are knocking out layer 0, head 2 and layer 1, head 3 (mean). With them gone, will the model\u2019s likeliest next token stay the same?');
  assert.deepEqual(q.choices.map((c) => c.value), ['stays', 'changes']);
  assert.equal(ko.headsWords([[1, 3], [0, 2], [1, 0], [1, 1]]), 'layer 0, head 2 and layer 1, heads 0, 1 and 3');
  assert.equal(ko.headsWords([[0, 0], [0, 1], [1, 2]]), 'layer 0, heads 0 and 1 and layer 1, head 2');
  const r = model.ablate(TEXT, { heads: [[1, 1]] });
  const fig = ko.knockoutFigure(r, TEXT);
  assert.deepEqual(fig.colLabels, ['as it is', 'knocked out']);
  const ids = [...new Set([...r.baseline.next, ...r.next].map((g) => g.id))];
  assert.equal(fig.rowLabels.length, ids.length);
  fig.values.forEach((row, k) => assert.deepEqual(row, [r.baseline.probabilities[ids[k]], r.probabilities[ids[k]]]));
  assert.equal(fig.settings.heads, '1.1');
  assert.equal(fig.settings.repeatedLossKnockedOut, r.repeatedLoss);
});

test('every head knocked out is said to be a model with no attention; a one-token text and a text with no repeat say what has no loss', () => {
  const { layers, heads } = model.options;
  const all = [];
  for (let l = 0; l < layers; l++) for (let hd = 0; hd < heads; hd++) all.push([l, hd]);
  assert.match(ko.knockoutLimit(all, layers, heads), /^Every head is knocked out: the model has no attention left/);
  assert.equal(ko.knockoutLimit(all.slice(1), layers, heads), '');
  const none = ko.knockoutOutcome(model.ablate(TEXT, { heads: all }));
  assert.equal(none.losses.length, 2);
  const one = model.ablate('a', { heads: [[0, 0]] });
  assert.equal(one.loss, null);
  const o = ko.knockoutOutcome(one);
  assert.deepEqual(o.losses.map((x) => [x.before, x.after, x.change]), [['\u2013', '\u2013', '\u2013'], ['\u2013', '\u2013', '\u2013']]);
  assert.match(o.note, /one token/);
  const plain = model.ablate('the cat sat on a mat', { heads: [[0, 0]] });
  assert.equal(plain.repeatedLoss, null);
  assert.match(ko.knockoutOutcome(plain).note, /no loss on repeated pairs/);
});

test('a link keeps the heads sorted; what names no head of the model is left out and said, never an error', () => {
  assert.equal(ko.formatHeads([[1, 3], [0, 2]]), '0.2-1.3');
  assert.deepEqual(ko.toggleHead([[1, 3]], 0, 2), [[0, 2], [1, 3]]);
  assert.deepEqual(ko.toggleHead([[0, 2], [1, 3]], 0, 2), [[1, 3]]);
  assert.deepEqual(ko.parseHeads('1.3-0.2-1.3', 2, 4), { heads: [[0, 2], [1, 3]], problem: '' });
  const bad = ko.parseHeads('0.1-2.0-x-0.4', 2, 4);
  assert.deepEqual(bad.heads, [[0, 1]]);
  assert.equal(bad.problem, 'The link asks to knock out \u201c2.0\u201d, \u201cx\u201d, \u201c0.4\u201d, which names no head of this model (2 layers \u00d7 4 heads, counted from 0); they were left out.');
  for (const junk of [undefined, '', 7, '-', '1.1.1', '9'.repeat(5000)]) {
    const r = ko.parseHeads(junk, 2, 4);
    assert.ok(Array.isArray(r.heads) && r.heads.length === 0, String(junk).slice(0, 20));
  }
});
