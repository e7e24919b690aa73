'use strict';
// The head view's lines: tokens in two columns (queries on the left, keys on the right), a
// line from query i to key j for each chosen head, as strong as the weight. This module picks
// which lines to draw and groups them for drawing; the weights are the author's (or a model's)
// as decoded by attention-data.js, and nothing here computes with them beyond comparing. DOM-free.

const { pattern } = require('./attention-data.js');

/** One colour per head (Tableau 10, then two more), repeating past 12 heads. */
const HEAD_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac', '#17becf', '#8c6d31'];

const headColor = (h) => HEAD_COLORS[h % HEAD_COLORS.length];

/** Lines fainter than this are left out of the picture (they would not show): the README says so. */
const MIN_WEIGHT = 0.02;
/** Opacity steps: lines are drawn in this many batches per head, one opacity each. */
const LEVELS = 10;

/**
 * The lines to draw for one layer.
 * @param set a decoded attention set (attention-data.js)
 * @param layer the layer; heads the chosen heads (indices)
 * @param focus null (every token), or { side: 'query' | 'key', index }: only that token's lines
 * @returns [{ head, level (1..LEVELS: opacity level / LEVELS), pairs: [i, j, i, j, ...] }], one
 *   entry per head and level that has lines
 */
function headLines(set, layer, heads, focus = null, minWeight = MIN_WEIGHT) {
  const { m, n } = set;
  const out = [];
  const rows = focus && focus.side === 'query' ? [focus.index] : null;
  for (const h of heads) {
    const p = pattern(set, layer, h);
    const levels = Array.from({ length: LEVELS }, () => []);
    const add = (i, j) => {
      const w = p[i * n + j];
      if (w >= minWeight) levels[Math.min(LEVELS, Math.ceil(w * LEVELS)) - 1].push(i, j);
    };
    if (focus && focus.side === 'key') {
      for (let i = 0; i < m; i++) add(i, focus.index);
    } else {
      for (const i of rows || Array.from({ length: m }, (_, k) => k)) for (let j = 0; j < n; j++) add(i, j);
    }
    levels.forEach((pairs, k) => { if (pairs.length) out.push({ head: h, level: k + 1, pairs }); });
  }
  return out;
}

/**
 * In words, where one token's weight goes (a query) or comes from (a key), per chosen head:
 * its largest weight, for the live line under the head view.
 * @returns [{ head, index: the other token's position, weight }]
 */
function strongest(set, layer, heads, focus) {
  const { m, n } = set;
  return heads.map((h) => {
    const p = pattern(set, layer, h);
    let best = 0, index = 0;
    const count = focus.side === 'query' ? n : m;
    for (let k = 0; k < count; k++) {
      const w = focus.side === 'query' ? p[focus.index * n + k] : p[k * n + focus.index];
      if (w > best) {
        best = w;
        index = k;
      }
    }
    return { head: h, index, weight: best };
  });
}

/**
 * Where the rows of the two columns sit: token k's middle is at (k + 0.5) * rowHeight on both
 * sides, and the picture is as tall as the longer column.
 */
function columnLayout(m, n, rowHeight) {
  return { height: Math.max(m, n) * rowHeight, y: (k) => (k + 0.5) * rowHeight };
}

module.exports = { headLines, strongest, columnLayout, headColor, HEAD_COLORS, MIN_WEIGHT, LEVELS };
