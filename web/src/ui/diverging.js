'use strict';
// The colour scale of difference heatmaps: ColorBrewer's RdBu (from d3-scale-chromatic),
// white at 0, red where a value is above 0 and blue where it is below, symmetric about 0 so
// that equal colours mean equal sizes either way. Display only: the values are the engine's.

const { interpolateRdBu } = require('./rdbu.mjs');
const colors = require('./colors.js');
const { num } = require('./format.js');

function parse(css) {
  const m = /rgb\((\d+), ?(\d+), ?(\d+)\)/.exec(css);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
}

/**
 * A scale for values in [-limit, limit] (values beyond are clamped; NaN is white).
 * @returns { color(v), rgb(v), textColor(v), gradient(), stops, low, high } as heatmap views use
 */
function divergingScale(limit) {
  const L = Number.isFinite(limit) && limit > 0 ? limit : 1;
  // RdBu runs from red (0) through white (0.5) to blue (1).
  const position = (v) => (Number.isFinite(v) ? 0.5 - Math.max(-1, Math.min(1, v / L)) / 2 : 0.5);
  const color = (v) => interpolateRdBu(position(v));
  const stops = Array.from({ length: 11 }, (_, k) => [k / 10, color(-L + (2 * L * k) / 10)]);
  return {
    color,
    rgb: (v) => parse(color(v)),
    textColor(v) {
      const bg = parse(color(v));
      return colors.contrast(bg, [0, 0, 0]) >= colors.contrast(bg, [255, 255, 255]) ? '#000000' : '#ffffff';
    },
    gradient: (direction = 'to right') => `linear-gradient(${direction}, ${stops.map(([o, c]) => `${c} ${o * 100}%`).join(', ')})`,
    stops,
    low: `${num(-L, 2)}`,
    high: `+${num(L, 2)}`,
  };
}

/** The default heatmap scale, viridis over [0, 1], in the same shape as divergingScale's. */
const VIRIDIS = {
  color: colors.color,
  rgb: colors.rgb,
  textColor: colors.textColor,
  gradient: colors.gradient,
  stops: Array.from({ length: 11 }, (_, k) => [k / 10, colors.color(k / 10)]),
  low: '0',
  high: '1',
};

module.exports = { divergingScale, VIRIDIS };
