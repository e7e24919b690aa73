'use strict';
// The one worker protocol of the widgets that train (trainer-runner.js, race-runner.js): a run
// made in a worker, trained in turns that each post what they did, paused, and asked questions
// between turns. Both halves live here:
// - serveRun(Work, ...args), the worker's main: it is sent to the worker as source text, so it uses
//   only its arguments and the worker's globals. `new Work(lab, options, ...args)` is the run;
//   it gives created() (the answer to create), goal(message) (what a train message asks for),
//   turn() and handle(message) (each { posts: [[message, transfer]], done/stop }) and dispose();
// - RunClient, the page's side: ids that tell a replaced run's messages apart, requests that
//   resolve to the worker's answer, and the widget's callbacks onReport, onStopped, onError. A
//   subclass names its worker (static label) and its Work with the Work's arguments (static
//   workerArgs()); start() and entry() make the worker from those.
// - PageLoop, the same run on the page's own thread where no worker is allowed: a task at a time
//   (later), paused and stopped as the worker's is.

// Runs inside the worker.
function serveRun(Work, ...args) {
  const ready = self.AttentionLab.loadAttentionLab();
  const text = (err) => String((err && err.message) || err);
  // loops: which loop is current (a pause then a train before the old loop's next turn starts a new one)
  let work = null, id = 0, running = false, loops = 0;
  const post = (message, transfer) => self.postMessage({ id, ...message }, transfer || []);
  const fail = (err) => {
    running = false;
    post({ type: 'error', message: text(err) });
  };
  const loop = (which) => {
    if (!running || !work || which !== loops) return;
    try {
      const out = work.turn();
      out.posts.forEach(([m, transfer]) => post(m, transfer));
      if (out.done) {
        running = false;
        post({ type: 'stopped' });
      } else setTimeout(loop, 0, which);
    } catch (err) {
      fail(err);
    }
  };
  ready.then(() => self.postMessage({ type: 'ready' }), (err) => self.postMessage({ type: 'failed', message: text(err) }));
  self.onmessage = (event) => {
    const m = event.data;
    ready.then((lab) => {
      try {
        if (m.type === 'create') {
          running = false;
          if (work) work.dispose();
          work = null;
          id = m.id;
          work = new Work(lab, m.options, ...args);
          post({ type: 'answer', to: 'create', result: work.created() });
        } else if (m.id !== id || !work) {
          // a message for a run since replaced
        } else if (m.type === 'train') {
          work.goal(m);
          if (!running) {
            running = true;
            setTimeout(loop, 0, (loops += 1));
          }
        } else if (m.type === 'pause') {
          running = false;
          post({ type: 'stopped' });
        } else {
          // answered between turns: of the run as it is then
          const out = work.handle(m);
          if (out.stop) running = false;
          out.posts.forEach(([message, transfer]) => post(message, transfer));
        }
      } catch (err) {
        fail(err);
      }
    }, (err) => self.postMessage({ type: 'failed', message: text(err) }));
  };
}

const noop = () => {};
/** The callbacks a runner calls, none set yet (or no longer); the widget sets them. */
function quiet(runner) {
  runner.onReport = runner.onLengths = runner.onStopped = runner.onError = noop;
}

/** The page's side of a run in a worker; a subclass reads its own messages in onMessage(m). */
class RunClient {
  /** Starts the subclass's worker (engine-worker.js's startWorker) and resolves to its client. */
  static start(startWorker, timeoutMs = 30000) {
    return startWorker(serveRun, this.workerArgs(), this.label, timeoutMs).then((worker) => new this(worker, this.label));
  }

  /** For a worker started from the script's address (engine-worker.js): the main and its arguments. */
  static entry() { return [serveRun, this.workerArgs()]; }

  constructor(worker, label) {
    this.kind = 'worker';
    this.worker = worker;
    this.label = label;
    this.id = 0;
    this.waiting = new Map();  // request type -> { resolve, reject }
    quiet(this);
    worker.onmessage = (e) => {
      if (e.data.id === this.id) this.receive(e.data);  // else from a run since replaced
    };
    worker.onerror = (e) => {
      e.preventDefault();
      this.fail(new Error(`${label}: the worker stopped${e.message ? ` (${e.message})` : ''}`), true);
    };
  }

  receive(m) {
    if (m.type === 'answer') this.settle(m.to, m.result);
    else if (m.type === 'stopped') this.onStopped();
    else if (m.type === 'error') this.fail(new Error(m.message));
    else this.onMessage(m);
  }

  settle(type, value, err) {
    const w = this.waiting.get(type);
    if (!w) return;
    this.waiting.delete(type);
    if (err) w.reject(err);
    else w.resolve(value);
  }

  /** An error rejects what is being waited for; the widget hears it when nothing was, or when the worker died. */
  fail(err, died = false) {
    if (died || !this.waiting.size) this.onError(err);
    for (const key of [...this.waiting.keys()]) this.settle(key, null, err);
  }

  /** Resolves to the worker's answer to `message` (one request of a type at a time). */
  request(message) {
    return new Promise((resolve, reject) => {
      this.waiting.set(message.type, { resolve, reject });
      this.send(message);
    });
  }

  send(message) { this.worker.postMessage({ id: this.id, ...message }); }

  /** A new run (the old one is dropped): resolves to the run's created(). */
  create(options) {
    this.id += 1;
    for (const key of [...this.waiting.keys()]) this.settle(key, null, new Error(`${this.label}: replaced`));
    return this.request({ type: 'create', options });
  }

  pause() { this.send({ type: 'pause' }); }

  /** Ends the worker at once, mid-step if need be. */
  stop() {
    this.worker.terminate();
    this.waiting.clear();
    quiet(this);
  }
}

/** The page's own thread as the runner: a subclass trains in later() tasks and frees its engine objects in stop(). */
class PageLoop {
  constructor(lab) {
    this.kind = 'page';
    this.lab = lab;
    this.running = false;
    this.timer = 0;
    quiet(this);
  }

  /** fn in a task of its own; an error there stops the run and goes to the widget. */
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

  pause() {
    clearTimeout(this.timer);
    if (this.running) {
      this.running = false;
      this.onStopped();
    }
  }

  /** Ends the run at once: no task left, and the widget hears nothing more. */
  halt() {
    clearTimeout(this.timer);
    this.running = false;
    quiet(this);
  }
}

module.exports = { serveRun, RunClient, PageLoop };
