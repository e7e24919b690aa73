'use strict';
// Number and shape formatting for display. Display only: no arithmetic on results.

const MINUS = '\u2212';

/** A number with `digits` decimals, a real minus sign, and symbols for the infinities. */
function num(x, digits = 4) {
  if (x === Infinity) return '\u221e';
  if (x === -Infinity) return `${MINUS}\u221e`;
  if (Number.isNaN(x)) return 'NaN';
  if (x !== 0 && Math.abs(x) < 0.5 * 10 ** -digits) return `${x < 0 ? MINUS : ''}${Math.abs(x).toExponential(1)}`;
  if (Math.abs(x) >= 1e7) return x.toExponential(3).replace('-', MINUS);
  const s = x.toFixed(digits);
  const trimmed = digits > 0 ? s.replace(/\.?0+$/, '') : s;
  const out = trimmed === '-0' ? '0' : trimmed;
  return out.replace('-', MINUS);
}

/** A number with exactly `digits` decimals (for columns that should line up). */
function fixed(x, digits = 2) {
  if (!Number.isFinite(x)) return num(x);
  const s = x.toFixed(digits);
  return (/^-0\.?0*$/.test(s) ? s.slice(1) : s).replace('-', MINUS);
}

/** "[2, 6, 6]" */
function shape(s) {
  return `[${s.join(', ')}]`;
}

/** A vector as "[0, 3, 0, 0]". */
function vector(values, digits = 3) {
  return `[${Array.from(values, (x) => num(x, digits)).join(', ')}]`;
}

/** 1048576 -> "1,048,576" */
function grouped(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** "1 token", "2 tokens": a count and its noun (plural with an s, or the given plural). */
function counted(n, noun, plural = `${noun}s`) {
  return `${grouped(n)} ${n === 1 ? noun : plural}`;
}

module.exports = { counted, num, fixed, shape, vector, grouped, MINUS };
