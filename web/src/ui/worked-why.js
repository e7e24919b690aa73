'use strict';
// The worked example's sentences without the DOM: why the weights came out as they did, and
// what the max-shift does when e^s overflows. They read the engine's explainRow result for
// one query and two keys; no arithmetic on it, only comparisons that choose the words.

const { num, vector } = require('./format.js');

const SUB = ['\u2081', '\u2082'];

/** Below this, a weight is "practically 0" (it prints as 0.0000 or in e-notation). */
const NEGLIGIBLE = 1e-3;

/** Why the weights came out as they did (explainRow `d` of one query over two keys). */
function whyText(d) {
  const s = [d.scores.get(0), d.scores.get(1)], w = [d.weights.get(0), d.weights.get(1)];
  if (s[0] === s[1]) return `Both keys score ${num(s[0], 4)} against q, so the weights are equal and the output is an even blend.`;
  const hi = s[0] > s[1] ? 0 : 1, lo = 1 - hi;
  const start = `k${SUB[hi]} scores ${num(s[hi], 4)} against q and k${SUB[lo]} scores ${num(s[lo], 4)}, so after scaling and the softmax `;
  if (w[lo] === 0) {
    return `${start}v${SUB[hi]} gets weight ${num(w[hi], 4)} and v${SUB[lo]} gets exactly 0: the gap between the scaled scores is so large ` +
      `that e raised to minus that gap is below the smallest number float32 holds. The output is v${SUB[hi]} alone, with nothing of v${SUB[lo]}.`;
  }
  if (w[lo] < NEGLIGIBLE) {
    return `${start}v${SUB[hi]} gets weight ${num(w[hi], 4)} and v${SUB[lo]} only ${num(w[lo], 4)}: the output is practically v${SUB[hi]}.`;
  }
  return `${start}v${SUB[hi]} gets weight ${num(w[hi], 4)} and v${SUB[lo]} still gets ${num(w[lo], 4)}: the output leans to v${SUB[hi]} but blends both.`;
}

/** Whether e^s of the scaled scores overflows float32 (the naive softmax would divide infinity by infinity). */
function expOverflows(d) {
  return !Number.isFinite(d.sumRaw);
}

/** What the engine does instead when e^s overflows: the max-shift, with its numbers. */
function shiftText(d) {
  return `e^s of these scaled scores is larger than float32 can hold, so the exps and their sum read \u221e, and \u221e / \u221e is not a number. ` +
    `The engine first subtracts the row's largest scaled score, ${num(d.rowMax, 4)}, from each: e^(s \u2212 max) = ` +
    `${vector(d.expShifted.data, 4)}, sum ${num(d.sumShifted, 4)}, and dividing by that sum gives the weights. The shift changes ` +
    'nothing else: subtracting one number from every score of a row leaves their gaps, and so the softmax, as they were.';
}

module.exports = { whyText, expOverflows, shiftText, NEGLIGIBLE };
