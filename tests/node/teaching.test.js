'use strict';
// The teaching rules behind the widgets, DOM-free: what the stepper says about a row of
// weights, the learner's sentence limits, and what the softmax demo says about float32.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const { STEPS, describeWeights, describeScores, scalingSentence } = require('../../web/src/ui/steps.js');
const { parseSentence } = require('../../web/src/ui/sentence.js');
const { parseValues, shiftLabel, compare } = require('../../web/src/ui/softmax-compare.js');
const { parseList, judgeRow } = require('../../web/src/ui/row-question.js');
const reference = require('./reference.js');
const { whyText, expOverflows, shiftText } = require('../../web/src/ui/worked-why.js');

let lab, ex;
test.before(async () => {
  lab = await loadAttentionLab();
  ex = lab.examples().timeFlies;
});

const rowOf = (i, options = {}) => Array.from(lab.explainRow(ex.Q, ex.K, ex.V, i, options).weights.data);

test('a row with one clear winner is described as mostly that key', () => {
  const shape = describeWeights(ex.tokens, rowOf(1));
  assert.equal(shape.kind, 'mostly');
  assert.deepEqual(shape.top, [4]);
  assert.equal(shape.text, '"arrow" (0.80)');
});

test('keys that print the same weight are named together as a tie, not as one winner', () => {
  const an = rowOf(3);
  const shape = describeWeights(ex.tokens, an);
  assert.equal(shape.kind, 'tie');
  const tied = ex.tokens.filter((t, j) => an[j].toFixed(2) === Math.max(...an).toFixed(2));
  assert.ok(tied.length >= 2);
  assert.equal(shape.text, `${tied.slice(0, -1).map((t) => `"${t}"`).join(', ')} and "${tied[tied.length - 1]}" tie at ${Math.max(...an).toFixed(2)}`);
  const narration = STEPS[3].narrate({ token: 'an', tokens: ex.tokens, weights: an, output: [0] });
  assert.doesNotMatch(narration, /mostly/);
  assert.deepEqual(describeWeights(['a', 'b', 'c'], [0.45, 0.45, 0.1]).top, [0, 1]);
});

test('a spread-out row lists its largest weights instead of claiming "mostly"', () => {
  const time = rowOf(0);
  assert.ok(Math.max(...time) < 0.5);
  const shape = describeWeights(ex.tokens, time);
  assert.equal(shape.kind, 'spread');
  assert.match(shape.text, new RegExp(`^spread over time ${time[0].toFixed(2)}, `));
  assert.match(STEPS[3].narrate({ token: 'time', tokens: ex.tokens, weights: time, output: [0] }), /no single source/);
  assert.doesNotMatch(STEPS[2].narrate({ token: 'time', tokens: ex.tokens, weights: time, scale: 0.5, maskedCount: 0 }), /most of its attention/);
});

test('two weights within 0.05 of each other are a near-tie', () => {
  const shape = describeWeights(['a', 'b', 'c'], [0.42, 0.39, 0.19]);
  assert.equal(shape.kind, 'near-tie');
  assert.equal(shape.text, '"a" (0.42) and "b" (0.39) nearly tie');
  assert.equal(describeWeights(['a', 'b'], [0.7, 0.3]).kind, 'mostly');
});

test('scores that tie for the best match are all named', () => {
  assert.equal(describeScores(['x', 'y', 'z'], [2, 2, 1]), '"x" and "y" tie for the best match at 2.');
  const flies = Array.from(lab.explainRow(ex.Q, ex.K, ex.V, 1, {}).scores.data);
  assert.equal(describeScores(ex.tokens, flies), '"arrow" matches best.');
});

test('the scaling comparison reads the flies row with and without 1/sqrt(d_k) from the engine', () => {
  const scaled = rowOf(1), unscaled = rowOf(1, { scaling: 'none' });
  assert.equal(scaled[4].toFixed(2), '0.80');
  assert.equal(unscaled[4].toFixed(2), '0.95');
  assert.equal(scalingSentence(ex.tokens, scaled, unscaled),
    'Without the 1/\u221ad\u2096 scale, "arrow" would get 0.95 instead of 0.80: a spikier, more one-hot row.');
});

test('the learner\'s sentence takes 2 to 12 words of at most 40 characters', () => {
  assert.deepEqual(parseSentence('  the cat sat  ').tokens, ['the', 'cat', 'sat']);
  assert.match(parseSentence('hello').error, /2 to 12 words .*your text has 1 word\)/);
  assert.match(parseSentence('a b c d e f g h i j k l m').error, /your text has 13 words\)/);
  assert.match(parseSentence(`ok ${'x'.repeat(41)}`).error, /41 characters long; each word may have at most 40/);
  assert.ok(parseSentence(`ok ${'x'.repeat(40)}`).tokens);
});

test('a typed row of "flies" is judged against the engine, and a miss is explained with the key furthest off', () => {
  const d = lab.explainRow(ex.Q, ex.K, ex.V, 1, {});
  const [Q, K] = [ex.Q.toArray(), ex.K.toArray()];
  const ctx = { d, tokens: ex.tokens, q: Q[1], keys: K };
  const ref = reference.attentionHead([Q[1]], K, K, 0.5);
  assert.deepEqual(parseList('[0, 6 ,0 0; 9]'), [0, 6, 0, 0, 9]);
  assert.deepEqual(ref.scores[0], [0, 6, 0, 0, 9]);
  assert.equal(judgeRow('score', '0, 6, 0, 0, 9', ctx).message, 'Right: the engine gives [0, 6, 0, 0, 9].');
  const miss = judgeRow('score', '0, 6, 0, 0.5, 7', ctx);
  assert.deepEqual([miss.ok, miss.close], [true, false]);
  assert.equal(miss.message, 'Not quite: the engine gives [0, 6, 0, 0, 9]. For "arrow": q\u00b7k = 0\u00d70 + 3\u00d73 + 0\u00d70 + 0\u00d70 = 9: multiply matching entries and add them.');
  assert.equal(judgeRow('score', '0, 6, 0', ctx).ok, false, 'too few numbers: asked again');
  assert.equal(judgeRow('score', 'six', ctx).ok, false);
  const w = ref.weights[0];
  assert.equal(judgeRow('softmax', w.map((x) => x.toFixed(3)).join(', '), ctx).close, true, 'the float64 reference row, to 3 decimals, is right');
  const sumRef = ref.scaled[0].reduce((a, s) => a + Math.exp(s), 0);
  const wrong = judgeRow('softmax', '0.2, 0.2, 0.2, 0.2, 0.2', ctx);
  assert.equal(wrong.close, false);
  const m = wrong.message.match(/which add up to ([\d.]+)\. Each weight is its exponential divided by that sum: for "arrow", ([\d.]+) \u00f7 ([\d.]+) = ([\d.]+)\.$/);
  assert.ok(m, wrong.message);
  assert.ok(Math.abs(Number(m[1]) - sumRef) < 1e-3 && Math.abs(Number(m[2]) - Math.exp(4.5)) < 1e-3, 'the working matches a float64 computation');
  assert.ok(Math.abs(Number(m[4]) - w[4]) < 1e-4);
  // The usual slips are named: the scaling left out, the exponentials not divided by their sum,
  // e to the raw scores, and a row that does not add up to 1. References: float64 in plain JS.
  const unscaledRef = reference.attentionHead([Q[1]], K, K, 1).weights[0];
  const withUnscaled = { ...ctx, plain: lab.explainRow(ex.Q, ex.K, ex.V, 1, { scaling: 'none' }) };
  const list = (xs, digits) => xs.map((x) => x.toFixed(digits)).join(', ');
  assert.match(judgeRow('softmax', list(unscaledRef, 4), withUnscaled).message, /^Not quite: .*\. These are the weights without the scaling: the scores go into the softmax only after multiplying by 0\.5\. Scaled scores/);
  assert.match(judgeRow('softmax', list(ref.scaled[0].map(Math.exp), 2), withUnscaled).message, /\. These are the exponentials, not yet divided by their sum \(113\.10\d*\)\. Scaled/);
  assert.match(judgeRow('softmax', list(ref.scores[0].map(Math.exp), 1), withUnscaled).message, /\. These are e to the power of the scores themselves: scale the scores first \(times 0\.5\)/);
  assert.match(judgeRow('softmax', '0.5, 0.5, 0.5, 0.5, 0.5', withUnscaled).message, /\. Your numbers add up to 2\.5; the weights of a row add up to 1\. Scaled/);
  assert.doesNotMatch(wrong.message, /These are|add up to 1\./, 'a row that adds up to 1 and is no known slip gets the working only');
});

test('the softmax demo refuses what float32 cannot hold and non-numbers, with a sentence', () => {
  assert.match(parseValues('1e39, 1').error, /1e39 is beyond what a float32 can hold/);
  assert.match(parseValues('abc').error, /"abc" is not a number/);
  assert.match(parseValues('').error, /1 to 12 numbers/);
  assert.deepEqual(parseValues('3e38, -1000').values, [3e38, -1000]);
  assert.equal(shiftLabel(-1000), 'e^(x \u2212 (\u22121000))');
  assert.equal(shiftLabel(1002), 'e^(x \u2212 1002)');
});

function demo(values) {
  const keys = values.map((_, j) => values.map((__, c) => (c === j ? 1 : 0)));
  const d = lab.explainRow([values], keys, keys, 0, { scale: 1 });
  const safe = Array.from(lab.softmax(values).data);
  return { d, safe, verdict: compare({ values, expRaw: Array.from(d.expRaw.data), sumRaw: d.sumRaw, naiveWeights: Array.from(d.naiveWeights.data), rowMax: d.rowMax, naiveError: d.naiveError }) };
}

test('the engine\'s naive path is float32: e^100 overflows and e^-1000 underflows, and the demo says so', () => {
  const big = demo([100, 101, 102]);
  assert.equal(big.d.expRaw.get(0), Infinity);
  assert.equal(big.d.sumRaw, Infinity);
  assert.ok(Array.from(big.d.naiveWeights.data).every(Number.isNaN));
  assert.equal(big.verdict.kind, 'overflow');
  assert.match(big.verdict.message, /^Overflow: .*e\^100 .* NaN \(3 of 3 naive weights\)/);
  const tiny = demo([-1000, -1001]);
  assert.equal(tiny.d.sumRaw, 0);
  assert.ok(Array.from(tiny.d.naiveWeights.data).every(Number.isNaN));
  assert.equal(tiny.verdict.kind, 'underflow');
  assert.match(tiny.verdict.message, /0 \u00f7 0 is NaN \(2 of 2/);
  const fine = demo([0, 1, 2]);
  assert.equal(fine.verdict.kind, 'agree');
  assert.equal(fine.verdict.message, 'Here both ways agree: no exponential overflowed or underflowed in float32.');
  assert.equal(demo([80, 81, 82]).verdict.kind, 'agree');
  assert.equal(demo([89, 0]).verdict.kind, 'overflow');
});

test('the worked example says a weight of exactly 0 copies one value alone, and explains the max-shift when e^s overflows', async () => {
  const lab = await loadAttentionLab();
  const { K, V } = lab.examples().worked;
  // The lesson's query: a real blend, and no overflow to explain.
  const plain = lab.explainRow([[1, 0]], K, V, 0);
  assert.match(whyText(plain), /v\u2081 gets weight 0\.6698 and v\u2082 still gets 0\.3302: the output leans to v\u2081 but blends both\.$/);
  assert.equal(expOverflows(plain), false);
  // q = [1e30, 0]: e^s overflows float32, the safe softmax gives weights 1 and 0.
  const huge = lab.explainRow([[1e30, 0]], K, V, 0);
  assert.deepEqual(Array.from(huge.weights.data), [1, 0], "the engine's weights");
  const why = whyText(huge);
  assert.doesNotMatch(why, /still gets|blends both/, why);
  assert.match(why, /v\u2082 gets exactly 0: .* The output is v\u2081 alone, with nothing of v\u2082\.$/);
  assert.equal(expOverflows(huge), true);
  assert.equal(huge.sumRaw, Infinity);
  const shift = shiftText(huge);
  assert.match(shift, /\u221e \/ \u221e is not a number/);
  assert.ok(shift.includes(`e^(s \u2212 max) = [${Array.from(huge.expShifted.data).join(', ')}], sum ${huge.sumShifted}`), shift);
  assert.deepEqual([Array.from(huge.expShifted.data), huge.sumShifted], [[1, 0], 1]);
  // A tiny but nonzero weight is "practically" one value, not a blend.
  const near = lab.explainRow([[12, 0]], K, V, 0);
  assert.ok(near.weights.get(1) > 0 && near.weights.get(1) < 1e-3, String(near.weights.get(1)));
  assert.match(whyText(near), /the output is practically v\u2081\.$/);
});
