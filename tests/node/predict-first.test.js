'use strict';
// Predict-first that teaches, DOM-free (issue 23): one rule for every prompt (a wrong first
// answer gets a hint and another try, the second the answer and its reason), hints that never
// contain the answer, and the shape quiz's rules.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const { attempt, TRIES, judgeNumber, judgeShape, parseNumber, typed } = require('../../web/src/ui/predict.js');
const { judgeRow } = require('../../web/src/ui/row-question.js');
const { shapeRule, RULE_IDS } = require('../../web/src/ui/shape-rules.js');
const { judge: judgeMistake, LESSONS, rightChoice, scenario, squareExample } = require('../../web/src/ui/mistake-lab.js');
const { judgeDoubling } = require('../../web/src/ui/kv-cache.js');
const { judgeGrowth } = require('../../web/src/ui/cost-predict.js');
const { judgeMaxChange, judgeSkips } = require('../../web/src/ui/online-softmax.js');
const { num } = require('../../web/src/ui/format.js');

let lab, ex;
test.before(async () => {
  lab = await loadAttentionLab();
  ex = lab.examples().timeFlies;
});

test('every prompt: a first wrong answer gets its hint and another try, the second the answer; a typo counts for nothing', () => {
  assert.equal(TRIES, 2);
  const wrong = { ok: true, close: false, message: 'Not quite: it is 4.', hint: 'Count the pairs.' };
  const first = attempt(wrong, 0);
  assert.deepEqual(first, { kind: 'hint', reveal: false, misses: 1, message: 'Not yet. Count the pairs. Try once more.' });
  assert.deepEqual(attempt(wrong, 1), { kind: 'wrong', reveal: true, misses: 2, message: 'Not quite: it is 4.' });
  const typo = attempt({ ok: false, close: false, message: '"x" is not a number' }, 1);
  assert.deepEqual([typo.kind, typo.reveal, typo.misses], ['invalid', false, 1]);
  assert.deepEqual(attempt({ ok: true, close: true, message: 'Right.' }, 1).reveal, true);
  assert.throws(() => attempt({ ok: true, close: false, message: 'Not quite' }, 0), /attempt: a first wrong answer needs a hint/);
});

test('a typed number: the hint says too high or too low and never the engine value; the reveal gives it with the reason', () => {
  const r = judgeNumber('30', 22.63, 2.26, { hint: 'Variances add up.', why: 'Its variance is 512.' });
  assert.equal(r.hint, 'Your guess is too high. Variances add up.');
  assert.doesNotMatch(r.hint, /22/);
  assert.equal(r.message, 'Not quite: you said 30, the engine gives 22.63. Its variance is 512.');
  assert.equal(judgeNumber('10', 22.63, 2.26).hint, 'Your guess is too low.');
  assert.equal(judgeNumber('22', 22.63, 2.26).close, true);
  for (const bad of ['Infinity', 'NaN', '9'.repeat(400), '', '1,5']) assert.equal(judgeNumber(bad, 1, 0.1).ok, false, bad);
  assert.ok(Number.isNaN(parseNumber('1e400')), 'past float64 is not a number the learner meant');
  assert.equal(typed('x'.repeat(5000)).length, 23, 'a pasted page is quoted in 21 characters');
});

test('the shape quiz: a miss gets the rule without the shape, the reveal the rule with it, as for [32, 50, 50]', () => {
  const trace = lab.traceShapes({ batch: 32, n: 50, dModel: 64, heads: 1, dk: 64, dv: 128 });
  assert.deepEqual(trace.steps.map((s) => s.id).filter((id) => !RULE_IDS.includes(id)), [], 'every step the engine traces has a rule');
  const scores = trace.steps.find((s) => s.id === 'scores');
  const rule = shapeRule(scores, 1);
  assert.equal(rule.why, '[batch, n, n] = [32, 50, 50]: Q K\u1d40 keeps the leading axes, sums over the d\u2096 that Q and K\u1d40 share, and leaves one score for each query and each key.');
  const r = judgeShape('32, 50, 64', scores.shape, rule);
  assert.deepEqual([r.ok, r.close], [true, false]);
  assert.equal(r.message, `Not quite: it is [32, 50, 50]. ${rule.why}`);
  for (const step of trace.steps) {
    const { hint, why } = shapeRule(step, 1);
    assert.ok(hint.length > 20, step.id);
    assert.doesNotMatch(hint, /\d\d/, `the hint for ${step.id} names no size`);
    assert.ok(why.includes(`[${step.shape.join(', ')}]`), `the reveal for ${step.id} gives its shape`);
  }
  const eight = lab.traceShapes({ batch: 1, n: 10, dModel: 512, heads: 8 });
  assert.match(shapeRule(eight.steps.find((s) => s.id === 'Q'), 8).why, /^\[batch, h, n, d\u2096\] = \[1, 8, 10, 64\]: .* the head axis moves next to the batch\.$/);
  assert.throws(() => shapeRule({ id: 'nope', shape: [1] }, 1), /shapeRule: no rule for step "nope"/);
  assert.equal(judgeShape('[32 x 50 x 50]', [32, 50, 50]).close, true);
  assert.equal(judgeShape(`${'9'.repeat(30)}, 1`, [32, 50]).ok, false, 'a size past 2^53 is not a shape');
});

test('row questions: the first miss names the key furthest off and the method, without the engine\'s row', () => {
  const d = lab.explainRow(ex.Q, ex.K, ex.V, 1, {});
  const [Q, K] = [ex.Q.toArray(), ex.K.toArray()];
  const ctx = { d, tokens: ex.tokens, q: Q[1], keys: K, plain: lab.explainRow(ex.Q, ex.K, ex.V, 1, { scaling: 'none' }) };
  const score = judgeRow('score', '0, 6, 0, 0.5, 7', ctx);
  assert.equal(score.hint, 'Your score for "arrow" is furthest off: multiply each entry of the query [0, 3, 0, 0] by the matching entry of that key [0, 3, 0, 0], and add the products.');
  const weights = Array.from(d.weights.data);
  const exps = judgeRow('softmax', Array.from(d.expRaw.data, (x) => x.toFixed(2)).join(', '), ctx);
  assert.match(exps.hint, /^These look like the exponentials themselves: each weight is its exponential divided by the sum of all of them\. Your weight for "arrow" is furthest off/);
  for (const r of [score, exps, judgeRow('softmax', '0.2, 0.2, 0.2, 0.2, 0.2', ctx)]) {
    for (const w of weights) assert.ok(!r.hint.includes(num(w, 4)) && !r.hint.includes(num(w, 2)), `the hint gives no weight of the row: ${r.hint}`);
  }
  assert.match(judgeRow('softmax', 'x'.repeat(3000), ctx).message, /^"x{20}\u2026" is not a list of numbers/);
});

test('every other prompt\'s judge gives a hint with a wrong answer, and the hint is not the answer message', () => {
  // Mistakes: every wrong choice of every mistake, on its own inputs, against the engine's cells.
  const example = lab.examples().timeFlies;
  for (const { name } of lab.MISTAKES) {
    const sc = scenario(name, example, squareExample(lab));
    const r = lab.mistake(name, sc.spec);
    const { Q, K, V, causal, validLens, mask } = sc.spec;
    const masked = lab.attention(Q, K, V, { causal, validLens, mask }).masked.toArray();
    const weights = r.correct.weights.toArray();
    const ctx = { m: weights.length, n: weights[0].length, hidden: masked.map((row) => row.map((x) => x === -Infinity)), weights, tokens: sc.tokens };
    const right = rightChoice(name, r.cells, ctx);
    LESSONS[name].choices.forEach((c, i) => {
      if (i === right) return;
      const miss = judgeMistake(name, i, r.cells, ctx);
      assert.ok(miss.hint && miss.hint.length > 20, `${name}, choice ${i}: a hint`);
      assert.ok(!miss.hint.includes(LESSONS[name].choices[right].label) && !/weights change by/.test(miss.hint), `${name}, choice ${i}: the hint does not give the answer`);
    });
  }
  const doubling = judgeDoubling(8, { from: 4, to: 8, small: 40, large: 144, withSmall: 4, withLarge: 8 });
  assert.ok(doubling.hint && !/\d/.test(doubling.hint), doubling.hint);
  for (const choice of ['2', '8']) {
    const g = judgeGrowth(choice, null);
    assert.ok(g.hint && !/4\u00d7|slope 2/.test(g.hint), g.hint);
  }
  const block = { blockMax: 2, maxBefore: 1, maxAfter: 2, rescale: Math.exp(-1), scores: [2, 0.5] };
  assert.ok(judgeMaxChange('same', block).hint);
  const e = { row: 0, blocks: [{ start: 0, scores: [1, 2], skipped: false }, { start: 2, scores: [-Infinity, -Infinity], skipped: true }] };
  const skips = judgeSkips(0, ['a', 'b', 'c', 'd'], e);
  assert.ok(skips.hint && !/\bblock 2\b|skips 1/.test(skips.hint), skips.hint);
});
