'use strict';
// What a training run of <attention-trainer> has produced so far, and what its charts, status
// line, export and reveal read from it. DOM-free. Every number in it came from the engine (the
// losses of each step, the heads' scores); this keeps them, thins them for drawing and reads
// them back.

const { grouped } = require('./format.js');

/** An induction score at or above this counts as an induction head (Olsson et al. use 0.5 too); the engine's trainer::formed_threshold. */
const FORMED = 0.5;

/** The settings a reader can change, their choices, and the defaults the widget starts from. */
const LEARNING_RATES = [0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 1, 10];
const LAYER_CHOICES = [1, 2, 3];
const HEAD_CHOICES = [1, 2, 4];
const TASK_CHOICES = [
  { value: 'induction', label: 'induction (a block of random tokens, then its repeat)' },
  { value: 'copy', label: 'copy (tokens, a separator, the same tokens)' },
  { value: 'reverse', label: 'reverse (tokens, a separator, the tokens reversed)' },
  { value: 'sort', label: 'sort (tokens, a separator, the tokens sorted)' },
];

/** The per-step records the engine's step results carry (Trainer.step), by their names there. */
const RECORDS = ['losses', 'accuracies', 'induction', 'previousToken'];

class TrainingLog {
  constructor() {
    this.losses = [];     // losses[i]: the mean loss of step i + 1
    this.accuracies = []; // the fraction of step i + 1's scored positions it got right
    this.induction = [];  // induction task: the best head's induction score after step i + 1
    this.previousToken = []; // and the best previous-token score on the probe's first copy
    this.scores = [];     // [{ step, heads: [{ layer, head, previousToken, induction, previousTokenFirstCopy }] }]: snapshots
    this.formed = null;   // the engine's record of the first induction head: { step, layer, head, score }
    this.health = null;   // the last step result's { recentLoss, bestLoss, bestAt, rising, worseThanUniform }
  }

  get steps() { return this.losses.length; }

  /** Appends the losses of steps `first`, first + 1, ...; a gap or overlap is a programming error. */
  addLosses(first, values) {
    this.addRecord(first, { losses: values });
  }

  /**
   * Appends what the engine recorded of steps `first`, first + 1, ... (a report of
   * TrainingSession.run or a Trainer.step result: losses, and accuracies, induction and
   * previousToken where it has them), with its formed record and the state of its loss.
   */
  addRecord(first, r) {
    if (first !== this.losses.length + 1) throw new Error(`TrainingLog: losses from step ${first} after step ${this.losses.length}`);
    for (const key of RECORDS) if (r[key]) for (const v of r[key]) this[key].push(v);
    if (r.formed && !this.formed) this.formed = { ...r.formed };
    if (r.recentLoss !== undefined) {
      const { recentLoss, bestLoss, bestAt, rising, worseThanUniform } = r;
      this.health = { step: this.losses.length, recentLoss, bestLoss, bestAt, rising, worseThanUniform };
    }
  }

  /** A snapshot of every head's scores (for the heads' cards and the CSV). */
  addScores(step, heads) {
    this.scores.push({ step, heads });
  }

  lastLoss() { return this.losses.length ? this.losses[this.losses.length - 1] : null; }

  /** The last recorded value of a per-step record (null when there is none). */
  last(key) { return this[key].length ? this[key][this[key].length - 1] : null; }

  /**
   * A per-step record thinned to at most `points` points: each point is the mean of the steps
   * in its stretch, placed at the stretch's last step ({ xs, ys, per }: per steps each).
   */
  series(key, points = 300) {
    const values = this[key], n = values.length;
    const per = Math.max(1, Math.ceil(n / points));
    const xs = [], ys = [];
    for (let start = 0; start < n; start += per) {
      const stop = Math.min(start + per, n);
      let sum = 0;
      for (let i = start; i < stop; i++) sum += values[i];
      xs.push(stop);
      ys.push(sum / (stop - start));
    }
    return { xs, ys, per };
  }

  /** The loss curve thinned (series of the losses). */
  lossSeries(points = 300) { return this.series('losses', points); }

  /** The smallest and largest loss over steps [from, to] (1-based, inclusive). */
  lossRange(from, to) {
    const part = this.losses.slice(Math.max(0, from - 1), Math.min(this.losses.length, to));
    return part.length ? { lo: Math.min(...part), hi: Math.max(...part), mean: part.reduce((a, b) => a + b, 0) / part.length } : null;
  }

  /**
   * Every step's loss and accuracy (and, for the induction task, the best head's scores), with
   * every head's scores on the steps they were read: CSV text (RFC 4180 line ends, as ui/export.js writes).
   */
  toCSV() {
    const heads = this.scores.length ? this.scores[0].heads : [];
    const names = heads.flatMap((h) => [`L${h.layer}H${h.head} previous-token`, `L${h.layer}H${h.head} induction`]);
    const best = this.induction.length ? ['best induction', 'best previous-token (first copy)'] : [];
    const byStep = new Map(this.scores.map((r) => [r.step, r.heads]));
    const lines = [['step', 'loss', 'accuracy', ...best, ...names].join(',')];
    this.losses.forEach((loss, i) => {
      const read = byStep.get(i + 1);
      const cells = read ? read.flatMap((h) => [String(h.previousToken), String(h.induction)]) : names.map(() => '');
      const bests = best.length ? [String(this.induction[i]), String(this.previousToken[i])] : [];
      lines.push([String(i + 1), String(loss), String(this.accuracies[i] === undefined ? '' : this.accuracies[i]), ...bests, ...cells].join(','));
    });
    return `${lines.join('\r\n')}\r\n`;
  }
}

/** Steps per second over the last few seconds of progress reports ([{ at: ms, step }]). */
function stepsPerSecond(reports, windowMs = 3000) {
  if (reports.length < 2) return null;
  const last = reports[reports.length - 1];
  let first = reports[0];
  for (const r of reports) if (last.at - r.at <= windowMs) { first = r; break; }
  const seconds = (last.at - first.at) / 1000;
  return seconds > 0 && last.step > first.step ? (last.step - first.step) / seconds : null;
}

// ---- predict first ----

const LAYER_QUESTION = 'which layer will hold the induction head, the head that looks back to the token after an earlier copy of the current token?';
const CURVE_QUESTION = 'what will the loss curve do?';
const CURVE_CHOICES = [
  { value: 'steady', label: 'fall steadily from the start' },
  { value: 'plateau', label: 'stay high for a while, then drop steeply' },
  { value: 'early', label: 'drop at once, then level off high' },
];

function layerChoices(layers) {
  const out = [];
  for (let l = 0; l < layers; l++) out.push({ value: `layer-${l}`, label: `layer ${l}` });
  out.push({ value: 'none', label: 'no layer: none forms' });
  return out;
}

// The curve's shape is read from the means of stretches of this many steps.
const STRETCH = 25;

/**
 * The shape of the loss curve so far, from the curve alone (CURVE_CHOICES' values, or 'rose'):
 * - 'rose': the engine says the run is getting worse (its recent mean loss more than riseLimit
 *   nats above its best);
 * - 'plateau': past the first 50 steps, the mean of a stretch falls by a nat or more within
 *   the next 100 steps, after 50 steps that moved less than a quarter as much;
 * - 'early': the first tenth of the run (at least 50 steps) holds 80% of its fall or more, and
 *   the loss ends above 1 nat;
 * - 'steady': any other fall.
 * @returns { shape, ... the numbers its sentence states } or null before `patience` steps,
 *   unless a plateau's drop is already over
 */
function curveShape(log, { patience = 1000 } = {}) {
  const n = log.steps;
  if (n < 4 * STRETCH) return null;
  const m = [];
  for (let k = 0; (k + 1) * STRETCH <= n; k++) m.push(log.lossRange(k * STRETCH + 1, (k + 1) * STRETCH).mean);
  const start = log.lossRange(1, 10).mean, end = m[m.length - 1];
  const best = m.reduce((a, b) => Math.min(a, b));
  const bestAt = (m.indexOf(best) + 1) * STRETCH;
  if (log.health && log.health.rising) return { shape: 'rose', start, best, bestAt, end, at: n };
  let drop = null;
  for (let k = 2; k + 4 < m.length; k++) {
    const d = m[k] - m[k + 4];
    if (d >= 1 && Math.abs(m[k - 2] - m[k]) <= d / 4 && (!drop || d > drop.d)) drop = { k, d };
  }
  if (drop) {
    // the plateau: from the first quick fall (a tenth of the way) to the drop's start
    const from = Math.max(1, Math.ceil(drop.k / 10)) * STRETCH + 1, to = (drop.k + 1) * STRETCH;
    return { shape: 'plateau', start, level: log.lossRange(from, to).mean, from, to, after: m[drop.k + 4], by: (drop.k + 5) * STRETCH };
  }
  if (n < patience) return null;
  const fall = start - end;
  const tenth = Math.max(50, Math.round(n / 10));
  const early = log.lossRange(tenth - STRETCH + 1, tenth).mean;
  return { shape: fall > 0 && start - early >= 0.8 * fall && end > 1 ? 'early' : 'steady', start, end, tenth, early };
}

/** The sentence that says what the curve did (after "Right: " or "Not this time: "). */
function curveText(c) {
  const f = (x) => x.toFixed(2);
  if (c.shape === 'rose') return `the loss fell to ${f(c.best)} (the mean of the ${STRETCH} steps to step ${grouped(c.bestAt)}), then rose again to ${f(c.end)}: none of the three`;
  if (c.shape === 'plateau') {
    return `after a quick first fall, the loss stayed at about ${f(c.level)} (its mean from step ${grouped(c.from)} to ${grouped(c.to)}), then dropped to ${f(c.after)} by step ${grouped(c.by)}`;
  }
  return `the loss fell from about ${f(c.start)} to ${f(c.end)} (the mean of its last ${STRETCH} steps); ${c.shape === 'early'
    ? `most of that fall came in the first ${grouped(c.tenth)} steps: it dropped at once, then levelled off` : `it was still falling after the first ${grouped(c.tenth)} steps (${f(c.early)} then): it fell steadily from the start`}`;
}

/**
 * What the run showed about the two predictions: { layer: { ok, message }, curve: { ok, message } }
 * (either may be absent), or null while it is too early to say. The layer is judged once the
 * engine marks an induction head (or after `patience` steps without one), the curve by its shape
 * alone (curveShape).
 */
function judgeRun(log, prediction, { patience = 1000 } = {}) {
  const formed = log.formed;
  const out = {};
  if (prediction.layer && (formed || log.steps >= patience)) {
    const said = prediction.layer;
    const truth = formed ? `layer-${formed.layer}` : 'none';
    let what = formed
      ? `the induction head formed in layer ${formed.layer} (head ${formed.head}, induction score ${formed.score.toFixed(2)} at step ${grouped(formed.step)})`
      : `no head reached an induction score of ${FORMED} in ${grouped(log.steps)} steps`;
    const now = log.last('induction');
    // a head that formed and then came apart: said, not reported as if it stayed
    if (formed && now !== null && now < FORMED) what += `, then came apart: the best induction score is ${now.toFixed(2)} at step ${grouped(log.steps)}`;
    const why = formed
      ? formed.layer > 0
        ? ' It needs a layer below it: a head there first copies each token\u2019s predecessor into its position, and the induction head\u2019s keys read that.'
        : ''
      : ' With one layer, no head can know what came before each earlier token, so none can look for the token after an earlier copy.';
    out.layer = { ok: said === truth, message: `${said === truth ? 'Right' : 'Not this time'}: ${what}.${why}` };
  }
  const curve = prediction.curve ? curveShape(log, { patience }) : null;
  if (curve) out.curve = { ok: prediction.curve === curve.shape, message: `${prediction.curve === curve.shape ? 'Right' : 'Not this time'}: ${curveText(curve)}.` };
  return out.layer || out.curve ? out : null;
}

// ---- the reader's input and the engine's refusals ----

/**
 * The seed box's text as a number for the engine, or why it is not one. Only the syntax is
 * checked here: the engine decides the range (a whole number from 0 to 2^53 - 1) and says so.
 */
function parseSeed(text) {
  const t = String(text).trim();
  if (t === '') return { ok: false, message: 'type a seed: a whole number such as 7' };
  const value = Number(t);
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t) || Number.isNaN(value)) {
    return { ok: false, message: `“${t.length > 24 ? `${t.slice(0, 24)}…` : t}” is not a number; type a whole number such as 7` };
  }
  return { ok: true, value };
}

/**
 * Plain words for a run that got worse than a uniform guess (the engine's worseThanUniform):
 * its recent loss against a uniform guess's and its own best, and the head that came apart.
 */
function worseText(log, { uniformLoss, lossWindow, options }) {
  const h = log.health;
  const formed = log.formed, now = log.last('induction');
  const head = formed && now !== null && now < FORMED
    ? ` The induction head that formed at step ${grouped(formed.step)} has come apart: the best induction score is ${now.toFixed(2)}.`
    : '';
  // Just past the uniform loss the two agree to 2 decimals: more, until they differ (at most 6).
  let digits = 2;
  while (digits < 6 && h.recentLoss.toFixed(digits) === uniformLoss.toFixed(digits)) digits++;
  return `By step ${grouped(h.step)} the loss averaged ${h.recentLoss.toFixed(digits)} nats over the last ${lossWindow} steps: worse than ${uniformLoss.toFixed(digits)}, ` +
    `the loss of a model that gives all ${options.vocab} tokens the same chance. At step ${grouped(h.bestAt)} it was down to ${h.bestLoss.toFixed(2)}.${head} ` +
    `A learning rate of ${options.lr} moves the weights too far at each step. Reset and choose a smaller one, or continue. `;
}

/** Plain words for a run that diverged: at which step, what the loss did, what to do. */
function divergenceText({ step, loss }, { divergenceLimit: limit, uniformLoss, options }) {
  const what = Number.isNaN(loss)
    ? 'the loss stopped being a number: the weights overflowed'
    : !Number.isFinite(loss)
      ? 'the loss grew past the largest number the engine can hold'
      : `the loss reached ${loss >= 1e4 ? loss.toExponential(1) : loss.toFixed(1)} nats, past the limit of ${limit.toFixed(1)} (guessing among the ${options.vocab} tokens at random scores ${uniformLoss.toFixed(2)})`;
  return `At step ${step} ${what}. A learning rate of ${options.lr} moves every weight too far at each step. Reset to start again, or choose a smaller learning rate first. `;
}

module.exports = {
  parseSeed, divergenceText, worseText, curveShape,
  TrainingLog, stepsPerSecond, judgeRun, layerChoices, FORMED, LEARNING_RATES, LAYER_CHOICES, HEAD_CHOICES,
  TASK_CHOICES, LAYER_QUESTION, CURVE_QUESTION, CURVE_CHOICES,
};
