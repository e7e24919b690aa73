'use strict';
// The cost lab's calculator fields and how its figures read to a learner: each field's
// label, sizes shown as typed (never rounded), and the engine's refusals reworded with the
// field names on screen and bytes. DOM-free; the engine decides every figure and every rule.

const { grouped } = require('./format.js');

/** [key, label on screen, smallest value, fallback]; window 0 means no sliding window. */
const CALC_FIELDS = [
  ['batch', 'batch', 1, 1],
  ['heads', 'heads', 1, 32],
  ['n', 'tokens n', 1, 4096],
  ['layers', 'layers', 1, 32],
  ['kvHeads', 'kv heads', 1, 32],
  ['dHead', 'd_head', 1, 128],
  ['window', 'window (0: none)', 0, 0],
];

// The engine's argument names, as the calculator labels them.
const LABELS = { batch: 'batch', heads: 'heads', n: 'tokens n', tokens: 'tokens n', layers: 'layers', kvHeads: 'kv heads', dHead: 'd_head', window: 'window' };

/** A size as the reader typed it: 4096 -> "4,096", 1.5 -> "1.5" (a value the engine refuses is not rounded). */
function sizeText(x) {
  return Number.isInteger(x) ? grouped(x) : String(x);
}

/**
 * An engine error from kvCacheBytes or attentionMatrixBytes, for a reader of the calculator:
 * without the function name, with the field labels on screen.
 * "kvCacheBytes: tokens = 1.5; expected a whole number from 1 to 2^53" ->
 * "tokens n = 1.5: enter a whole number of 1 or more."
 */
function calcMessage(err) {
  let text = String((err && err.message) || err).replace(/^\w+: /, '');
  if (/ is past 2\^53/.test(text)) return 'Too large to count exactly (past 2^53, about 9 \u00d7 10^15): use smaller numbers.';
  text = text.replace(/\b(batch|heads|n|tokens|layers|kvHeads|dHead|window)\b(?= (=|is))/g, (name) => LABELS[name]);
  text = text.replace(/; expected a whole number from 1 to [^;]*$/, ': enter a whole number of 1 or more');
  text = text.replace(/; expected a number$/, ': enter a number');
  text = text.replace(/; expected a divisor of heads/, ': each kv head serves a whole group of query heads, so kv heads must divide heads');
  return text.replace(/\.?$/, '.');
}

module.exports = { CALC_FIELDS, sizeText, calcMessage };
