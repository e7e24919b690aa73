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
 * A line chart: log x, or linear x with `xMax` (ui/chart.js lineLayout).
 * @param opts { title, desc, xLabel, yLabel, xs: number[], series: [{ name, ys, cls, points, line }], yMax,
 *   yLog?, xMax?, xMin?, xPlot?, marks?: [{ x, label, low? }], guides?: [{ y, label }] }
 *   points: true (dots of class cls) or the dots' class; line: a line through the dots as well
 */
function lineChart(opts) {
  const g = chart.lineLayout(opts);
  const { W, H } = g, { left: L, right, top: T, bottom } = g.plot;
  const titleId = `t${Math.random().toString(36).slice(2)}`;
  const svg = s('svg', { class: 'al-chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': titleId },
    s('title', { id: titleId }, `${opts.title}. ${opts.desc}`));
  svg.append(s('line', { class: 'al-axis', x1: L, y1: bottom, x2: right, y2: bottom }), s('line', { class: 'al-axis', x1: L, y1: T, x2: L, y2: bottom }));
  // A label's class names the text size from which the stylesheet leaves it out (ui/chart.js
  // thinTicks; al-thin-4, never, has no rule); one left out at every size is not drawn.
  const thin = (t) => ({ class: `al-thin-${t.hideFrom}` });
  for (const t of g.xTicks) {
    svg.append(s('line', { class: 'al-axis', x1: t.at, y1: bottom, x2: t.at, y2: bottom + 3 }));
    if (t.hideFrom) svg.append(s('text', { x: t.at, y: bottom + 14, 'text-anchor': t.anchor || 'middle', ...thin(t) }, t.label));
  }
  for (const t of g.yTicks) {
    svg.append(s('line', { class: 'al-axis', x1: L - 4, y1: t.at, x2: L, y2: t.at }));
    if (t.hideFrom) svg.append(s('text', { x: L - 8, y: t.at + 4, 'text-anchor': 'end', ...thin(t) }, t.label));
  }
  svg.append(s('text', { x: (L + right) / 2, y: H - 6, 'text-anchor': 'middle' }, opts.xLabel));
  svg.append(s('text', { x: g.yTitleAt, y: (T + bottom) / 2, 'text-anchor': 'middle', transform: `rotate(-90 ${g.yTitleAt} ${(T + bottom) / 2})` }, opts.yLabel));
  // Guides (a threshold) and marks (an event at an x) under the data, labelled at their ends.
  for (const gd of g.guides) {
    svg.append(s('line', { class: 'al-guide', x1: L, y1: gd.at, x2: right, y2: gd.at }));
    if (gd.label) svg.append(s('text', { class: 'al-guide-label', x: right - 4, y: gd.at - 4, 'text-anchor': 'end' }, gd.label));
  }
  for (const m of g.marks) {
    svg.append(s('line', { class: 'al-mark', x1: m.at, y1: T, x2: m.at, y2: bottom }));
    if (m.label) svg.append(s('text', { class: 'al-mark-label', x: m.at + (m.at > (L + right) / 2 ? -4 : 4), y: m.low ? bottom - 6 : T + 12, 'text-anchor': m.at > (L + right) / 2 ? 'end' : 'start' }, m.label));
  }
  opts.series.forEach((ser, k) => {
    const pts = g.series[k];
    if (!ser.points || ser.line) svg.append(s('path', { class: ser.cls, d: chart.path(pts), 'data-series': k }));
    if (ser.points) pts.forEach(([px, py]) => svg.append(s('circle', { class: ser.points === true ? ser.cls : ser.points, cx: px, cy: py, r: 4 })));
  });
  // opts.legend: the series named in the plot's top-left corner, where rising lines leave room.
  if (opts.legend) {
    // No box behind it (its text size depends on the container): the text has a halo instead.
    const rowH = 18;
    const box = s('g', { class: 'al-legend', 'aria-hidden': 'true' });
    opts.series.forEach((ser, k) => {
      const y = T + 8 + k * rowH + rowH / 2;
      box.append(s('path', { class: ser.cls, d: `M${L + 14},${y} L${L + 40},${y}` }));
      if (ser.points) box.append(s('circle', { class: ser.points === true ? ser.cls : ser.points, cx: L + 27, cy: y, r: 4 }));
      box.append(s('text', { x: L + 46, y: y + 4 }, ser.name));
    });
    svg.append(box);
  }
  FRAMES.set(svg, frameKey(g, opts));
  return svg;
}

// What a chart's frame (everything but its lines and title) was drawn from, by chart.
const FRAMES = new WeakMap();

function frameKey(g, opts) {
  return JSON.stringify([g.xTicks, g.yTicks, g.marks, g.guides, opts.xLabel, opts.yLabel, opts.legend,
    opts.series.map((ser) => [ser.cls, ser.name, ser.points, ser.line])]);
}

/**
 * Redraws a chart made by lineChart for new `opts` in place when only its lines and title
 * changed (a training run's curves growing between redraws: no new elements, no layout);
 * returns false, leaving it as it was, when its axes, marks or series differ: draw it anew.
 * Series drawn as dots are not updated in place.
 */
function updateLineChart(svg, opts) {
  const g = chart.lineLayout(opts);
  if (opts.series.some((ser) => ser.points) || FRAMES.get(svg) !== frameKey(g, opts)) return false;
  for (const path of svg.querySelectorAll('path[data-series]')) path.setAttribute('d', chart.path(g.series[Number(path.getAttribute('data-series'))]));
  svg.querySelector('title').textContent = `${opts.title}. ${opts.desc}`;
  return true;
}

/**
 * The series' names beside short samples of their lines, as a list under a chart (where it
 * cannot cover a curve): [{ name, cls }].
 */
function legendList(series) {
  const list = document.createElement('ul');
  list.className = 'al-legend al-legend-list';
  list.setAttribute('aria-hidden', 'true');  // the chart's own description names the series
  for (const ser of series) {
    const item = document.createElement('li');
    // a series of dots shows a dot (on its line, if it has one), as the chart draws it
    item.append(s('svg', { class: 'al-chart al-swatch', viewBox: '0 0 28 10' }, !ser.points || ser.line ? s('path', { class: ser.cls, d: 'M1 5H27' }) : null,
      ser.points ? s('circle', { class: ser.points === true ? ser.cls : ser.points, cx: 14, cy: 5, r: 4 }) : null), ser.name);
    list.append(item);
  }
  return list;
}

module.exports = { lineChart, updateLineChart, legendList, svgElement: s };
