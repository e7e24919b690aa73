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
 * @returns { slope, intercept (natural log of c), points (how many were used), slopeError
 *   (the slope's standard error; null with two points, which a line always fits) }, or null
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
  const intercept = my - slope * mx;
  let slopeError = null;
  if (pts.length > 2) {
    const rss = pts.reduce((a, [x, y]) => a + (y - intercept - slope * x) ** 2, 0);
    slopeError = Math.sqrt(rss / (pts.length - 2) / sxx);
  }
  return { slope, intercept, points: pts.length, slopeError };
}

/** The fewest sizes a slope is fitted from: through two points any line fits exactly. */
const MIN_FIT_POINTS = 3;
/** A slope whose standard error passes this is called noisy. */
const NOISY_SLOPE_ERROR = 0.25;

/**
 * The slope over the larger sizes, where fixed per-call costs no longer hide the growth:
 * the measured points with x >= from, or the last MIN_FIT_POINTS measured points when fewer
 * lie there.
 * @returns { slope, intercept, points, slopeError, from, to }, or null with fewer than
 *   MIN_FIT_POINTS measured points
 */
function tailSlope(xs, ys, from) {
  const usable = xs.map((x, i) => [x, ys[i]]).filter(([x, y]) => Number.isFinite(x) && x > 0 && Number.isFinite(y) && y > 0);
  if (usable.length < MIN_FIT_POINTS) return null;
  const tail = usable.filter(([x]) => x >= from);
  const chosen = tail.length >= MIN_FIT_POINTS ? tail : usable.slice(-MIN_FIT_POINTS);
  const fit = logLogFit(chosen.map((p) => p[0]), chosen.map((p) => p[1]));
  return fit && { ...fit, from: chosen[0][0], to: chosen[chosen.length - 1][0] };
}

/**
 * What a reader should know before trusting fitted slopes of time against n: '' when
 * nothing, else sentences. Both methods do n^2 d multiply-adds, so a slope well below 2 from
 * times that fit their line means fixed per-call costs still weigh, not that the work grows
 * more slowly.
 * @param fits [{ fit: a tailSlope result or null, name: the method as the reader sees it }]
 */
function fitCaveats(fits) {
  const notes = [];
  const noisy = (fit) => fit.slopeError !== null && fit.slopeError > NOISY_SLOPE_ERROR;
  for (const { fit, name } of fits) {
    if (fit && noisy(fit)) {
      notes.push(`The ${name} times scatter around the fitted line (slope uncertain by about \u00b1${fit.slopeError.toFixed(1)}): read it loosely, or run again.`);
    }
  }
  // A low slope from scattered times says nothing about fixed costs (a busy machine can even
  // make a larger n look faster): only the scatter is named then.
  const low = fits.filter(({ fit }) => fit && fit.slope < 1.5 && !noisy(fit));
  if (low.length) {
    const list = low.map(({ fit, name }) => `${name} ${fit.slope.toFixed(2)}`).join(', ');
    notes.push(`A slope below 1.5 (${list}) is not linear growth: the work is n\u00b2 d multiply-adds, and at these sizes fixed costs per call still hide part of it.`);
  }
  return notes.join(' ');
}

/** fitCaveats for one method. */
function fitCaveat(fit, name) {
  return fitCaveats([{ fit, name }]);
}

module.exports = { median, logLogFit, tailSlope, fitCaveat, fitCaveats, MIN_FIT_POINTS, NOISY_SLOPE_ERROR };
