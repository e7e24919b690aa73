'use strict';
// <position-race>'s rules, DOM-free: the race's fixed settings, the formation steps read from
// the engine's per-step records, when a scheme still works past its training length, the
// learner's predicted ranking judged against the engine's, and the two charts' options (for
// kit/svg.js lineChart). tests/node/position-race.test.js checks them against the engine.

const { TrainingLog } = require('./training-log.js');
const { fixed, grouped } = require('./format.js');

/** The five position schemes, in the order the race shows them. */
const SCHEMES = [
  { value: 'learned', label: 'learned table' },
  { value: 'sinusoidal', label: 'sinusoidal' },
  { value: 'rope', label: 'RoPE' },
  { value: 'alibi', label: 'ALiBi' },
  { value: 'none', label: 'no positions' },
];
/** Steps each scheme trains; the seed; the lengths read after training (2x and 4x seqLen 32). */
const BUDGET = 1000;
const SEED = 1;
const LENGTHS = [64, 128];
/** A scheme still works at a length when its mean loss on the positions past training stays under this (nats): the right token gets more than 1/e of the probability on average. */
const WORKS_BELOW = 1;

/** createTrainer's options for one scheme: the trainer's defaults, the scheme, seed 1. */
function raceOptions(defaults, positions) {
  return { ...defaults, positions, seed: SEED };
}

/** The step (first + i) of the first record at or above `threshold` (the engine's own rule for formed), or null. */
function firstAtOrAbove(values, threshold, first = 1) {
  for (let i = 0; i < values.length; i++) if (values[i] >= threshold) return first + i;
  return null;
}

/** One scheme's run as the page sees it: the engine's records of every step, and when each head formed. */
class Lane {
  constructor(scheme, threshold) {
    this.scheme = scheme;
    this.threshold = threshold;
    this.log = new TrainingLog();
    this.formed = { previousToken: null, induction: null };
    this.lengths = null;  // after training: [{ length, loss, mean, past } or { length, refused }]
  }

  get steps() { return this.log.steps; }

  /** Appends a report (TrainingSession.run's) and marks the first step each head's score reached the threshold. */
  add(report) {
    const at = this.log.steps + 1;
    this.log.addRecord(report.first, report);
    for (const key of ['previousToken', 'induction']) {
      if (this.formed[key] === null && report[key]) this.formed[key] = firstAtOrAbove(report[key], this.threshold, at);
    }
  }

  /** The engine's loss by position at each length (or its refusal), with the mean past the training length. */
  setLengths(results, seqLen) {
    this.lengths = results.map((r) => (r.refused ? r : { ...r, past: pastMean(r.loss, seqLen) }));
  }
}

/** The mean of the scored losses at positions from `from` on (null when none is scored). */
function pastMean(loss, from) {
  let sum = 0, n = 0;
  for (let i = from; i < loss.length; i++) {
    if (loss[i] === null) continue;
    sum += loss[i];
    n += 1;
  }
  return n ? sum / n : null;
}

/** Whether a lane works at `length`: true, false, or 'refused' (a learned table has no vector there). */
function worksAt(lane, length) {
  const r = lane.lengths && lane.lengths.find((x) => x.length === length);
  if (!r) return null;
  if (r.refused) return 'refused';
  return r.past !== null && r.past < WORKS_BELOW;
}

/** The engine's ranking: each scheme's place by the step its induction head formed (1 = first), or 'none'. */
function ranking(lanes) {
  const formed = lanes.filter((l) => l.formed.induction !== null).sort((a, b) => a.formed.induction - b.formed.induction);
  const out = {};
  for (const l of lanes) out[l.scheme] = l.formed.induction === null ? 'none' : String(formed.indexOf(l) + 1);
  return out;
}

const PLACES = [
  { value: '1', label: '1st' }, { value: '2', label: '2nd' }, { value: '3', label: '3rd' }, { value: '4', label: '4th' }, { value: '5', label: '5th' },
  { value: 'none', label: 'none' },
];
const labelOf = (value) => SCHEMES.find((s) => s.value === value).label;
const listed = (names) => (names.length ? names.map(labelOf).join(', ') : 'none');

/**
 * Whether a prediction can be locked in: every scheme placed, no place given twice.
 * @param p { place: { scheme: '1'..'5' | 'none' | '' }, works: { 64: Set, 128: Set } }
 * @returns null when it can, else what is missing
 */
function predictionProblem(p) {
  const places = SCHEMES.map((s) => p.place[s.value] || '');
  if (places.some((x) => !x)) return 'Give every scheme a place (or none).';
  const taken = places.filter((x) => x !== 'none');
  const twice = taken.find((x, i) => taken.indexOf(x) !== i);
  if (twice) return `Two schemes are placed ${PLACES.find((x) => x.value === twice).label}: each place once.`;
  const ranks = taken.map(Number).sort((a, b) => a - b);
  if (ranks.some((r, i) => r !== i + 1)) return `Places run 1st, 2nd, ... without a gap (${ranks.length} placed: 1st to ${PLACES[ranks.length - 1].label}).`;
  return null;
}

/**
 * The prediction judged against the race: the places, and which schemes still work at each length.
 * @returns { places: { ok, message }, lengths: [{ length, ok, message }] }
 */
function judgePrediction(p, lanes) {
  const truth = ranking(lanes);
  const right = SCHEMES.filter((s) => p.place[s.value] === truth[s.value]).map((s) => s.value);
  const order = lanes.filter((l) => l.formed.induction !== null).sort((a, b) => a.formed.induction - b.formed.induction);
  const said = order.length ? `the engine\u2019s order: ${order.map((l) => `${labelOf(l.scheme)} (step ${grouped(l.formed.induction)})`).join(', ')}` : 'no scheme formed an induction head';
  const never = lanes.filter((l) => l.formed.induction === null).map((l) => l.scheme);
  const places = { ok: right.length === SCHEMES.length,
    message: `${right.length === SCHEMES.length ? 'Right' : `${right.length} of ${SCHEMES.length} placed right`}: ${said}${never.length ? `; none in ${grouped(BUDGET)} steps: ${listed(never)}` : ''}.` };
  const lengths = LENGTHS.map((length) => {
    const works = lanes.filter((l) => worksAt(l, length) === true).map((l) => l.scheme);
    const mine = SCHEMES.map((s) => s.value).filter((v) => p.works[length].has(v));
    const ok = works.length === mine.length && works.every((v) => mine.includes(v));
    const low = lowestAt(lanes, length);
    const lowest = low ? ` Lowest: ${labelOf(low.scheme)}, ${fixed(low.past, 2)} nats.` : '';
    return { length, ok, message: `${ok ? 'Right' : 'Not quite'} at ${length} tokens: you said ${listed(mine)}; still working (loss from position 32 on under ${WORKS_BELOW} nat): ${listed(works)}.${lowest}` };
  });
  return { places, lengths };
}

/** What a lane's formation says in the results table (its header says "at step"): "192", or "none" once the budget is spent, else "not yet". */
function formedText(lane, key) {
  const step = lane.formed[key];
  if (step !== null) return grouped(step);
  return lane.steps >= BUDGET ? 'none' : 'not yet';
}

/** What a lane's loss past the training length says at `length`; short: the results table's cell ("1.80", "refused"). */
function lengthText(lane, length, short = false) {
  const r = lane.lengths && lane.lengths.find((x) => x.length === length);
  if (!r) return '';
  if (r.refused) return short ? 'refused' : 'no vector from 32 on';
  return short ? fixed(r.past, 2) : `${fixed(r.past, 2)} nats`;
}

/** The scheme with the lowest mean loss past the training length at `length` (the lesson's question), or null before the reading. */
function lowestAt(lanes, length) {
  let best = null;
  for (const l of lanes) {
    const r = l.lengths && l.lengths.find((x) => x.length === length);
    if (r && !r.refused && r.past !== null && (!best || r.past < best.past)) best = { scheme: l.scheme, past: r.past };
  }
  return best;
}

/** The legend's entry for the position chart's guide line: under it a scheme still works. */
const GUIDE_LEGEND = { name: `${WORKS_BELOW} nat: under it a scheme still works`, cls: 'al-guide' };

/** Classes of the five lines, one per scheme (kit/race-styles.js). */
const CURVES = SCHEMES.map((s, k) => `al-race-${k}`);

/**
 * The two charts' options: the loss of every scheme by step, and (after training) the loss at
 * each position of `length`-token sequences, with the training length marked.
 */
function raceCharts(lanes, { length = LENGTHS[LENGTHS.length - 1], seqLen = 32 } = {}) {
  const runs = lanes.map((l) => l.log.lossSeries(200));
  const longest = runs.reduce((a, b) => (b.xs.length > a.xs.length ? b : a), runs[0]);
  const xs = longest.xs.length ? longest.xs : [0];
  const steps = Math.min(...lanes.map((l) => l.steps));
  const lossTop = Math.max(4, ...runs.flatMap((r) => r.ys.filter(Number.isFinite)));
  const lossOpts = {
    title: 'Training loss of each scheme', xLabel: 'step', yLabel: 'loss (nats)', xMin: 0, xMax: BUDGET, xs, yMax: Math.ceil(lossTop),
    desc: steps ? `After ${grouped(steps)} steps each: ${lanes.map((l) => `${labelOf(l.scheme)} ${fixed(l.log.lastLoss(), 2)}`).join(', ')}.` : 'No step yet.',
    // each run's points at the longest run's steps (the runs move together, a few steps apart)
    series: lanes.map((l, k) => ({ name: labelOf(l.scheme), cls: CURVES[k], ys: xs.map((x, i) => (i < runs[k].ys.length ? runs[k].ys[i] : null)) })),
  };
  const read = lanes.map((l) => l.lengths && l.lengths.find((x) => x.length === length));
  const positions = Array.from({ length }, (_, i) => i);
  const top = Math.max(4, ...read.flatMap((r) => (r && !r.refused ? r.loss.filter((x) => x !== null) : [])));
  const positionOpts = {
    title: `Loss at each position of ${length}-token sequences`, xLabel: 'position', yLabel: 'loss (nats)', xMin: 0, xMax: length - 1, xs: positions, yMax: Math.ceil(top),
    desc: read.some(Boolean) ? `Trained on ${seqLen} tokens. Mean loss from position ${seqLen} on: ${lanes.map((l) => `${labelOf(l.scheme)} ${lengthText(l, length)}`).join(', ')}.` : 'Read once training ends.',
    series: lanes.map((l, k) => ({ name: labelOf(l.scheme), cls: CURVES[k], ys: read[k] && !read[k].refused ? read[k].loss : positions.map(() => null) })),
    marks: [{ x: seqLen, label: 'training length' }],
    // unlabelled on the chart (a label at its end sat on the curves): the legend under it names the line
    guides: [{ y: WORKS_BELOW, label: '' }],
  };
  return [lossOpts, positionOpts];
}

module.exports = { SCHEMES, BUDGET, SEED, LENGTHS, WORKS_BELOW, PLACES, CURVES, raceOptions, firstAtOrAbove, Lane, pastMean, worksAt, ranking,
  predictionProblem, judgePrediction, formedText, lengthText, lowestAt, GUIDE_LEGEND, raceCharts };
