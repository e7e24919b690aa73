'use strict';
// Where <position-race>'s five trainings run: one Web Worker (engine-worker.js) that takes them
// in turn, the one furthest behind next, so they move together and a 2-core phone keeps a core
// for the page; or, where the page's policy allows no worker, the page itself in slices of
// 20 ms. Each training is trainer-runner.js's TrainingSession. Both runners speak one protocol
// to the widget: create(optionsList) -> infos, train(budget, lengths) (reports arrive through
// onReport(lane, report), then onLengths(results) once every lane has trained `budget` steps),
// pause() (onStopped), stop().

const { TrainingSession } = require('./trainer-runner.js');

// The race in one engine. Sent to the worker as source text: it uses only what it is given.
class RaceCore {
  constructor(Session, lab, optionsList) {
    this.lanes = [];
    try {
      for (const o of optionsList) this.lanes.push(new Session(lab, o));
    } catch (err) {
      this.dispose();
      throw err;
    }
  }

  info() { return this.lanes.map((s) => s.info()); }

  /** The lane furthest behind that still trains, or -1 when every lane has trained `budget` steps (or diverged). */
  next(budget) {
    let best = -1;
    this.lanes.forEach((s, k) => {
      const t = s.trainer;
      if (t.steps < budget && !t.diverged && (best < 0 || t.steps < this.lanes[best].trainer.steps)) best = k;
    });
    return best;
  }

  /** One turn: the lane furthest behind trains for about `ms`; { lane, report } or null when all are done. */
  turn(ms, budget) {
    const k = this.next(budget);
    if (k < 0) return null;
    const s = this.lanes[k];
    return { lane: k, report: s.run(ms, budget - s.trainer.steps) };
  }

  /** Lane k's loss at each position of `length`-token sequences, or the engine's refusal (a learned table past its end). */
  lossAt(k, length) {
    try {
      const r = this.lanes[k].trainer.lossByPosition({ length });
      return { length, loss: r.loss, mean: r.mean };
    } catch (err) {
      return { length, refused: String((err && err.message) || err) };
    }
  }

  dispose() {
    for (const s of this.lanes) s.dispose();
    this.lanes = [];
  }
}

// Engine time per turn (one lane): a worker posts each turn; the page keeps a task under 50 ms.
const TURN_MS = 30;
const PAGE_TURN_MS = 20;

// Runs inside the worker: everything it uses comes through its arguments or the worker's globals.
function raceWorkerMain(Core, Session, turnMs) {
  const ready = self.AttentionLab.loadAttentionLab();
  const text = (err) => String((err && err.message) || err);
  // loops: which loop is current (a pause then a train before the old loop's next turn starts a new one)
  let core = null, id = 0, running = false, budget = 0, lengths = [], loops = 0;
  const post = (message, transfer) => self.postMessage({ id, ...message }, transfer || []);
  const loop = (which) => {
    if (!running || !core || which !== loops) return;
    try {
      const t = core.turn(turnMs, budget);
      if (t) {
        const r = t.report;
        post({ type: 'progress', lane: t.lane, report: r }, [r.losses, r.accuracies, r.induction, r.previousToken].filter(Boolean).map((a) => a.buffer));
        setTimeout(loop, 0, which);
        return;
      }
      running = false;
      post({ type: 'lengths', results: core.lanes.map((s, k) => lengths.map((n) => core.lossAt(k, n))) });
      post({ type: 'stopped' });
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
          if (core) core.dispose();
          core = null;
          id = m.id;
          core = new Core(Session, lab, m.options);
          post({ type: 'created', info: core.info() });
        } else if (m.id !== id || !core) {
          // a message for a race since replaced
        } else if (m.type === 'train') {
          ({ budget, lengths } = m);
          if (!running) {
            running = true;
            setTimeout(loop, 0, (loops += 1));
          }
        } else if (m.type === 'pause') {
          running = false;
          post({ type: 'stopped' });
        }
      } catch (err) {
        running = false;
        post({ type: 'error', message: text(err) });
      }
    }, (err) => self.postMessage({ type: 'failed', message: text(err) }));
  };
}

const LABEL = 'position-race';
const noop = () => {};

/** The callbacks a runner calls; the widget sets them. */
function quiet(runner) {
  runner.onReport = runner.onLengths = runner.onStopped = runner.onError = noop;
  return runner;
}

/** The race in a worker. */
class WorkerRace {
  static start(startWorker, timeoutMs = 30000) {
    return startWorker(raceWorkerMain, [RaceCore, TrainingSession, TURN_MS], LABEL, timeoutMs).then((worker) => new WorkerRace(worker));
  }

  constructor(worker) {
    this.kind = 'worker';
    this.worker = worker;
    this.id = 0;
    this.created = null;
    quiet(this);
    worker.onmessage = (e) => this.receive(e.data);
    worker.onerror = (e) => {
      e.preventDefault();
      this.fail(new Error(`${LABEL}: the worker stopped${e.message ? ` (${e.message})` : ''}`));
    };
  }

  receive(m) {
    if (m.id !== this.id) return;  // from a race since replaced
    if (m.type === 'created') this.settle(m.info);
    else if (m.type === 'progress') this.onReport(m.lane, m.report);
    else if (m.type === 'lengths') this.onLengths(m.results);
    else if (m.type === 'stopped') this.onStopped();
    else if (m.type === 'error') this.fail(new Error(m.message));
  }

  settle(value, err) {
    const w = this.created;
    this.created = null;
    if (w) (err ? w.reject : w.resolve)(err || value);
  }

  fail(err) {
    if (this.created) this.settle(null, err);
    else this.onError(err);
  }

  /** A new race (the old one is dropped): resolves to each lane's info. */
  create(optionsList) {
    this.id += 1;
    this.settle(null, new Error(`${LABEL}: replaced`));
    return new Promise((resolve, reject) => {
      this.created = { resolve, reject };
      this.worker.postMessage({ id: this.id, type: 'create', options: optionsList });
    });
  }

  train(budget, lengths) { this.worker.postMessage({ id: this.id, type: 'train', budget, lengths }); }

  pause() { this.worker.postMessage({ id: this.id, type: 'pause' }); }

  /** Ends the worker at once, mid-step if need be. */
  stop() {
    this.worker.terminate();
    this.created = null;
    quiet(this);
  }
}

/** The race on the page's own thread, a turn per task, then a length per task. */
class PageRace {
  constructor(lab) {
    this.kind = 'page';
    this.lab = lab;
    this.core = null;
    this.running = false;
    this.timer = 0;
    quiet(this);
  }

  create(optionsList) {
    this.pause();
    if (this.core) this.core.dispose();
    this.core = null;
    try {
      this.core = new RaceCore(TrainingSession, this.lab, optionsList);
      return Promise.resolve(this.core.info());
    } catch (err) {
      return Promise.reject(err);
    }
  }

  train(budget, lengths) {
    if (this.running || !this.core) return;
    this.running = true;
    this.later(() => this.slice(budget, lengths));
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

  slice(budget, lengths) {
    if (!this.running) return;
    const t = this.core.turn(PAGE_TURN_MS, budget);
    if (t) {
      this.onReport(t.lane, t.report);
      this.later(() => this.slice(budget, lengths));
      return;
    }
    // every lane trained: the lengths, one lane and length a task
    const jobs = this.core.lanes.flatMap((s, k) => lengths.map((n) => [k, n]));
    const results = this.core.lanes.map(() => []);
    const next = () => {
      if (!this.running) return;
      const [k, n] = jobs.shift();
      results[k].push(this.core.lossAt(k, n));
      if (jobs.length) {
        this.later(next);
        return;
      }
      this.running = false;
      this.onLengths(results);
      this.onStopped();
    };
    this.later(next);
  }

  pause() {
    clearTimeout(this.timer);
    if (this.running) {
      this.running = false;
      this.onStopped();
    }
  }

  stop() {
    clearTimeout(this.timer);
    this.running = false;
    if (this.core) this.core.dispose();
    this.core = null;
    quiet(this);
  }
}

/** For a worker started from the script's address (engine-worker.js): the main and its arguments. */
const workerEntry = () => [raceWorkerMain, [RaceCore, TrainingSession, TURN_MS]];

module.exports = { RaceCore, WorkerRace, PageRace, raceWorkerMain, workerEntry };
