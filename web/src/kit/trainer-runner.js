'use strict';
// Where <attention-trainer>'s training runs: in a Web Worker made from this script
// (engine-worker.js), or, where the page's Content-Security-Policy forbids blob: workers, on
// the page itself in slices short enough that no task reaches 50 ms. Both runners hold one
// TrainingSession and speak the same protocol to the widget: create(options) -> info,
// train() (reports arrive through onReport until pause() or divergence), step(),
// exportWeights(), ablate(spec), composition(), stop().

const { RunClient, PageLoop } = require('./run-worker.js');

// One training run inside one engine. It is also sent to the worker as source text, so it
// uses nothing from outside itself but the `lab` it is given.
class TrainingSession {
  constructor(lab, options) {
    this.trainer = lab.createTrainer(options);
    // The same heads untrained: what composition scores come to by chance for this shape and seed.
    this.untrained = this.trainer.options.layers > 1 ? this.trainer.composition().composition : null;
    this.msPerStep = 0;
    // The longest engine call while waiting for an induction head (run()).
    this.callMs = 30;
  }

  info() {
    const t = this.trainer;
    return { options: t.options, example: t.example, memory: t.memory, parameters: t.parameters, divergenceLimit: t.divergenceLimit, uniformLoss: t.uniformLoss,
      formedThreshold: t.formedThreshold, lossWindow: t.lossWindow, riseLimit: t.riseLimit, recordsHeads: t.recordsHeads };
  }

  /**
   * Trains for about `budgetMs` (at least one step, at most `maxSteps`); each engine call is
   * sized from the time of the calls before it. Until an induction head has formed, a call
   * takes at most `callMs` and the run ends at the call in which the engine marks one, so the
   * widget hears of it within a call rather than at the end of the slice.
   */
  run(budgetMs, maxSteps) {
    const t = this.trainer;
    const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());
    const start = now(), first = t.steps + 1, parts = [];
    const watching = t.recordsHeads && !t.formed;
    let left = maxSteps, total = 0, r = null, worse = false;
    while (left > 0) {
      const spent = now() - start;
      const fit = this.msPerStep > 0 ? Math.floor((budgetMs - spent) / this.msPerStep) : 1;
      if (parts.length && fit < 1) break;
      const call = watching && this.msPerStep > 0 ? Math.max(1, Math.min(fit, Math.floor(this.callMs / this.msPerStep))) : fit;
      // A rising run goes one update a call, so that it stops at the very update the engine
      // first finds it worse than a uniform guess (the same step on any machine).
      const last = r || this.last;
      const count = last && last.rising && !this.worseSeen ? 1 : Math.max(1, Math.min(left, call));
      const t0 = now();
      r = t.step(count);
      const ms = (now() - t0) / count;
      this.msPerStep = this.msPerStep > 0 ? 0.7 * this.msPerStep + 0.3 * ms : ms;
      parts.push(r);
      total += r.losses.length;
      left -= count;
      // A run that gets worse than a uniform guess stops the first time it does (the widget
      // says so; Continue goes on from there).
      if (r.worseThanUniform && !this.worseSeen) {
        this.worseSeen = true;
        worse = true;
      }
      if (r.diverged || worse || (watching && r.formed) || now() - start >= budgetMs) break;
    }
    if (!r) return { first, step: t.steps, losses: new Float64Array(0), diverged: t.diverged };
    this.last = r;
    // The engine's record of every update, joined: losses, accuracies and (induction task) the best head scores.
    const joined = (key) => {
      if (!parts.length || !parts[0][key]) return null;
      const out = new Float64Array(total);
      let at = 0;
      for (const p of parts) {
        out.set(p[key], at);
        at += p[key].length;
      }
      return out;
    };
    return {
      first, step: t.steps, losses: joined('losses'), accuracies: joined('accuracies'), induction: joined('induction'), previousToken: joined('previousToken'),
      recentLoss: r.recentLoss, bestLoss: r.bestLoss, bestAt: r.bestAt, rising: r.rising, worseThanUniform: r.worseThanUniform, formed: r.formed,
      stopped: worse, diverged: t.diverged, divergedAt: t.divergedAt, divergedLoss: t.divergedLoss,
    };
  }

  /** The heads' scores and their weights on the task's example, as they are now. */
  snapshot() {
    const t = this.trainer;
    return { step: t.steps, scores: t.headScores(), patterns: t.attention(t.example).patterns.data };
  }

  exportWeights() { return this.trainer.exportWeights(); }

  /** Heads knocked out ({ heads, mode }): the figures the widget shows, plain numbers (a worker posts them). */
  ablate(spec) {
    const r = this.trainer.ablate({ heads: spec.heads, mode: spec.mode });
    return { step: this.trainer.steps, heads: r.heads, mode: r.mode, loss: r.loss, scoredLoss: r.scoredLoss, induction: r.induction, previousToken: r.previousToken,
      baseline: { loss: r.baseline.loss, scoredLoss: r.baseline.scoredLoss } };
  }

  /** How the heads compose, and each head's copying score, as they are now. */
  composition() {
    const c = this.trainer.composition();
    return { step: this.trainer.steps, composition: c.composition, untrained: this.untrained, copying: c.copying.map(({ layer, head, score }) => ({ layer, head, score })) };
  }

  dispose() { this.trainer.dispose(); }

  /** The buffers of run()'s report, for a worker to transfer rather than copy. */
  static buffers(r) { return [r.losses, r.accuracies, r.induction, r.previousToken].filter(Boolean).map((a) => a.buffer); }
}

// Engine time per report: a worker reports about 8 times a second; the page's own thread
// trains in slices that leave room for drawing within a 50 ms task.
const WORKER_SLICE_MS = 120;
const PAGE_SLICE_MS = 20;
// How often the heads' scores and patterns are read while training runs.
const SNAPSHOT_MS = 250;

// The run in a worker (run-worker.js's Work), sent there as source text with TrainingSession:
// slices of training, each posted with the heads' snapshot every snapshotMs and at the end; a
// single step; the weights, a knock-out's figures and the composition, between slices.
class TrainerWork {
  constructor(lab, options, Session, sliceMs, snapshotMs) {
    this.Session = Session;
    this.session = new Session(lab, options);
    this.sliceMs = sliceMs;
    this.snapshotMs = snapshotMs;
    this.limit = Infinity;
    this.lastSnapshot = 0;
  }

  created() { return { info: this.session.info(), snapshot: this.session.snapshot() }; }

  goal(m) { this.limit = m.limit; }

  report(r, withSnapshot) {
    const transfer = this.Session.buffers(r);
    if (withSnapshot) {
      const snap = r.snapshot = this.session.snapshot();
      transfer.push(snap.patterns.buffer);
      this.lastSnapshot = Date.now();
    }
    return [{ type: 'progress', report: r }, transfer];
  }

  turn() {
    const s = this.session;
    const r = s.run(this.sliceMs, this.limit - s.trainer.steps);
    const done = r.diverged || r.stopped || s.trainer.steps >= this.limit;
    return { posts: [this.report(r, done || Date.now() - this.lastSnapshot >= this.snapshotMs)], done };
  }

  handle(m) {
    const s = this.session;
    if (m.type === 'step') return { stop: true, posts: [this.report(s.run(0, 1), true)] };
    const result = m.type === 'export' ? s.exportWeights() : m.type === 'ablate' ? s.ablate(m.spec) : s.composition();
    return { posts: [[{ type: 'answer', to: m.type, result }]] };
  }

  dispose() { this.session.dispose(); }
}

/** Trains in a worker. onReport(report), onStopped(), onError(Error) are set by the widget. */
class WorkerTrainer extends RunClient {
  static get label() { return 'attention-trainer'; }

  static workerArgs() { return [TrainerWork, TrainingSession, WORKER_SLICE_MS, SNAPSHOT_MS]; }

  onMessage(m) {
    if (m.type === 'progress') this.onReport(m.report);
  }

  train(limit) { this.send({ type: 'train', limit }); }

  step() { this.send({ type: 'step' }); }

  exportWeights() { return this.request({ type: 'export' }); }

  /** Resolves to TrainingSession.ablate's figures. One request of a type at a time (the widget waits for each). */
  ablate(spec) { return this.request({ type: 'ablate', spec: { heads: spec.heads, mode: spec.mode } }); }

  composition() { return this.request({ type: 'composition' }); }
}

/** Trains on the page's own thread, a slice per task. */
class PageTrainer extends PageLoop {
  constructor(lab) {
    super(lab);
    this.session = null;
    this.lastSnapshot = 0;
  }

  create(options) {
    this.pause();
    if (this.session) this.session.dispose();
    this.session = null;
    try {
      this.session = new TrainingSession(this.lab, options);
      return Promise.resolve({ info: this.session.info(), snapshot: this.session.snapshot() });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  train(limit) {
    this.limit = limit;
    if (this.running || !this.session) return;
    this.running = true;
    this.later(() => this.slice());
  }

  slice() {
    if (!this.running) return;
    const r = this.session.run(PAGE_SLICE_MS, this.limit - this.session.trainer.steps);
    const done = r.diverged || r.stopped || this.session.trainer.steps >= this.limit;
    if (done) this.running = false;
    const snap = done || Date.now() - this.lastSnapshot >= SNAPSHOT_MS;
    this.onReport(r);
    // The scores and patterns take a few engine calls: a task of their own.
    if (snap) this.later(() => this.report(this.session.snapshot(), done));
    else if (this.running) this.later(() => this.slice());
  }

  report(snapshot, done) {
    this.lastSnapshot = Date.now();
    this.onReport({ snapshotOnly: true, snapshot });
    if (done) this.onStopped();
    else if (this.running) this.later(() => this.slice());
  }

  step() {
    this.pause();
    const r = this.session.run(0, 1);
    r.snapshot = this.session.snapshot();
    this.onReport(r);
  }

  exportWeights() { return this.answer('exportWeights'); }

  ablate(spec) { return this.answer('ablate', spec); }

  composition() { return this.answer('composition'); }

  /** The session's `method`, as a promise (as the worker answers). */
  answer(method, arg) {
    try {
      return Promise.resolve(this.session[method](arg));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  stop() {
    this.halt();
    if (this.session) this.session.dispose();
    this.session = null;
  }
}

/** For a worker started from the script's address (engine-worker.js): the main and its arguments. */
const workerEntry = () => WorkerTrainer.entry();

module.exports = { TrainingSession, WorkerTrainer, PageTrainer, workerEntry };
