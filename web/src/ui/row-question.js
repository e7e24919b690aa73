'use strict';
// The stepper's "your turn" questions for one query row: the reader types the row's scores,
// then its weights, before the stepper shows them. This judges the typed lists against the
// engine's numbers and explains a miss with the engine's intermediate numbers. DOM-free.

const { parseNumber, typed } = require('./predict.js');
const { num, vector } = require('./format.js');

const TOLERANCE = { score: 0.01, softmax: 0.01 };

/** "0, 6, 0, 0, 9" (commas, spaces or both; brackets allowed) -> numbers, or NaN entries. */
function parseList(text) {
  const parts = String(text).replace(/[[\]()]/g, ' ').split(/[\s,;]+/).filter(Boolean);
  return parts.map(parseNumber);
}

/** The question for kind 'score' or 'softmax' about query `token` over `count` keys. */
function question(kind, token, count) {
  return kind === 'score'
    ? `type the ${count} scores of "${token}" (its query against each key, in order), separated by commas.`
    : `type the ${count} weights of "${token}" (after scaling and the softmax), separated by commas.`;
}

/** Whether every typed number is within 1% (or 0.01) of the row it is compared with. */
function matches(guess, row) {
  return row.length === guess.length && row.every((x, j) => Math.abs(guess[j] - x) <= Math.max(0.01, 0.01 * Math.abs(x)));
}

/**
 * The usual slips in a typed row of weights, named when the typed numbers are one of them:
 * the scaling left out, or the exponentials not yet divided by their sum.
 * @returns { hint: the slip without numbers, why: the slip with the engine's numbers } ('' both when none)
 */
function slip(guess, d, plain) {
  if (plain && d.scale !== 1 && matches(guess, Array.from(plain.weights.data))) {
    return { hint: 'These look like the weights without the scaling: the scores are scaled before the softmax.',
      why: `These are the weights without the scaling: the scores go into the softmax only after multiplying by ${num(d.scale, 4)}. ` };
  }
  if (matches(guess, Array.from(d.expRaw.data))) {
    return { hint: 'These look like the exponentials themselves: each weight is its exponential divided by the sum of all of them.',
      why: `These are the exponentials, not yet divided by their sum (${num(d.sumRaw, 4)}). ` };
  }
  if (plain && d.scale !== 1 && matches(guess, Array.from(plain.expRaw.data))) {
    return { hint: 'These look like e to the power of the unscaled scores: scale the scores first, then divide each exponential by their sum.',
      why: `These are e to the power of the scores themselves: scale the scores first (times ${num(d.scale, 4)}), then divide each exponential by their sum. ` };
  }
  const total = guess.reduce((a, b) => a + b, 0);
  const sum = Math.abs(total - 1) > 0.02 ? `Your numbers add up to ${num(total, 4)}; the weights of a row add up to 1. ` : '';
  return { hint: sum, why: sum };
}

/**
 * Judges a typed row against the engine's row and, after a miss, says why with the key that
 * was furthest off.
 * @param kind 'score' | 'softmax'
 * @param d the engine's explainRow for this query; tokens the key tokens; q, K rows as arrays;
 *   plain the engine's explainRow of the same row without scaling (scaling 'none'), or null
 * @returns { ok, close, message, hint } (ok=false: not a list of the right length; ask again;
 *   hint: for a first miss, the key furthest off and what to do, without the engine's numbers)
 */
function judgeRow(kind, text, { d, tokens, q, keys, plain = null }) {
  const guess = parseList(text);
  const actual = Array.from(kind === 'score' ? d.scores.data : d.weights.data);
  const n = actual.length;
  if (!guess.length || guess.some(Number.isNaN)) return { ok: false, close: false, message: `${typed(text)} is not a list of numbers; type ${n} numbers like 0, 1.5, 2` };
  if (guess.length !== n) return { ok: false, close: false, message: `That is ${guess.length} number${guess.length === 1 ? '' : 's'}; there ${n === 1 ? 'is 1 key' : `are ${n} keys`}, so type ${n}.` };
  const digits = kind === 'score' ? 2 : 4;
  const engine = `[${actual.map((x) => num(x, digits)).join(', ')}]`;
  let worst = 0;
  actual.forEach((x, j) => { if (Math.abs(guess[j] - x) > Math.abs(guess[worst] - actual[worst])) worst = j; });
  if (Math.abs(guess[worst] - actual[worst]) <= TOLERANCE[kind]) return { ok: true, close: true, message: `Right: the engine gives ${engine}.` };
  const t = tokens[worst];
  let why, hint;
  if (kind === 'score') {
    const k = keys[worst];
    why = `For "${t}": q\u00b7k = ${q.map((x, c) => `${num(x, 2)}\u00d7${num(k[c], 2)}`).join(' + ')} = ${num(actual[worst], 4)}: multiply matching entries and add them.`;
    hint = `Your score for "${t}" is furthest off: multiply each entry of the query ${vector(q, 2)} by the matching entry of that key ${vector(k, 2)}, and add the products.`;
  } else {
    const scaled = Array.from(d.scaled.data), raw = Array.from(d.expRaw.data);
    const s = slip(guess, d, plain);
    why = `${s.why}Scaled scores ${vector(scaled, 4)} (the scores times ${num(d.scale, 4)}); e to the power of each: ${vector(raw, 4)}, which add up to ${num(d.sumRaw, 4)}. `
      + `Each weight is its exponential divided by that sum: for "${t}", ${num(raw[worst], 4)} \u00f7 ${num(d.sumRaw, 4)} = ${num(actual[worst], 4)}.`;
    hint = `${s.hint ? `${s.hint.trim()} ` : ''}Your weight for "${t}" is furthest off: scale the scores, take e to the power of each, and divide each by the sum of them all.`;
  }
  return { ok: true, close: false, message: `Not quite: the engine gives ${engine}. ${why}`, hint };
}

module.exports = { parseList, question, judgeRow };
