'use strict';
// Colours for a picture of a real-valued matrix (not weights in [0, 1]): one shared range for
// the matrices compared side by side, so equal colours mean equal numbers. Display only.

const colors = require('./colors.js');
const { num } = require('./format.js');

/** The smallest and largest entry over several matrices (rows of numbers). */
function range(...matrices) {
  let lo = Infinity, hi = -Infinity;
  for (const m of matrices) for (const row of m) for (const x of row) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
  return lo < hi ? [lo, hi] : [lo, lo + 1];
}

/**
 * @param matrix rows of numbers; [lo, hi] the shared range; other: a matrix to compare with
 * @returns rows of { value, text, background, foreground, differs }
 */
function pictureCells(matrix, [lo, hi], other = null, tolerance = 1e-5) {
  return matrix.map((row, i) => row.map((value, j) => {
    const t = (value - lo) / (hi - lo);
    return {
      value,
      text: num(value, 2),
      background: colors.color(t),
      foreground: colors.textColor(t),
      differs: Boolean(other && Math.abs(other[i][j] - value) > tolerance),
    };
  }));
}

module.exports = { range, pictureCells };
