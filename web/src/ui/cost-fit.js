'use strict';
// Fitting a power law to measurements: least squares on log-log, the slope being the
// exponent (time ~ n^slope). DOM-free; the measurements come from the engine's runs.

/** The median of a non-empty list of numbers (mean of the middle two for an even count). */
function median(values) {
  if (!Array.isArray(values) || values.length === 0 || values.some((v) => typeof v !== 'number' || Number.isNaN(v))) {
    throw new Error('median: values must be a non-empty array of numbers');
  }
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Least-squares line through (log x, log y): y ~ c x^slope. Points with x or y not finite
 * and positive are left out.
 * @returns { slope, intercept (natural log of c), points (how many were used) }, or null
 *   with fewer than two distinct x
 */
function logLogFit(xs, ys) {
  const pts = [];
  xs.forEach((x, i) => {
    const y = ys[i];
    if (Number.isFinite(x) && x > 0 && Number.isFinite(y) && y > 0) pts.push([Math.log(x), Math.log(y)]);
  });
  if (pts.length < 2) return null;
  const mx = pts.reduce((a, p) => a + p[0], 0) / pts.length;
  const my = pts.reduce((a, p) => a + p[1], 0) / pts.length;
  let sxx = 0, sxy = 0;
  for (const [x, y] of pts) {
    sxx += (x - mx) * (x - mx);
    sxy += (x - mx) * (y - my);
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx, points: pts.length };
}

/**
 * The slope over the larger sizes, where fixed per-call costs no longer hide the growth:
 * points with x >= from when at least two are there, else every point.
 * @returns { slope, intercept, points, from, to } or null
 */
function tailSlope(xs, ys, from) {
  const usable = xs.map((x, i) => [x, ys[i]]).filter(([x, y]) => Number.isFinite(y) && y > 0);
  const tail = usable.filter(([x]) => x >= from);
  const chosen = tail.length >= 2 ? tail : usable;
  const fit = logLogFit(chosen.map((p) => p[0]), chosen.map((p) => p[1]));
  return fit && { ...fit, from: chosen[0][0], to: chosen[chosen.length - 1][0] };
}

module.exports = { median, logLogFit, tailSlope };
