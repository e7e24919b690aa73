'use strict';
// Predict-first prompts: the learner commits an answer, then the engine's answer is shown.
// This module judges answers; it never computes the answer itself.

const { num } = require('./format.js');

/** Parses a typed number ("0.67", "-1", "2/3" is not accepted); NaN when it is not a number. */
function parseNumber(text) {
  const t = String(text).trim().replace('\u2212', '-');
  return /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t) ? Number(t) : NaN;
}

/**
 * Judges a typed guess against the engine's value.
 * @returns { ok, close, message }
 */
function judgeNumber(text, actual, tolerance) {
  const guess = parseNumber(text);
  if (Number.isNaN(guess)) return { ok: false, close: false, message: `"${text}" is not a number; type something like 0.5` };
  const close = Math.abs(guess - actual) <= tolerance;
  return {
    ok: true,
    close,
    message: close ? `Right: the engine gives ${num(actual, 4)}.` : `Not quite: you said ${num(guess, 4)}, the engine gives ${num(actual, 4)}.`,
  };
}

/** Judges a list of numbers typed as "32, 50, 50" against a shape. */
function judgeShape(text, shape) {
  const parts = String(text).replace(/[[\]()]/g, '').split(/[\s,x\u00d7]+/).filter(Boolean);
  const guess = parts.map(Number);
  if (!parts.length || guess.some((x) => !Number.isInteger(x) || x < 0)) {
    return { ok: false, close: false, message: `"${text}" is not a shape; type sizes like 32, 50, 64` };
  }
  const close = guess.length === shape.length && guess.every((x, i) => x === shape[i]);
  return { ok: true, close, message: close ? `Right: [${shape.join(', ')}].` : `Not quite: it is [${shape.join(', ')}].` };
}

module.exports = { parseNumber, judgeNumber, judgeShape };
