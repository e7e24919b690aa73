'use strict';
// How tall a widget will be once drawn, estimated before the engine is ready, so the space
// can be held and the page does not jump when the widget appears (cumulative layout
// shift). Heights in CSS pixels at the default font size, measured in Chromium at these
// widths (the widget's own width, not the window's); between widths the narrower one is
// used. Re-measure after a layout change: tests/browser/host-page.test.js checks the shift.

const WIDTHS = [320, 360, 480, 560, 640, 800, 1000];

// Height of each widget in its default configuration at WIDTHS, less the rows that depend on
// the data (added back by rowsHeight below).
const BASE = {
  'attention-stepper': [1019, 966, 759, 499, 499, 458, 458],
  'attention-heatmap': [426, 449, 320, 312, 312, 282, 273],
  'attention-worked-example': [605, 605, 505, 496, 496, 455, 455],
  'scaling-experiment': [383, 361, 263, 241, 241, 241, 219],
  'multihead-view': [1557, 1423, 1312, 1241, 1219, 1219, 803],
  'shape-tracer': [1119, 1039, 980, 962, 932, 912, 872],
  'padding-mask': [1193, 1242, 1332, 1229, 1229, 1207, 849],
  'softmax-demo': [240, 240, 219, 181, 181, 181, 181],
  // Before the question is answered; the median over the eight mistakes (they differ by a code line or two).
  'mistakes-lab': [1021, 944, 866, 783, 762, 740, 720],
  'online-softmax-stepper': [734, 622, 600, 586, 545, 506, 484],
  'kv-cache-stepper': [1690, 1501, 1302, 1196, 1064, 1042, 999],
  'cost-lab': [1197, 1029, 828, 671, 608, 608, 586],
  'attention-trainer': [2123, 2077, 2123, 2128, 2190, 1651, 1703],
  // Before the prediction is answered.
  'position-race': [1733, 1680, 1629, 1632, 1628, 1133, 1164],
  // One layer of two heads over four tokens (its layers are not known before its data is read;
  // each more adds a row of thumbnails).
  'model-attention': [322, 286, 247, 247, 247, 228, 208],
};
// <position-lab>, by its part, before its question is answered (the default part: shuffle).
const POSITION_PARTS = {
  shuffle: [531, 488, 444, 346, 346, 346, 287],
  sinusoidal: [798, 740, 699, 661, 661, 657, 738],
  rope: [365, 343, 281, 281, 281, 241, 219],
  alibi: [300, 241, 219, 219, 197, 197, 197],
};
// A heatmap of one sentence's queries over another's keys (query-tokens): no sentence input,
// no causal mask or prompts. Measured with 4 x 6, 8 x 3 and 2 x 10 queries x keys.
const CROSS_HEATMAP = [308, 308, 278, 241, 211, 211, 211];

function column(width) {
  let i = 0;
  while (i + 1 < WIDTHS.length && WIDTHS[i + 1] <= width) i += 1;
  return i;
}

/** Height of a heatmap's `rows` rows: square cells that share the width among `cols` columns, within the CSS limits. */
function heatmapRows(width, rows, cols = rows) {
  const n = Math.max(rows, cols);
  if (n > 32) return Math.min(rows * Math.max(1, Math.min(12, Math.floor(512 / n))), width - 70);
  const avail = width - 34 - 42;
  const minCell = cols > 16 ? 13.5 : 36;
  const cell = Math.max(minCell, Math.min(48, avail / cols - 2));
  return rows * (cell + 2);
}

/**
 * @param tag element name
 * @param width the widget's width in CSS pixels
 * @param config { tokens: number of tokens, or of query tokens when `keys` is given (heatmap,
 *   stepper), keys: number of key tokens of a cross-attention heatmap, quiz: boolean (shape tracer),
 *   part: which part of <position-lab> }
 * @returns estimated height in CSS pixels (0 for an unknown widget)
 */
function estimateHeight(tag, width, config = {}) {
  const cross = tag === 'attention-heatmap' && config.keys > 0;
  const base = cross ? CROSS_HEATMAP : tag === 'position-lab' ? POSITION_PARTS[config.part] || POSITION_PARTS.shuffle : BASE[tag];
  if (!base || !(width > 0)) return 0;
  const c = column(width);
  let h = base[c];
  if (tag === 'attention-heatmap') h += heatmapRows(width, config.tokens || 5, cross ? config.keys : undefined);
  if (tag === 'attention-stepper') h += 22 * (config.tokens || 5);
  if (tag === 'shape-tracer' && config.quiz && width < 560) h += 450;
  return Math.round(h);
}

/** estimateHeight at each of WIDTHS, for CSS that picks one by the widget's width. */
function estimateHeights(tag, config = {}) {
  return WIDTHS.map((w) => estimateHeight(tag, w, config));
}

/**
 * What estimateHeight needs to know of a widget, from its attributes (`attr(name)`: the
 * attribute's text, or null when absent): read by the widget itself (kit/base.js) and, for a
 * page built ahead, by the build that reserves the space before the script has run.
 */
function reserveConfig(attr) {
  const count = (name) => (attr(name) || '').trim().split(/\s+/).filter(Boolean).length;
  const cross = attr('query-tokens') !== null;
  const tokens = count(cross ? 'query-tokens' : 'tokens');
  const quiz = attr('quiz');
  const part = (attr('part') || '').trim();
  return { tokens: tokens || undefined, keys: cross ? count('tokens') || 5 : undefined, quiz: quiz !== null && !/^(false|0|off)$/i.test(quiz.trim()),
    part: part || undefined };
}

module.exports = { estimateHeight, estimateHeights, reserveConfig, WIDTHS, POSITION_PARTS };
