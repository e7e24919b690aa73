'use strict';
// What a training run of <attention-trainer> has produced so far, and what its charts, status
// line, export and reveal read from it. DOM-free. Every number in it came from the engine (the
// losses of each step, the heads' scores); this keeps them, thins them for drawing and reads
// them back.

const { grouped } = require('./format.js');

/** An induction score at or above this counts as an induction head (Olsson et al. use 0.5 too). */
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

class TrainingLog {
  constructor() {
    this.losses = [];   // losses[i]: the mean loss of step i + 1
    this.scores = [];   // [{ step, heads: [{ layer, head, previousToken, induction }] }]
    this.formed = null; // the first record with an induction head, as { step, layer, head, score }
  }

  get steps() { return this.losses.length; }

  /** Appends the losses of steps `first`, first + 1, ...; a gap or overlap is a programming error. */
  addLosses(first, values) {
    if (first !== this.losses.length + 1) throw new Error(`TrainingLog: losses from step ${first} after step ${this.losses.length}`);
    for (const v of values) this.losses.push(v);
  }

  addScores(step, heads) {
    this.scores.push({ step, heads });
    if (this.formed) return;
    const best = bestHead(heads, 'induction');
    if (best && best.induction >= FORMED) this.formed = { step, layer: best.layer, head: best.head, score: best.induction };
  }

  lastLoss() { return this.losses.length ? this.losses[this.losses.length - 1] : null; }

  latestScores() { return this.scores.length ? this.scores[this.scores.length - 1].heads : null; }

  /**
   * The loss curve thinned to at most `points` points: each point is the mean loss of the
   * steps in its stretch, placed at the stretch's last step ({ xs, ys, per }: per steps each).
   */
  lossSeries(points = 300) {
    const n = this.losses.length;
    const per = Math.max(1, Math.ceil(n / points));
    const xs = [], ys = [];
    for (let start = 0; start < n; start += per) {
      const stop = Math.min(start + per, n);
      let sum = 0;
      for (let i = start; i < stop; i++) sum += this.losses[i];
      xs.push(stop);
      ys.push(sum / (stop - start));
    }
    return { xs, ys, per };
  }

  /** The best head's previous-token and induction scores at each reading: { xs, previous, induction }. */
  scoreSeries() {
    return {
      xs: this.scores.map((r) => r.step),
      previous: this.scores.map((r) => bestHead(r.heads, 'previousToken').previousToken),
      induction: this.scores.map((r) => bestHead(r.heads, 'induction').induction),
    };
  }

  /** The smallest and largest loss over steps [from, to] (1-based, inclusive). */
  lossRange(from, to) {
    const part = this.losses.slice(Math.max(0, from - 1), Math.min(this.losses.length, to));
    return part.length ? { lo: Math.min(...part), hi: Math.max(...part), mean: part.reduce((a, b) => a + b, 0) / part.length } : null;
  }

  /** Every step's loss, with the heads' scores on the steps they were read: CSV text (RFC 4180 line ends, as ui/export.js writes). */
  toCSV() {
    const heads = this.scores.length ? this.scores[0].heads : [];
    const names = heads.flatMap((h) => [`L${h.layer}H${h.head} previous-token`, `L${h.layer}H${h.head} induction`]);
    const byStep = new Map(this.scores.map((r) => [r.step, r.heads]));
    const lines = [['step', 'loss', ...names].join(',')];
    this.losses.forEach((loss, i) => {
      const read = byStep.get(i + 1);
      const cells = read ? read.flatMap((h) => [String(h.previousToken), String(h.induction)]) : names.map(() => '');
      lines.push([String(i + 1), String(loss), ...cells].join(','));
    });
    return `${lines.join('\r\n')}\r\n`;
  }
}

/** The head with the largest `key` score (the first on a tie), or null for no heads. */
function bestHead(heads, key) {
  let best = null;
  for (const h of heads) if (!best || h[key] > best[key]) best = h;
  return best;
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

/**
 * What the run showed about the two predictions: { layer: { ok, message }, curve: { ok, message } },
 * or null while it is too early to say (no induction head yet and fewer than `patience` steps).
 */
function judgeRun(log, prediction, { patience = 1000 } = {}) {
  const formed = log.formed;
  if (!formed && log.steps < patience) return null;
  const out = {};
  if (prediction.layer) {
    const said = prediction.layer;
    const truth = formed ? `layer-${formed.layer}` : 'none';
    const what = formed
      ? `the induction head formed in layer ${formed.layer} (head ${formed.head}, induction score ${formed.score.toFixed(2)} at step ${formed.step})`
      : `no head reached an induction score of ${FORMED} in ${grouped(log.steps)} steps`;
    const why = formed
      ? formed.layer > 0
        ? ' It needs a layer below it: a head there first copies each token\u2019s predecessor into its position, and the induction head\u2019s keys read that.'
        : ''
      : ' With one layer, no head can know what came before each earlier token, so none can look for the token after an earlier copy.';
    out.layer = { ok: said === truth, message: `${said === truth ? 'Right' : 'Not this time'}: ${what}.${why}` };
  }
  if (prediction.curve) {
    const said = prediction.curve;
    let truth, what;
    if (formed) {
      // The plateau: past the first quarter of the run to the head (the quick first fall from
      // the random start), up to shortly before it.
      const from = Math.ceil(formed.step / 4), to = Math.max(from, formed.step - 25);
      const before = log.lossRange(from, to);
      const after = log.lossRange(formed.step, Math.min(log.steps, formed.step + 100));
      truth = 'plateau';
      what = `after a quick first fall, the loss levelled off at about ${before.mean.toFixed(2)} (its mean from step ${grouped(from)} to ${grouped(to)}), then fell to ${after.lo.toFixed(2)} within 100 steps, as the induction head formed at step ${grouped(formed.step)}`;
    } else {
      const early = log.lossRange(1, Math.min(log.steps, 10));
      const late = log.lossRange(Math.max(1, log.steps - 100), log.steps);
      truth = 'early';
      what = `the loss fell from about ${early.mean.toFixed(2)} to about ${late.mean.toFixed(2)} (its mean over the last 100 steps), with no sudden drop: without an induction head the repeat cannot be predicted`;
    }
    out.curve = { ok: said === truth, message: `${said === truth ? 'Right' : 'Not this time'}: ${what}.` };
  }
  return out;
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
  parseSeed, divergenceText,
  TrainingLog, bestHead, stepsPerSecond, judgeRun, layerChoices, FORMED, LEARNING_RATES, LAYER_CHOICES, HEAD_CHOICES,
  TASK_CHOICES, LAYER_QUESTION, CURVE_QUESTION, CURVE_CHOICES,
};
