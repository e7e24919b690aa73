'use strict';
// What each heatmap cell shows: colour, text and the sentence a screen reader hears.
// Values come from the engine; this only maps them to display.

const colors = require('./colors.js');
const { num, fixed } = require('./format.js');
const { spokenLabel } = require('./model-text.js');

/** What a hidden cell says by default: a question about its row is still open. */
const HIDDEN_NOTE = 'hidden until you answer the question';

/**
 * @param weights rows of numbers (already computed by the engine)
 * @param masked rows of booleans: true where the key was hidden before the softmax
 * @param rowLabels, colLabels token labels
 * @param opts { digits, rowWord, colWord, valueWord, hiddenRows: row indices whose values stay
 *   out of the page (a question about them is still open), hiddenNote(i): why row i is hidden
 *   (default: until the reader answers the question), scale: { color, textColor } (default viridis) }
 */
function cells(weights, masked, rowLabels, colLabels, opts = {}) {
  const { digits = 2, rowWord = 'query', colWord = 'key', valueWord = 'weight', hiddenRows = [], scale = colors } = opts;
  const note = opts.hiddenNote || (() => HIDDEN_NOTE);
  // Names say a label's marks in words (a token's visible space, \u2423, as "space").
  const rs = rowLabels.map(spokenLabel), cs = colLabels.map(spokenLabel);
  return weights.map((row, i) => row.map((value, j) => {
    if (hiddenRows.includes(i)) {
      return { row: i, col: j, rowLabel: rowLabels[i], colLabel: colLabels[j], value: null, masked: false, hidden: true, text: '?', note: note(i),
        label: `?: ${rowWord} ${rs[i]}, ${colWord} ${cs[j]}, ${valueWord} ${note(i)}`,
        background: null, foreground: null };
    }
    const isMasked = Boolean(masked && masked[i] && masked[i][j]);
    // NaN (a mistake that produces it) has no colour on any scale: it is drawn like a gap.
    const nan = Number.isNaN(value);
    const text = isMasked ? '' : fixed(value, digits);
    // The accessible name starts with the visible text (WCAG 2.5.3, label in name).
    const label = isMasked ? `masked: ${rowWord} ${rs[i]}, ${colWord} ${cs[j]}, ${valueWord} 0`
      : `${text}: ${rowWord} ${rs[i]}, ${colWord} ${cs[j]}, ${valueWord} ${num(value, 4)}`;
    return {
      row: i,
      col: j,
      rowLabel: rowLabels[i],
      colLabel: colLabels[j],
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

/**
 * The visible line that reads out one cell (on hover or focus), for readers who have the
 * numbers switched off: 'query "flies" → key "time": 0.46'.
 * @param cell one entry of cells(); opts { digits, rowWord, colWord }
 */
function readout(cell, opts = {}) {
  const { digits = 2, rowWord = 'query', colWord = 'key', twice } = opts;
  // A label that occurs twice on its axis ("the" in "the cat sat on the mat") is named with its position.
  const name = (label, at, set) => (set && set.has(label) ? `\u201c${label}\u201d (${at})` : `\u201c${label}\u201d`);
  const where = `${rowWord} ${name(cell.rowLabel, cell.row, twice && twice.rows)} \u2192 ${colWord} ${name(cell.colLabel, cell.col, twice && twice.cols)}`;
  if (cell.hidden) return `${where}: ${cell.note || HIDDEN_NOTE}`;
  if (cell.masked) return `${where}: masked, weight 0`;
  return `${where}: ${fixed(cell.value, digits)}`;
}

/** The labels that occur more than once in a list (a readout names those with their position). */
function repeatedLabels(labels) {
  const seen = new Set(), twice = new Set();
  for (const t of labels) (seen.has(t) ? twice : seen).add(t);
  return twice;
}

/**
 * Values for the renormalisation readout under a causal mask: U[j][c] = 1 when j <= c, so the
 * engine's weighted sum W U holds in [i][i] the sum of row i of W over keys 0..i.
 */
function prefixOnes(n) {
  return Array.from({ length: n }, (_, j) => Array.from({ length: n }, (__, c) => (c >= j ? 1 : 0)));
}

/**
 * What a causal mask does to one row, in words: the row's weights over the keys it may see
 * sum to 1, and without the mask those keys held only `share` of the row, so the softmax
 * divided each of them by that share. Every number comes from the engine.
 * @param row { label, keys: key labels, weights: the masked row, masked: booleans,
 *   sum: the engine's sum of the masked row, share: the engine's sum of the unmasked row
 *   over the same keys }
 */
function renormalisation(row, digits = 2) {
  const seen = row.keys.filter((_, j) => !row.masked[j]);
  const terms = row.weights.filter((_, j) => !row.masked[j]).map((w) => fixed(w, digits));
  const n = row.keys.length;
  if (seen.length === n) {
    return `Row “${row.label}” sees all ${n} keys: nothing is masked, its weights are the same as without the mask, and they sum to ${fixed(row.sum, digits)}.`;
  }
  const quoted = seen.map((t) => `“${t}”`);
  const keys = seen.length <= 6 ? ` (${quoted.join(', ')})` : '';
  const sum = seen.length <= 6 ? `${terms.join(' + ')} = ${fixed(row.sum, digits)}` : `its ${seen.length} weights add up to ${fixed(row.sum, digits)}`;
  return `Row “${row.label}” sees ${seen.length} of ${n} keys${keys}: ${sum}. `
    + `Without the mask this row was spread over all ${n} keys and ${seen.length === 1 ? 'this one' : `these ${seen.length}`} got ${num(row.share, 3)} of it; `
    + `the softmax now divides ${seen.length === 1 ? 'it' : 'each of them'} by ${num(row.share, 3)}, so the row sums to 1 again.`;
}

/** Rows of booleans: true where an engine "masked" stage holds -infinity. */
function maskedFrom(maskedRows) {
  return maskedRows.map((row) => row.map((x) => x === -Infinity));
}

/** Whether rows of booleans (or null) mark any cell masked: a legend keys the masked colour only then. */
function anyMasked(masked) {
  return Boolean(masked) && masked.some((row) => Boolean(row) && row.some(Boolean));
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

module.exports = {
  repeatedLabels, cells, readout, prefixOnes, renormalisation, maskedFrom, anyMasked, move };
