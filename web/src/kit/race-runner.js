'use strict';
// Where <position-race>'s five trainings run: one Web Worker (engine-worker.js) that takes them
// in turn, the one furthest behind next, so they move together and a 2-core phone keeps a core
// for the page; or, where the page's policy allows no worker, the page itself in slices of
// 20 ms. Each training is trainer-runner.js's TrainingSession. Both runners speak one protocol
// to the widget: create(optionsList) -> infos, train(budget, lengths) (reports arrive through
// onReport(lane, report), then onLengths(results) once every lane has trained `budget` steps),
// pause() (onStopped), stop().

const { TrainingSession } = require('./trainer-runner.js');
const { RunClient, PageLoop } = require('./run-worker.js');

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

// The race in a worker (run-worker.js's Work), sent there as source text with RaceCore and
// TrainingSession: a turn of the lane furthest behind at a time, then every lane's loss at each length.
class RaceWork {
  constructor(lab, optionsList, Core, Session, turnMs) {
    this.Session = Session;
    this.core = new Core(Session, lab, optionsList);
    this.turnMs = turnMs;
    this.budget = 0;
    this.lengths = [];
  }

  created() { return this.core.info(); }

  goal(m) {
    this.budget = m.budget;
    this.lengths = m.lengths;
  }

  turn() {
    const c = this.core, t = c.turn(this.turnMs, this.budget);
    if (t) return { posts: [[{ type: 'progress', lane: t.lane, report: t.report }, this.Session.buffers(t.report)]], done: false };
    return { posts: [[{ type: 'lengths', results: c.lanes.map((s, k) => this.lengths.map((n) => c.lossAt(k, n))) }]], done: true };
  }

  handle() { return { posts: [] }; }

  dispose() { this.core.dispose(); }
}

/** The race in a worker. */
class WorkerRace extends RunClient {
  static get label() { return 'position-race'; }

  static workerArgs() { return [RaceWork, RaceCore, TrainingSession, TURN_MS]; }

  onMessage(m) {
    if (m.type === 'progress') this.onReport(m.lane, m.report);
    else if (m.type === 'lengths') this.onLengths(m.results);
  }

  train(budget, lengths) { this.send({ type: 'train', budget, lengths }); }
}

/** The race on the page's own thread, a turn per task, then a length per task. */
class PageRace extends PageLoop {
  constructor(lab) {
    super(lab);
    this.core = null;
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

  stop() {
    this.halt();
    if (this.core) this.core.dispose();
    this.core = null;
  }
}

/** For a worker started from the script's address (engine-worker.js): the main and its arguments. */
const workerEntry = () => WorkerRace.entry();

module.exports = { RaceCore, WorkerRace, PageRace, workerEntry };
