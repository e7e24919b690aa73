'use strict';
// Layout maths for small SVG charts: mapping data to pixels and choosing ticks.

/** Linear map from [d0, d1] to [r0, r1]. */
function linear([d0, d1], [r0, r1]) {
  const f = (x) => r0 + ((x - d0) / (d1 - d0 || 1)) * (r1 - r0);
  f.domain = [d0, d1];
  return f;
}

/** Log-2 map from [d0, d1] (both > 0) to [r0, r1]. */
function log2([d0, d1], [r0, r1]) {
  const a = Math.log2(d0), b = Math.log2(d1);
  const f = (x) => r0 + ((Math.log2(x) - a) / (b - a || 1)) * (r1 - r0);
  f.domain = [d0, d1];
  return f;
}

/** Log-10 map from [d0, d1] (both > 0) to [r0, r1]. */
function log10([d0, d1], [r0, r1]) {
  const a = Math.log10(d0), b = Math.log10(d1);
  const f = (x) => r0 + ((Math.log10(x) - a) / (b - a || 1)) * (r1 - r0);
  f.domain = [d0, d1];
  return f;
}

/** The powers of ten from below lo to above hi, as a log axis's domain and ticks. */
function decades(lo, hi) {
  const a = Math.floor(Math.log10(lo)), b = Math.max(a + 1, Math.ceil(Math.log10(hi)));
  const out = [];
  for (let e = a; e <= b; e++) out.push(Number((10 ** e).toPrecision(1)));
  return out;
}

const SUPERSCRIPT = { '-': '\u207b', 0: '\u2070', 1: '\u00b9', 2: '\u00b2', 3: '\u00b3', 4: '\u2074', 5: '\u2075', 6: '\u2076', 7: '\u2077', 8: '\u2078', 9: '\u2079' };

/** A decade's tick label: 0.01 to 1000 as written, others as 10 with a superscript power (10\u2074). */
function decadeLabel(value) {
  if (value >= 0.01 && value <= 1000) return String(value);
  const power = String(Math.round(Math.log10(value)));
  return `10${Array.from(power, (c) => SUPERSCRIPT[c]).join('')}`;
}

/** About `count` round tick values covering [lo, hi]. */
function ticks(lo, hi, count = 5) {
  const span = hi - lo || 1;
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || 10 * mag;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toFixed(10)));
  return out;
}

/**
 * Chart text is in viewBox units (W = 480 wide), and a chart shrinks with its widget, so on a
 * narrower widget its text is set larger to stay 11 CSS px or more once scaled: from each
 * widget width (CSS px, the frame's inline size) down, this size. The stylesheet's container
 * queries and the tick thinning below both come from this table.
 */
const TEXT_SIZES = [{ size: 11 }, { maxWidth: 520, size: 14 }, { maxWidth: 440, size: 17 }, { maxWidth: 360, size: 20 }];

// A tick label's extent along its axis, in ems: digits are about 0.6 em wide in the fonts
// charts fall back to, and 0.75 em high.
const labelWidth = (label) => 0.6 * label.length;
const labelHeight = () => 0.75;

/**
 * Which labels of an axis show at each text size: every label where they fit, else every
 * 2nd, every 4th, ... (from the first), so each larger size shows a subset of the smaller's.
 * Neighbouring labels keep one em of space between them.
 * @param ticks [{ at, label, anchor? }] in axis order; extent(label): its length along the axis in ems
 * @return for each tick, the index into TEXT_SIZES from which it is hidden (TEXT_SIZES.length: never)
 */
function thinTicks(ticks, extent) {
  let stride = 1;
  return TEXT_SIZES.reduce((hide, { size }, level) => {
    // A label anchored at its start (end) is centred half its length right (left) of its tick.
    const at = (t) => t.at + ({ start: 1, end: -1 }[t.anchor] || 0) * size * extent(t.label) / 2;
    const fits = () => ticks.every((b, i) => i < stride || i % stride
      || Math.abs(at(b) - at(ticks[i - stride])) >= size * ((extent(b.label) + extent(ticks[i - stride].label)) / 2 + 1));
    while (2 * stride < ticks.length && !fits()) stride *= 2;
    return hide.map((h, i) => (i % stride && h > level ? level : h));
  }, ticks.map(() => TEXT_SIZES.length));
}

/** "M x y L x y ..." through the points. */
function path(points) {
  return points.map(([x, y], i) => `${i ? 'L' : 'M'}${x.toFixed(1)} ${y.toFixed(1)}`).join(' ');
}

/**
 * Geometry of a line chart, shared by the on-page SVG and the exported files: a log-2 x axis
 * with a tick at every x (a sweep of doubling sizes), or with `xMax` a linear one with round
 * ticks, from xMin (default 0) to xMax (for a quantity whose shape a log axis would bend, such
 * as a square root: on log x with linear y it looks exponential; or a training run's steps).
 * @param opts { xs: number[] (> 0, ascending, unless the axis is linear), yMax, series: [{ ys }],
 *   yLog?: a log-10 y axis from yMin to yMax (both > 0), xMax?, xMin?: a linear x axis, xPlot?:
 *   where each x is drawn on it when that differs from xs (d_k drawn at sqrt(d_k)), marks?:
 *   [{ x, label, low? }] vertical lines (the label at the top of the plot, or at its foot when
 *   low), guides?: [{ y, label }] horizontal lines }; a y that is null or not finite (a size
 *   not measured) leaves its point out
 * @return { W, H, yTitleAt (the rotated y title's baseline), plot: { left, right, top, bottom }, xTicks, yTicks: [{ value, at, label, hideFrom }], series: [points],
 *   marks: [{ at, label }], guides: [{ at, label }] },
 *   hideFrom: the TEXT_SIZES index from which the label is left out so its neighbours fit (thinTicks)
 */
function lineLayout(opts) {
  // Margins leave room for the larger text narrow widgets use (styles.js scales chart text up):
  // on the left, the rotated axis title whole (its baseline, yTitleAt, an em (more than a font's ascent) in from
  // the edge; its line ends a descent past it), then the widest y label (it ends 8 units before
  // the axis), both at the largest size.
  const yDecades = opts.yLog ? decades(opts.yMin, opts.yMax) : null;
  const yValues = yDecades || ticks(0, opts.yMax, 5);
  const yLabel = (value) => (opts.yLog ? decadeLabel(value) : String(value));
  const biggest = TEXT_SIZES[TEXT_SIZES.length - 1].size;
  const W = 480, H = 250, R = 22, T = 14, B = 40, yTitleAt = biggest;
  const L = Math.max(60, Math.ceil(yTitleAt + 0.25 * biggest + 4 + 8 + biggest * Math.max(...yValues.map((v) => labelWidth(yLabel(v))))));
  const xLinear = opts.xMax !== undefined;
  const xLo = xLinear ? opts.xMin || 0 : opts.xs[0];
  const xHi = xLinear ? opts.xMax : opts.xs[opts.xs.length - 1];
  const x = xLinear ? linear([xLo, xHi], [L, W - R]) : log2([xLo, xHi], [L, W - R]);
  const y = opts.yLog ? log10([yDecades[0], yDecades[yDecades.length - 1]], [H - B, T]) : linear([0, opts.yMax], [H - B, T]);
  const shown = (v) => typeof v === 'number' && Number.isFinite(v) && (!opts.yLog || v > 0);
  const thinned = (list, extent) => thinTicks(list, extent).map((hideFrom, i) => ({ ...list[i], hideFrom }));
  // A label at the left edge starts there, clear of the y labels (their lowest ends 8 units left
  // of the corner); with both axes from 0, the y axis's 0 labels the corner alone.
  const origin = xLo === 0 && !opts.yLog;
  return {
    W, H, yTitleAt,
    plot: { left: L, right: W - R, top: T, bottom: H - B },
    // A label on the right edge ends there rather than centring past it.
    xTicks: thinned((xLinear ? ticks(xLo, xHi, 5) : opts.xs).map((value) => ({ value, at: x(value), label: String(value),
      ...(x(value) > W - R - 10 ? { anchor: 'end' } : x(value) < L + 10 ? { anchor: 'start' } : {}) })), labelWidth)
      .map((t) => (origin && t.value === 0 ? { ...t, hideFrom: 0 } : t)),
    yTicks: thinned(yValues.map((value) => ({ value, at: y(value), label: yLabel(value) })), labelHeight),
    series: opts.series.map((ser) => (opts.xPlot || opts.xs).flatMap((xv, i) => (shown(ser.ys[i]) ? [[x(xv), y(ser.ys[i])]] : []))),
    marks: (opts.marks || []).map((m) => ({ at: x(m.x), label: m.label, low: m.low === true })),
    guides: (opts.guides || []).filter((g) => shown(g.y)).map((g) => ({ at: y(g.y), label: g.label })),
  };
}

module.exports = { linear, log2, log10, decades, decadeLabel, ticks, path, lineLayout, thinTicks, TEXT_SIZES };
