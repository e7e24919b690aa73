'use strict';
// Predict-first prompts: the learner commits an answer, then the engine's answer is shown.
// This module judges answers and decides, once for every prompt, what a wrong answer gets:
// the first a hint and another try, the second the answer and its reason. It never computes
// the answer itself.

const { num } = require('./format.js');

/** Wrong answers a prompt takes before it shows the answer: the first gets a hint and one more try. */
const TRIES = 2;

/** What the learner typed, quoted for a message: at most 24 characters, so a pasted page stays out of it. */
function typed(text) {
  const t = String(text).trim();
  return `"${t.length > 24 ? `${t.slice(0, 20)}\u2026` : t}"`;
}

/** Parses a typed number ("0.67", "-1", "2/3" is not accepted); NaN when it is not a finite number. */
function parseNumber(text) {
  const t = String(text).trim().replace('\u2212', '-');
  const x = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t) ? Number(t) : NaN;
  return Number.isFinite(x) ? x : NaN;
}

/**
 * What happens after a judged answer, for every prompt.
 * @param result the judge's { ok, close, message, hint }: ok = false is no answer at all (a
 *   typo: asked again, nothing counted); message gives the answer and its reason; hint (needed
 *   for every wrong answer) helps without giving the answer away
 * @param misses wrong answers before this one
 * @returns { kind: 'invalid' | 'right' | 'hint' | 'wrong', reveal, misses, message }
 */
function attempt(result, misses) {
  if (!result.ok) return { kind: 'invalid', reveal: false, misses, message: result.message };
  if (result.close) return { kind: 'right', reveal: true, misses, message: result.message };
  if (misses + 1 < TRIES) {
    if (!result.hint) throw new Error('attempt: a first wrong answer needs a hint; expected result.hint');
    return { kind: 'hint', reveal: false, misses: misses + 1, message: `Not yet. ${result.hint} Try once more.` };
  }
  return { kind: 'wrong', reveal: true, misses: misses + 1, message: result.message };
}

/** "Your guess is too high." or too low: a hint that points without telling. */
function direction(guess, actual) {
  return guess > actual ? 'Your guess is too high.' : 'Your guess is too low.';
}

/**
 * Judges a typed guess against the engine's value.
 * @param why the reason, said with the answer after a miss ('' for none); hint what a first miss
 *   is told besides the direction
 * @returns { ok, close, message, hint }
 */
function judgeNumber(text, actual, tolerance, { why = '', hint = '' } = {}) {
  const guess = parseNumber(text);
  if (Number.isNaN(guess)) return { ok: false, close: false, message: `${typed(text)} is not a number; type something like 0.5` };
  const close = Math.abs(guess - actual) <= tolerance;
  return {
    ok: true,
    close,
    message: close ? `Right: the engine gives ${num(actual, 4)}.` : `Not quite: you said ${num(guess, 4)}, the engine gives ${num(actual, 4)}.${why ? ` ${why}` : ''}`,
    hint: close ? '' : `${direction(guess, actual)}${hint ? ` ${hint}` : ''}`,
  };
}

/** The sizes of a typed shape ("32, 50, 50", "[32 x 50]"), or null when it is not one. */
function parseShape(text) {
  const parts = String(text).replace(/[[\]()]/g, '').split(/[\s,x\u00d7]+/).filter(Boolean);
  const sizes = parts.map(Number);
  return parts.length && sizes.every((x) => Number.isSafeInteger(x) && x >= 0) ? sizes : null;
}

/**
 * Judges a list of numbers typed as "32, 50, 50" against a shape.
 * @param rule { hint, why }: the rule behind the shape, without it (hint) and with it (why)
 * @returns { ok, close, message, hint }
 */
function judgeShape(text, shape, rule = { hint: '', why: '' }) {
  const guess = parseShape(text);
  if (!guess) return { ok: false, close: false, message: `${typed(text)} is not a shape; type sizes like 32, 50, 64` };
  const close = guess.length === shape.length && guess.every((x, i) => x === shape[i]);
  const answer = `[${shape.join(', ')}]`;
  return {
    ok: true,
    close,
    message: close ? `Right: ${answer}.${rule.why ? ` ${rule.why}` : ''}` : `Not quite: it is ${answer}.${rule.why ? ` ${rule.why}` : ''}`,
    hint: close ? '' : rule.hint,
  };
}

module.exports = { TRIES, typed, parseNumber, attempt, direction, judgeNumber, parseShape, judgeShape };
