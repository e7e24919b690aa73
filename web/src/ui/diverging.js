'use strict';
// The colour scale of difference heatmaps: ColorBrewer's RdBu, white at 0, red where a value
// is above 0 and blue where it is below, symmetric about 0 so that equal colours mean equal
// sizes either way. Display only: the values are the engine's.
//
// The colours are d3-scale-chromatic's interpolateRdBu sampled at 33 even points, linear
// between them (within 1/255 of the library's curve everywhere): the library's numbers
// without its 15 KB of colour-space code in every page. tests/node/mistake-lab.test.js
// holds the stops to the library, so they cannot drift from it.
//
// On a dark background RdBu's white centre would make the cells a mistake leaves alone the
// brightest on the map. The dark variant keeps the library's hues but runs from a dark neutral
// centre out to two of its stops light enough to stand out on dark (RdBu at 0.25 and 0.75):
// in either theme, the larger the difference, the more a cell stands out from the background.

const colors = require('./colors.js');
const { num } = require('./format.js');

const RDBU_STOPS = ['#67001f', '#7e0823', '#941127', '#a81d2d', '#b82d35', '#c6413f', '#d1574b', '#db6d59', '#e48268', '#ec977a', '#f3aa8c',
  '#f7bca0', '#faccb4', '#fbd9c7', '#fae4d8', '#f7ece5', '#f2efee', '#e9eff2', '#deebf2', '#d0e4ef', '#bfdceb', '#add2e5', '#98c7df', '#82bad8',
  '#6bacd0', '#569dc8', '#448ec1', '#367fb8', '#2a71ae', '#2061a0', '#17518e', '#0e4178', '#053061'];
const rdbuLight = colors.ramp(RDBU_STOPS);
const DARK_CENTRE = '#303038';
const rdbuDark = colors.ramp([RDBU_STOPS[8], DARK_CENTRE, RDBU_STOPS[24]]);

/**
 * A scale for values in [-limit, limit] (values beyond are clamped; NaN takes the centre's colour).
 * @param options { dark }: the variant for a dark background (dark centre, light ends)
 * @returns { color(v), rgb(v), textColor(v), gradient(), stops, low, high } as heatmap views use, and
 *   forExport(): the light variant of a dark scale (null when already light)
 */
function divergingScale(limit, { dark = false } = {}) {
  const L = Number.isFinite(limit) && limit > 0 ? limit : 1;
  const rdbu = dark ? rdbuDark : rdbuLight;
  // RdBu runs from red (0) through its centre (0.5) to blue (1).
  const position = (v) => (Number.isFinite(v) ? 0.5 - Math.max(-1, Math.min(1, v / L)) / 2 : 0.5);
  const color = (v) => rdbu.color(position(v));
  const stops = Array.from({ length: 11 }, (_, k) => [k / 10, color(-L + (2 * L * k) / 10)]);
  return {
    color,
    rgb: (v) => rdbu.rgb(position(v)),
    textColor(v) {
      const bg = rdbu.rgb(position(v));
      return colors.contrast(bg, [0, 0, 0]) >= colors.contrast(bg, [255, 255, 255]) ? '#000000' : '#ffffff';
    },
    gradient: (direction = 'to right') => `linear-gradient(${direction}, ${stops.map(([o, c]) => `${c} ${o * 100}%`).join(', ')})`,
    stops,
    low: `${num(-L, 2)}`,
    high: `+${num(L, 2)}`,
    // Exported files use the light theme's colours (ui/export.js), whatever the page shows.
    forExport: () => (dark ? divergingScale(limit) : null),
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

module.exports = { divergingScale, VIRIDIS, RDBU_STOPS, DARK_CENTRE };
