'use strict';
// What each heatmap cell shows: colour, text and the sentence a screen reader hears.
// Values come from the engine; this only maps them to display.

const colors = require('./colors.js');
const { num, fixed } = require('./format.js');

/**
 * @param weights rows of numbers (already computed by the engine)
 * @param masked rows of booleans: true where the key was hidden before the softmax
 * @param rowLabels, colLabels token labels
 * @param opts { digits, rowWord, colWord, valueWord, hiddenRows: row indices whose values stay
 *   out of the page (a question about them is still open), scale: { color, textColor } (default viridis) }
 */
function cells(weights, masked, rowLabels, colLabels, opts = {}) {
  const { digits = 2, rowWord = 'query', colWord = 'key', valueWord = 'weight', hiddenRows = [], scale = colors } = opts;
  return weights.map((row, i) => row.map((value, j) => {
    if (hiddenRows.includes(i)) {
      return { row: i, col: j, value: null, masked: false, hidden: true, text: '?',
        label: `?: ${rowWord} ${rowLabels[i]}, ${colWord} ${colLabels[j]}, ${valueWord} hidden until you answer the question`,
        background: null, foreground: null };
    }
    const isMasked = Boolean(masked && masked[i] && masked[i][j]);
    // NaN (a mistake that produces it) has no colour on any scale: it is drawn like a gap.
    const nan = Number.isNaN(value);
    const text = isMasked ? '' : fixed(value, digits);
    // The accessible name starts with the visible text (WCAG 2.5.3, label in name).
    const label = isMasked ? `masked: ${rowWord} ${rowLabels[i]}, ${colWord} ${colLabels[j]}, ${valueWord} 0`
      : `${text}: ${rowWord} ${rowLabels[i]}, ${colWord} ${colLabels[j]}, ${valueWord} ${num(value, 4)}`;
    return {
      row: i,
      col: j,
      value,
      masked: isMasked,
      text,
      label,
      nan,
      background: isMasked || nan ? null : scale.color(value),
      foreground: isMasked || nan ? null : scale.textColor(value),
    };
  }));
}

/** Rows of booleans: true where an engine "masked" stage holds -infinity. */
function maskedFrom(maskedRows) {
  return maskedRows.map((row) => row.map((x) => x === -Infinity));
}

/** Next focused cell for an arrow/Home/End key, clamped to the grid; null for other keys. */
function move(key, row, col, rows, cols) {
  switch (key) {
    case 'ArrowUp': return [Math.max(0, row - 1), col];
    case 'ArrowDown': return [Math.min(rows - 1, row + 1), col];
    case 'ArrowLeft': return [row, Math.max(0, col - 1)];
    case 'ArrowRight': return [row, Math.min(cols - 1, col + 1)];
    case 'Home': return [row, 0];
    case 'End': return [row, cols - 1];
    default: return null;
  }
}

module.exports = { cells, maskedFrom, move };
