'use strict';
// Where the cost lab's measurements run: in a Web Worker made from this script
// (engine-worker.js), with a small main that times each job with measureJob; where the page's
// Content-Security-Policy forbids blob: workers, the page thread runs the jobs itself, one
// repeat per task.

const { measureJob } = require('../ui/cost-sweep.js');
const { pause } = require('./schedule.js');

/** Thrown out of run() when the runner was stopped (the reader pressed Cancel). */
class Cancelled extends Error {
  constructor() {
    super('cost-lab: cancelled');
    this.name = 'Cancelled';
  }
}

// Runs inside the worker: everything it uses comes through its argument or the worker's globals.
function workerMain(measure) {
  const ready = self.AttentionLab.loadAttentionLab();
  const text = (err) => String((err && err.message) || err);
  ready.then(() => self.postMessage({ type: 'ready' }), (err) => self.postMessage({ type: 'failed', message: text(err) }));
  self.onmessage = (event) => {
    const { id, job } = event.data;
    ready.then((lab) => {
      let result;
      try {
        result = measure(lab, job);
      } catch (err) {
        result = { error: text(err) };
      }
      self.postMessage({ type: 'result', id, result });
    }, (err) => self.postMessage({ type: 'result', id, result: { error: text(err) } }));
  };
}

class WorkerRunner {
  /**
   * Starts a worker and waits for its engine. Rejects when the page does not allow it (CSP),
   * the script cannot provide its own source, or the engine fails to start there.
   * `startWorker` is engine-worker.js's (given, not required: engine-worker.js runs this file's
   * workerEntry in the worker, so requiring it here would make a cycle).
   */
  static start(startWorker, timeoutMs = 30000) {
    return startWorker(workerMain, [measureJob], 'cost-lab', timeoutMs).then((worker) => new WorkerRunner(worker));
  }

  constructor(worker) {
    this.worker = worker;
    this.kind = 'worker';
    this.pending = new Map();
    this.nextId = 1;
    this.stopped = false;
    worker.onmessage = (e) => {
      const p = this.pending.get(e.data.id);
      if (!p) return;
      this.pending.delete(e.data.id);
      p.resolve(e.data.result);
    };
    worker.onerror = (e) => {
      e.preventDefault();
      this.fail(new Error(`cost-lab: the worker stopped${e.message ? ` (${e.message})` : ''}`));
    };
  }

  /** Measures one job (see measureJob); resolves to its result ({ error } when the engine refused). */
  run(job) {
    if (this.stopped) return Promise.reject(new Cancelled());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, job });
    });
  }

  fail(err) {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  /** Ends the worker at once, mid-call if need be; pending runs reject with Cancelled. */
  stop() {
    this.stopped = true;
    this.worker.terminate();
    this.fail(new Cancelled());
  }
}

class PageRunner {
  constructor(lab) {
    this.lab = lab;
    this.kind = 'page';
    this.stopped = false;
  }

  /** Measures one job on the page's thread, one repeat per task so the page keeps breathing. */
  async run(job) {
    const times = [];
    let last = null;
    for (let r = 0; r < job.repeats; r++) {
      await pause();
      if (this.stopped) throw new Cancelled();
      try {
        last = measureJob(this.lab, { ...job, repeats: 1 });
      } catch (err) {
        return { error: String((err && err.message) || err) };
      }
      times.push(last.times[0]);
    }
    return { ...last, times };
  }

  stop() {
    this.stopped = true;
  }
}

/** For a worker started from the script's address (engine-worker.js): the main and its arguments. */
const workerEntry = () => [workerMain, [measureJob]];

module.exports = { WorkerRunner, PageRunner, Cancelled, workerEntry };
