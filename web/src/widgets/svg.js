'use strict';
// SVG chart drawing for the experiment widgets (layout maths in ui/chart.js).

const chart = require('../ui/chart.js');

const NS = 'http://www.w3.org/2000/svg';

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children.flat()) if (c) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/**
 * A log-x line chart.
 * @param opts { title, desc, xLabel, yLabel, xs: number[], series: [{ name, ys, cls, points }], yMax }
 */
function lineChart(opts) {
  // Margins leave room for the larger text narrow widgets use (styles.js scales chart text up).
  const W = 480, H = 250, L = 60, R = 22, T = 14, B = 40;
  const x = chart.log2([opts.xs[0], opts.xs[opts.xs.length - 1]], [L, W - R]);
  const y = chart.linear([0, opts.yMax], [H - B, T]);
  const titleId = `t${Math.random().toString(36).slice(2)}`;
  const svg = s('svg', { class: 'al-chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': titleId },
    s('title', { id: titleId }, `${opts.title}. ${opts.desc}`));
  svg.append(s('line', { class: 'al-axis', x1: L, y1: H - B, x2: W - R, y2: H - B }), s('line', { class: 'al-axis', x1: L, y1: T, x2: L, y2: H - B }));
  for (const v of opts.xs) {
    svg.append(s('text', { x: x(v), y: H - B + 14, 'text-anchor': 'middle' }, String(v)));
  }
  for (const v of chart.ticks(0, opts.yMax, 5)) {
    svg.append(s('line', { class: 'al-axis', x1: L - 4, y1: y(v), x2: L, y2: y(v) }), s('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end' }, String(v)));
  }
  svg.append(s('text', { x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle' }, opts.xLabel));
  svg.append(s('text', { x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle', transform: `rotate(-90 12 ${(T + H - B) / 2})` }, opts.yLabel));
  opts.series.forEach((ser) => {
    const pts = opts.xs.map((xv, i) => [x(xv), y(ser.ys[i])]);
    if (ser.points) pts.forEach(([px, py]) => svg.append(s('circle', { class: ser.cls, cx: px, cy: py, r: 4 })));
    else svg.append(s('path', { class: ser.cls, d: chart.path(pts) }));
  });
  return svg;
}

module.exports = { lineChart };
