'use strict';
// The cost lab's prediction: what doubling n does to full attention's time. Theory gives
// the answer (n queries each score n keys: n^2 d multiply-adds, log-log slope 2); the
// reader's own measurement is quoted beside it. DOM-free: judges, never measures.

const { fixed, grouped } = require('./format.js');
const { fitCaveat } = require('./cost-fit.js');

const GROWTH_CHOICES = [
  { value: '2', label: 'about 2\u00d7 (slope 1)' },
  { value: '4', label: 'about 4\u00d7 (slope 2)' },
  { value: '8', label: 'about 8\u00d7 (slope 3)' },
];

const WHY = {
  2: 'Your 2\u00d7 would be linear growth, as if each query looked at a fixed number of keys. But every one of the n queries scores all n keys: doubling n doubles both, so 4\u00d7 the dot products (n\u00b2 d multiply-adds).',
  8: 'Your 8\u00d7 would be cubic growth. The work is n\u00b2 d multiply-adds and d stays the same (64) while n grows, so doubling n gives 4\u00d7, not 8\u00d7.',
};

// For a first miss: what to count, not the count.
const HINT = {
  2: 'Count the dot products: each of the n queries is scored against each of the n keys. What happens to that count when n doubles?',
  8: 'The work is the queries times the keys times d, and d stays the same (64) while n grows. Which of the three doubles?',
};

/** The sentence about a measured slope, or '' without one. */
function measuredSentence(fit) {
  if (!fit) return '';
  const caveat = fitCaveat(fit, 'full attention');
  return ` Your browser measured a slope of ${fixed(fit.slope, 2)} over n = ${grouped(fit.from)}\u2013${grouped(fit.to)} (\u00d7${fixed(2 ** fit.slope, 1)} per doubling).${caveat ? ` ${caveat}` : ''}`;
}

/**
 * @param choice '2', '4' or '8'
 * @param fit the measured fit of full attention's times ({ slope, from, to }) or null
 * @returns { ok: true, close: whether the choice is right, message }
 */
function judgeGrowth(choice, fit) {
  const right = choice === '4';
  const message = right
    ? `Right: about 4\u00d7. Every query scores every key, so the work is n\u00b2 d multiply-adds: log-log slope 2.${measuredSentence(fit)}`
    : `Not quite: about 4\u00d7 (slope 2). ${WHY[choice] || ''}${measuredSentence(fit)}`;
  return { ok: true, close: right, message: fit ? message : `${message} Run the measurement to see what your browser does.`, hint: HINT[choice] || HINT[2] };
}

/** What print shows as the answer. */
function growthAnswer(fit) {
  return `about 4\u00d7 per doubling of n (log-log slope 2).${measuredSentence(fit)}`;
}

module.exports = { GROWTH_CHOICES, judgeGrowth, growthAnswer };
