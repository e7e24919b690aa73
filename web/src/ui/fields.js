'use strict';
// What a widget does with a number typed into one of its boxes (a seed, a size, a query
// component): the value, or a sentence for the reader saying what is wrong and what to type.
// One rule for every numeric box. DOM-free; kit/field-note.js shows the sentence.

const { grouped } = require('./format.js');
const { typed } = require('./predict.js');

/** The largest float32, the engine's number type: typed values beyond it cannot reach the engine. */
const FLOAT32_MAX = 3.4028234663852886e38;

function bound(x, whole) {
  if (Math.abs(x) >= 1e7) return x.toExponential(1).replace('e+', 'e');
  return whole ? grouped(x) : String(x);
}

/** "a whole number from 0 to 1,000,000,000"; "a whole number of 1 or more" when only 2^53 bounds a whole number. */
function expected({ min, max, whole }) {
  const what = whole ? 'a whole number' : 'a number';
  return whole && max >= 2 ** 53 ? `${what} of ${bound(min, whole)} or more` : `${what} from ${bound(min, whole)} to ${bound(max, whole)}`;
}

/**
 * Reads a typed number.
 * @param text what the box holds (input.value); badInput: the browser could not read what was
 *   typed as a number (a type="number" box then reports '')
 * @param spec { label, min, max, whole }: what the box accepts
 * @returns { value } or { error }
 */
function readField(text, spec, badInput = false) {
  const t = String(text).trim().replace('\u2212', '-');
  const want = `type ${expected(spec)}`;
  if (badInput) return { error: `${spec.label}: what you typed is not a number; ${want}.` };
  if (t === '') return { error: `${spec.label} is empty; ${want}.` };
  const x = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t) ? Number(t) : NaN;
  if (Number.isNaN(x)) return { error: `${spec.label}: ${typed(text)} is not a number; ${want}.` };
  if (!Number.isFinite(x) || Math.abs(x) > FLOAT32_MAX) return { error: `${spec.label}: ${typed(text)} is far too large; ${want}.` };
  if (spec.whole && !Number.isInteger(x)) return { error: `${spec.label}: ${typed(text)} is not a whole number; ${want}.` };
  if (x < spec.min) return { error: `${spec.label}: ${typed(text)} is below ${bound(spec.min, spec.whole)}; ${want}.` };
  if (x > spec.max) return { error: `${spec.label}: ${typed(text)} is above ${bound(spec.max, spec.whole)}; ${want}.` };
  return { value: Object.is(x, -0) ? 0 : x };
}

module.exports = { readField, expected, FLOAT32_MAX };
