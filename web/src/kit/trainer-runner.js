'use strict';
// Where <attention-trainer>'s training runs: in a Web Worker made from this script
// (engine-worker.js), or, where the page's Content-Security-Policy forbids blob: workers, on
// the page itself in slices short enough that no task reaches 50 ms. Both runners hold one
// TrainingSession and speak the same protocol to the widget: create(options) -> info,
// train() (reports arrive through onReport until pause() or divergence), step(),
// exportWeights(), ablate(spec), composition(), stop().

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
}

// Engine time per report: a worker reports about 8 times a second; the page's own thread
// trains in slices that leave room for drawing within a 50 ms task.
const WORKER_SLICE_MS = 120;
const PAGE_SLICE_MS = 20;
// How often the heads' scores and patterns are read while training runs.
const SNAPSHOT_MS = 250;

// Runs inside the worker: everything it uses comes through its argument or the worker's globals.
function trainerWorkerMain(Session, sliceMs, snapshotMs) {
  const ready = self.AttentionLab.loadAttentionLab();
  const text = (err) => String((err && err.message) || err);
  let session = null, id = 0, running = false, limit = Infinity, lastSnapshot = 0;
  const post = (message, transfer) => self.postMessage({ id, ...message }, transfer || []);
  const report = (r, withSnapshot) => {
    const transfer = [r.losses, r.accuracies, r.induction, r.previousToken].filter(Boolean).map((a) => a.buffer);
    if (withSnapshot) {
      const snap = session.snapshot();
      r.snapshot = snap;
      transfer.push(snap.patterns.buffer);
      lastSnapshot = Date.now();
    }
    post({ type: 'progress', report: r }, transfer);
  };
  const loop = () => {
    if (!running || !session) return;
    try {
      const r = session.run(sliceMs, limit - session.trainer.steps);
      const done = r.diverged || r.stopped || session.trainer.steps >= limit;
      if (done) running = false;
      report(r, done || Date.now() - lastSnapshot >= snapshotMs);
      if (running) setTimeout(loop, 0);
      else post({ type: 'stopped' });
    } catch (err) {
      running = false;
      post({ type: 'error', message: text(err) });
    }
  };
  ready.then(() => self.postMessage({ type: 'ready' }), (err) => self.postMessage({ type: 'failed', message: text(err) }));
  self.onmessage = (event) => {
    const m = event.data;
    ready.then((lab) => {
      try {
        if (m.type === 'create') {
          running = false;
          if (session) session.dispose();
          session = null;
          id = m.id;
          session = new Session(lab, m.options);
          post({ type: 'created', info: session.info(), snapshot: session.snapshot() });
        } else if (m.id !== id || !session) {
          // a message for a session since replaced
        } else if (m.type === 'train') {
          limit = m.limit;
          if (!running) {
            running = true;
            setTimeout(loop, 0);
          }
        } else if (m.type === 'pause') {
          running = false;
          post({ type: 'stopped' });
        } else if (m.type === 'step') {
          running = false;
          report(session.run(0, 1), true);
        } else if (m.type === 'export') {
          post({ type: 'weights', weights: session.exportWeights() });
        } else if (m.type === 'ablate' || m.type === 'composition') {
          // answered between training slices: the figures are of the weights as they are then
          post({ type: m.type, result: m.type === 'ablate' ? session.ablate(m.spec) : session.composition() });
        }
      } catch (err) {
        running = false;
        post({ type: 'error', message: text(err) });
      }
    }, (err) => self.postMessage({ type: 'failed', message: text(err) }));
  };
}

/** Trains in a worker. onReport(report), onStopped(), onError(Error) are set by the widget. */
class WorkerTrainer {
  static start(startWorker, timeoutMs = 30000) {
    return startWorker(trainerWorkerMain, [TrainingSession, WORKER_SLICE_MS, SNAPSHOT_MS], 'attention-trainer', timeoutMs)
      .then((worker) => new WorkerTrainer(worker));
  }

  constructor(worker) {
    this.kind = 'worker';
    this.worker = worker;
    this.id = 0;
    this.waiting = new Map();  // message type -> { resolve, reject } for create and export
    this.onReport = () => {};
    this.onStopped = () => {};
    this.onError = () => {};
    worker.onmessage = (e) => this.receive(e.data);
    worker.onerror = (e) => {
      e.preventDefault();
      this.fail(new Error(`attention-trainer: the worker stopped${e.message ? ` (${e.message})` : ''}`));
    };
  }

  receive(m) {
    if (m.id !== this.id) return;  // from a session since replaced
    if (m.type === 'created') this.settle('created', { info: m.info, snapshot: m.snapshot });
    else if (m.type === 'weights') this.settle('weights', m.weights);
    else if (m.type === 'ablate' || m.type === 'composition') this.settle(m.type, m.result);
    else if (m.type === 'progress') this.onReport(m.report);
    else if (m.type === 'stopped') this.onStopped();
    else if (m.type === 'error') {
      const err = new Error(m.message);
      if (this.waiting.size) for (const key of [...this.waiting.keys()]) this.settle(key, null, err);
      else this.onError(err);
    }
  }

  settle(type, value, err) {
    const w = this.waiting.get(type);
    if (!w) return;
    this.waiting.delete(type);
    if (err) w.reject(err);
    else w.resolve(value);
  }

  request(type, message) {
    return new Promise((resolve, reject) => {
      this.waiting.set(type, { resolve, reject });
      this.worker.postMessage({ id: this.id, ...message });
    });
  }

  /** A new session (the old one is dropped): resolves to { info, snapshot }. */
  create(options) {
    this.id += 1;
    for (const key of [...this.waiting.keys()]) this.settle(key, null, new Error('attention-trainer: replaced'));
    return this.request('created', { type: 'create', options });
  }

  train(limit) { this.worker.postMessage({ id: this.id, type: 'train', limit }); }

  pause() { this.worker.postMessage({ id: this.id, type: 'pause' }); }

  step() { this.worker.postMessage({ id: this.id, type: 'step' }); }

  exportWeights() { return this.request('weights', { type: 'export' }); }

  /** Resolves to TrainingSession.ablate's figures. One request of a type at a time (the widget waits for each). */
  ablate(spec) { return this.request('ablate', { type: 'ablate', spec: { heads: spec.heads, mode: spec.mode } }); }

  composition() { return this.request('composition', { type: 'composition' }); }

  fail(err) {
    for (const key of [...this.waiting.keys()]) this.settle(key, null, err);
    this.onError(err);
  }

  /** Ends the worker at once, mid-step if need be. */
  stop() {
    this.worker.terminate();
    this.waiting.clear();
    this.onReport = this.onStopped = this.onError = () => {};
  }
}

/** Trains on the page's own thread, a slice per task. */
class PageTrainer {
  constructor(lab) {
    this.kind = 'page';
    this.lab = lab;
    this.session = null;
    this.running = false;
    this.timer = 0;
    this.lastSnapshot = 0;
    this.onReport = () => {};
    this.onStopped = () => {};
    this.onError = () => {};
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

  later(fn) {
    this.timer = setTimeout(() => {
      try {
        fn();
      } catch (err) {
        this.running = false;
        this.onError(err);
      }
    }, 0);
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

  pause() {
    clearTimeout(this.timer);
    if (this.running) {
      this.running = false;
      this.onStopped();
    }
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
    clearTimeout(this.timer);
    this.running = false;
    if (this.session) this.session.dispose();
    this.session = null;
    this.onReport = this.onStopped = this.onError = () => {};
  }
}

/** For a worker started from the script's address (engine-worker.js): the main and its arguments. */
const workerEntry = () => [trainerWorkerMain, [TrainingSession, WORKER_SLICE_MS, SNAPSHOT_MS]];

module.exports = { TrainingSession, WorkerTrainer, PageTrainer, trainerWorkerMain, workerEntry };
