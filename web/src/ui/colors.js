'use strict';
// The heatmap colour scale: viridis, perceptually uniform and readable with the common
// colour-vision deficiencies. Stops are the published viridis values at 0, 0.1, ..., 1.

const hexToRgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

function clamp01(t) {
  return Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0;
}

/**
 * A colour ramp through evenly spaced stops ('#rrggbb'), linear between them: rgb(t) as
 * [r, g, b] (0-255) and color(t) as CSS for t in [0, 1] (NaN counts as 0).
 */
function ramp(hexStops) {
  const stops = hexStops.map(hexToRgb);
  const rgbAt = (t) => {
    const x = clamp01(t) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(x));
    const f = x - i;
    return stops[i].map((c, k) => Math.round(c + (stops[i + 1][k] - c) * f));
  };
  return { rgb: rgbAt, color: (t) => `rgb(${rgbAt(t).join(', ')})`, stops };
}

const VIRIDIS_STOPS = ['#440154', '#482475', '#414487', '#355f8d', '#2a788e', '#21918c', '#22a884', '#44bf70', '#7ad151', '#bddf26', '#fde725'];
const viridis = ramp(VIRIDIS_STOPS);
const STOPS = viridis.stops;

/** [r, g, b] (0-255) for t in [0, 1], interpolated between the stops. */
const rgb = viridis.rgb;

/** CSS colour for t in [0, 1]. */
const color = viridis.color;

/** Relative luminance (WCAG) of an [r, g, b] colour. */
function luminance([r, g, b]) {
  const lin = (c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG contrast ratio between two [r, g, b] colours. */
function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** Black or white, whichever reads better on the colour for t. */
function textColor(t) {
  const bg = rgb(t);
  return contrast(bg, [0, 0, 0]) >= contrast(bg, [255, 255, 255]) ? '#000000' : '#ffffff';
}

/** A CSS linear-gradient through the scale, for legends. */
function gradient(direction = 'to right') {
  return `linear-gradient(${direction}, ${STOPS.map((c, i) => `rgb(${c.join(', ')}) ${(i * 10)}%`).join(', ')})`;
}

module.exports = { rgb, color, textColor, contrast, luminance, gradient, ramp };
