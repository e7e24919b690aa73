'use strict';
// <attention-trainer>: the reader trains a small transformer in the page and watches its heads
// form: the loss curve with the phase change marked, the best previous-token and induction
// scores over time, and every head's weights on a fixed example, redrawn a few times a second.
// The engine trains (cpp/src/trainer.cpp) in a Web Worker (trainer-runner.js), or on the page
// in short slices where the page forbids blob: workers. Every number comes from the engine.
// Its parts: the predict-first questions (kit/trainer-predict.js), the heads (kit/trainer-heads.js),
// the knock-out mode (kit/trainer-knockout.js), the charts' rules (ui/trainer-charts.js).

const { h, uid, setText } = require('../kit/dom.js');
const { urlState } = require('../kit/base.js');
const { LiveElement } = require('../kit/live-element.js');
const { lineChart, updateLineChart, legendList } = require('../kit/svg.js');
const { exportMenu, saveBlob } = require('../kit/export-menu.js');
const { startWorker } = require('../kit/engine-worker.js');
const { WorkerTrainer, PageTrainer } = require('../kit/trainer-runner.js');
const { chartFigure } = require('../ui/export.js');
const { TrainerHeads } = require('../kit/trainer-heads.js');
const { TrainerKnockout } = require('../kit/trainer-knockout.js');
const { parseKnocked, formatKnocked, MODES, KINDS } = require('../ui/trainer-knockout.js');
const { trainerCharts } = require('../ui/trainer-charts.js');
const { fixed, grouped, counted } = require('../ui/format.js');
const { TrainerPredict } = require('../kit/trainer-predict.js');
const {
  TrainingLog, stepsPerSecond, LEARNING_RATES, LAYER_CHOICES, HEAD_CHOICES, TASK_CHOICES, parseSeed, divergenceText, worseText,
} = require('../ui/training-log.js');

const TASKS = TASK_CHOICES.map((t) => t.value);

class AttentionTrainer extends LiveElement {
  static get jsonKeys() { return []; }

  setup(lab) {
    const d = lab.TRAINER_DEFAULTS;
    this.defaults = { task: this.attr('task', d.task), lr: this.attr('lr', d.lr), layers: this.attr('layers', d.layers),
      heads: this.attr('heads', d.heads), seed: this.attr('seed', d.seed) };
    this.st = { ...this.defaults, logScale: this.attr('log-scale', false), knocked: [], mode: 'zero', kind: 'k' };
    this.maxSteps = this.attr('steps', 1500);
    this.restoreFields(this.readState());
    const ids = { task: uid(), lr: uid(), layers: uid(), heads: uid(), seed: uid(), seedMsg: uid(), log: uid() };

    // Predict first (the induction task only: its outcome is what the questions are about).
    this.predictOn = this.attr('predict', true);  // the training questions, and the knock-out's
    this.questions = new TrainerPredict(this, this.predictOn);

    // Controls.
    this.trainButton = h('button', { type: 'button', class: 'al-primary', onclick: () => this.guard(() => this.toggle()) }, 'Train');
    this.stepButton = h('button', { type: 'button', onclick: () => this.guard(() => this.stepOnce()) }, 'One step');
    this.resetButton = h('button', { type: 'button', onclick: () => this.guard(() => this.reset('Reset: a fresh model from the same seed.')) }, 'Reset');
    const select = (id, key, parse) => h('select', { id, onchange: (e) => this.guard(() => this.change({ [key]: parse(e.target.value) })) });
    this.taskSelect = select(ids.task, 'task', String);
    this.taskSelect.append(...TASK_CHOICES.map((t) => h('option', { value: t.value }, t.label)));
    this.lrSelect = select(ids.lr, 'lr', Number);
    this.layersSelect = select(ids.layers, 'layers', Number);
    this.headsSelect = select(ids.heads, 'heads', Number);
    this.seedInput = h('input', { id: ids.seed, type: 'text', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', size: '8',
      'aria-describedby': ids.seedMsg, onchange: () => this.guard(() => this.changeSeed()),
      onkeydown: (e) => { if (e.key === 'Enter') this.guard(() => this.changeSeed()); } });
    this.seedMessage = h('span', { id: ids.seedMsg, class: 'al-input-message', role: 'status' });
    this.logBox = h('input', { id: ids.log, type: 'checkbox', onchange: () => this.guard(() => this.setLogScale(this.logBox.checked)) });

    this.status_ = h('p', { class: 'al-trainer-status', part: 'status' });
    this.announcer = h('p', { class: 'al-sr', role: 'status' });
    this.alert = h('div', { class: 'al-trainer-alert', role: 'alert', hidden: true });
    this.lossChart = h('div', { part: 'chart', class: 'al-trainer-chart' });
    this.scoreChart = h('div', { part: 'chart', class: 'al-trainer-chart' });
    this.exampleLine = h('p', { class: 'al-trainer-example' });
    this.headsBox = h('div', { class: 'al-trainer-heads', part: 'heads' });
    this.headGrid = new TrainerHeads(this.headsBox, this.exampleLine, () => this.linkState(), () => ({ snap: this.snapshot, info: this.info }));
    this.knockout = new TrainerKnockout(this);
    this.downloads = h('p', { class: 'al-trainer-downloads' },
      h('button', { type: 'button', onclick: () => this.guard(() => this.saveLosses()) }, 'Losses (CSV)'),
      this.knockout.saveButton,
      h('button', { type: 'button', onclick: () => this.guard(() => this.saveWeights()) }, 'Weights (JSON)'));

    this.frame.replaceChildren(
      h('h3', {}, this.attr('heading', 'Train a transformer and watch its heads form')),
      this.questions.box,
      h('div', { class: 'al-controls', part: 'controls' }, this.trainButton, this.stepButton, this.resetButton),
      h('div', { class: 'al-controls al-trainer-settings', part: 'controls' },
        h('label', { for: ids.task }, 'task', this.taskSelect),
        h('label', { for: ids.lr }, 'learning rate', this.lrSelect),
        h('label', { for: ids.layers }, 'layers', this.layersSelect),
        h('label', { for: ids.heads }, 'heads per layer', this.headsSelect),
        h('span', { class: 'al-trainer-seed' }, h('label', { for: ids.seed }, 'seed', this.seedInput), this.seedMessage),
        h('label', { for: ids.log, class: 'al-check' }, this.logBox, 'log-scale loss')),
      this.status_, this.announcer, this.alert,
      h('div', { class: 'al-trainer-charts' }, this.lossChart, this.scoreChart),
      h('h4', {}, 'Every head on one example'), this.exampleLine, this.headsBox,
      this.questions.reveal, this.knockout.root, this.downloads);
    this.renderControls();
    this.questions.render();
    // The worker starts when the reader reaches for training (a pointer over Train or One step,
    // or focus in the widget), so that by the time the button is pressed its engine is ready. Not
    // on any pointer passing over the widget: on a page whose header policy forbids workers, a
    // try is a violation report, which a reader who never trains should not cause.
    const warm = () => this.guard(() => { if (this.info && !this.upgrade) this.moveToRunner(); });
    this.trainButton.addEventListener('pointerenter', warm);
    this.stepButton.addEventListener('pointerenter', warm);
    this.frame.addEventListener('focusin', warm);
    return this.reset(null, false);
  }

  // ---- state ----

  restoreFields(s) {
    this.st.task = urlState.choice(s.task, TASKS, this.st.task);
    const lr = Number(s.lr);
    if (LEARNING_RATES.includes(lr)) this.st.lr = lr;
    this.st.layers = urlState.int(s.layers, this.st.layers, LAYER_CHOICES[0], LAYER_CHOICES[LAYER_CHOICES.length - 1]);
    const heads = urlState.int(s.heads, this.st.heads, 1, 16);
    if (HEAD_CHOICES.includes(heads)) this.st.heads = heads;
    this.st.seed = urlState.int(s.seed, this.st.seed, 0, 2147483647);
    this.st.logScale = urlState.bool(s.log, this.st.logScale);
    // heads knocked out (kept for the next trained model of this shape), how, and the composition shown
    this.st.knocked = s.ko === undefined ? this.st.knocked : parseKnocked(s.ko, this.st.layers, this.st.heads);
    this.st.mode = urlState.choice(s.kmode, MODES, this.st.mode);
    this.st.kind = urlState.choice(s.comp, KINDS.map((k) => k.value), this.st.kind);
  }

  restore(s) {
    const model = () => JSON.stringify(this.options());
    const before = model();
    this.restoreFields(s);
    if (model() !== before) this.reset('The link changed the settings: a fresh model.', false);
    else this.knockout.restored();
  }

  viewState() {
    return { ...this.st, step: this.log ? this.log.steps : 0, running: !!this.running, formedAt: this.log && this.log.formed ? this.log.formed.step : null,
      runner: this.runner ? this.runner.kind : null, diverged: !!this.divergence, worseAt: this.worse ? this.worse.step : null, ...this.knockout.state() };
  }

  linkState() {
    const { task, lr, layers, heads, seed, logScale, knocked, mode, kind } = this.st;
    // the knock-out's fields only when they are not the defaults (none, zero, K-composition)
    return { task, lr, layers, heads, seed, log: logScale, ko: knocked.length ? formatKnocked(knocked) : undefined,
      kmode: mode === 'zero' ? undefined : mode, comp: kind === 'k' ? undefined : kind };
  }

  applyAttribute(property, value) {
    const fallback = this.defaults[property];
    if (property === 'logScale') this.setLogScale(!!value);
    else if (property in this.defaults) this.change({ [property]: value === undefined ? fallback : value });
  }

  options() {
    const { task, lr, layers, heads, seed } = this.st;
    return { task, lr, layers, heads, seed };
  }

  // ---- running ----

  /** Wires a runner's reports to this widget and makes it the one that trains. */
  adopt(runner) {
    this.runner = runner;
    runner.onReport = (r) => this.guard(() => this.receive(r));
    runner.onStopped = () => this.guard(() => this.stopped());
    runner.onError = (err) => this.guard(() => this.failed(err));
    return runner;
  }

  /**
   * A fresh model with the current settings: the log is cleared and the heads drawn as they
   * start. Until the first Train or step the model lives on the page (a few ms to make);
   * then it moves to a worker where the page allows one (moveToRunner).
   */
  async reset(message, save = true) {
    const generation = this.runGeneration = (this.runGeneration || 0) + 1;
    if (this.running && this.runner) this.runner.pause();
    this.running = false;
    this.pausedByHidden = false;
    this.divergence = null;
    this.worse = null;
    this.log = new TrainingLog();
    this.reports = [];
    this.alert.hidden = true;
    this.questions.hideVerdict();
    this.knockout.reset();
    const runner = this.runner || this.adopt(new PageTrainer(this.lab));
    let created;
    try {
      created = await runner.create(this.options());
    } catch (err) {
      if (!this.lastGood) throw err;  // the first model: the widget shows the message instead
      if (generation === this.runGeneration) this.refuse(err);
      return;
    }
    if (generation !== this.runGeneration) return;
    this.info = created.info;
    this.lastGood = { ...this.st };
    this.seedMessage.textContent = '';
    this.seedInput.removeAttribute('aria-invalid');
    this.snapshot = null;
    this.takeSnapshot(created.snapshot);
    this.renderControls();
    this.questions.render();
    this.draw();
    this.renderStatus(message);
    // the announcer says the reset, not the last run's end (a refused setting keeps it as it was)
    this.say(message || '');
    if (save) this.saveState();
  }

  /**
   * Before the first step: a worker takes over from the page where the page allows one (and
   * `worker` is not off), with a model made from the same seed, so the same weights. Resolves
   * to the runner to use, or null when the widget has left the page.
   */
  async moveToRunner() {
    if (!this.upgrade) {
      const tryWorker = this.attr('worker', 'auto') !== 'off' && typeof Worker === 'function' && this.log.steps === 0;
      this.upgrade = tryWorker ? this.startWorkerRunner(this.upgradeToken = {}) : Promise.resolve();
    }
    await this.upgrade;
    return this.isConnected ? this.runner : null;
  }

  /**
   * Starts a worker and makes the model there. After every wait it checks that this is still
   * the widget's upgrade (`token`: a removal or a failure replaces it) and that no step was
   * taken on the page meanwhile; otherwise the worker ends, so none is left running.
   */
  async startWorkerRunner(token) {
    const current = () => token === this.upgradeToken && this.isConnected && this.log.steps === 0;
    let worker = null;
    try {
      worker = await WorkerTrainer.start(startWorker);
      while (current()) {
        // settings changed while the worker made its model: it makes the new one
        const generation = this.runGeneration;
        await worker.create(this.options());
        if (current() && generation === this.runGeneration) {
          const page = this.runner;
          this.adopt(worker);
          worker = null;
          if (page) page.stop();
          return;
        }
      }
    } catch (err) {
      // no worker (a CSP, or it failed to start): the page trains
    } finally {
      if (worker) worker.stop();
    }
  }

  /** A setting the engine refused (e.g. a seed past 2^53): said next to the seed, the last model kept. */
  refuse(err) {
    const text = err && err.message ? err.message : String(err);
    this.seedMessage.textContent = text.replace(/^createTrainer: /, '');
    this.seedInput.setAttribute('aria-invalid', 'true');
    if (this.lastGood) Object.assign(this.st, this.lastGood);
    this.renderControls();
  }

  change(fields) {
    Object.assign(this.st, fields);
    // a head knocked out of the old shape may not exist in the new one
    this.st.knocked = parseKnocked(formatKnocked(this.st.knocked), this.st.layers, this.st.heads);
    if (fields.task !== undefined || fields.layers !== undefined) {
      // A prediction was about the old model: asked again at once, before the new model is made.
      this.questions.askAgain();
    }
    this.reset('New settings: a fresh model. Press Train.');
  }

  changeSeed() {
    const r = parseSeed(this.seedInput.value);
    if (!r.ok) {
      this.seedMessage.textContent = r.message;
      this.seedInput.setAttribute('aria-invalid', 'true');
      return;
    }
    // a well-formed seed clears the last message at once; the engine may still refuse it (refuse())
    this.seedMessage.textContent = '';
    this.seedInput.removeAttribute('aria-invalid');
    this.change({ seed: r.value });
  }

  setLogScale(on) {
    this.st.logScale = on;
    this.logBox.checked = on;
    this.drawCharts();
    this.saveState();
  }

  async toggle() {
    if (this.running) this.pause();
    else await this.train();
  }

  async train() {
    if (this.divergence) return;
    this.note = null;
    this.questions.skipUnanswered();  // Train without answering: the questions go
    const runner = await this.moveToRunner();
    if (!runner || this.divergence) return;
    if (this.log.steps >= this.maxSteps) this.maxSteps += this.attr('steps', 1500);
    this.running = true;
    this.pausedByHidden = false;
    this.reports.push({ at: performance.now(), step: this.log.steps });
    runner.train(this.maxSteps);
    this.renderControls();
    this.renderStatus();
    this.knockout.render();
    this.say(`Training started${runner.kind === 'worker' ? '' : ' on this page'}.`);
    this.saveState();
  }

  pause(byHidden = false) {
    if (!this.running || !this.runner) return;
    this.runner.pause();
    this.running = false;
    this.pausedByHidden = byHidden;
    this.renderControls();
    this.renderStatus(byHidden ? 'Paused while this tab is hidden.' : null);
    this.knockout.render();  // the model stands still: its heads can be knocked out
    if (!byHidden) this.say(`Paused at step ${grouped(this.log.steps)}.`);
    this.saveState();
  }

  async stepOnce() {
    if (this.divergence) return;
    this.note = null;
    const runner = await this.moveToRunner();
    if (!runner) return;
    if (this.running) this.pause();
    runner.step();
  }

  receive(r) {
    if (r.losses) {
      const had = this.log.formed;
      this.log.addRecord(r.first, r);
      this.reports.push({ at: performance.now(), step: r.step });
      if (this.reports.length > 200) this.reports.splice(0, 100);
      if (!had && this.log.formed) this.headFormed(this.log.formed);
      if (r.diverged) this.diverged(r);
      else if (r.stopped) this.gotWorse();
    }
    if (r.snapshot) this.takeSnapshot(r.snapshot);
    this.renderStatus();
    // A run the engine stopped sends no more reports: everything is drawn from this last one now,
    // so the alert, the reveal and the heads name the same step.
    if (r.stopped || r.diverged) this.draw();
    else this.scheduleDraw();
  }

  takeSnapshot(snap) {
    this.snapshot = snap;
    this.log.addScores(snap.step, snap.scores);
  }

  /** The engine marked the first induction head (at the step its score crossed, whatever the machine's speed). */
  headFormed(f) {
    this.say(`An induction head formed at step ${grouped(f.step)}: layer ${f.layer}, head ${f.head}, induction score ${fixed(f.score, 2)}.`);
    this.emit('al-head-formed', { layer: f.layer, head: f.head, step: f.step, score: f.score });
  }

  stopped() {
    if (!this.running) return;
    this.running = false;
    this.renderControls();
    const done = this.log.steps >= this.maxSteps;
    this.renderStatus(done ? `Stopped after ${grouped(this.log.steps)} steps; Continue trains ${grouped(this.attr('steps', 1500))} more.` : null);
    if (done) this.say(`Training stopped after ${grouped(this.log.steps)} steps.`);
    this.draw();
    this.saveState();
  }

  diverged(r) {
    this.running = false;
    this.divergence = { step: r.divergedAt, loss: r.divergedLoss };
    this.note = `The run diverged at step ${grouped(r.divergedAt)}.`;
    this.showAlert(h('strong', {}, 'The run diverged. '), divergenceText(this.divergence, this.info));
    this.say('The run diverged; reset to start again.');
  }

  /** The engine says the run now does worse than a uniform guess: the runner stopped; say so in plain words. */
  gotWorse() {
    this.running = false;
    this.worse = { step: this.log.steps };
    this.note = `Stopped at step ${grouped(this.log.steps)}: the run got worse than a uniform guess (every token equally likely).`;
    this.showAlert(h('strong', {}, 'The run is unlearning. '), worseText(this.log, this.info));
    this.say('Training stopped: the loss rose above that of a uniform guess over the tokens.');
  }

  /**
   * The alert under the status line, with a Reset button. Focus on a control the run just
   * disabled (Train, One step) moves to that button rather than falling to the page.
   */
  showAlert(...content) {
    const reset = h('button', { type: 'button', class: 'al-primary', onclick: () => this.guard(() => this.reset('Reset: a fresh model.')) }, 'Reset');
    this.alert.replaceChildren(...content, reset);
    this.alert.hidden = false;
    const focused = this.shadowRoot.activeElement;
    this.renderControls();
    if (focused && focused.disabled) reset.focus();
  }

  failed(err) {
    this.running = false;
    // The worker is gone: the next reset makes the model on the page again, and the next
    // Train tries a new worker.
    const runner = this.runner;
    this.runner = null;
    this.upgrade = null;
    this.upgradeToken = null;
    if (runner) runner.stop();
    this.note = null;
    this.showAlert(h('strong', {}, 'Training stopped. '), `${err && err.message ? err.message : err} `);
  }

  async saveWeights() {
    const weights = await this.runner.exportWeights();
    const { task, layers, heads, seed } = this.st;
    saveBlob(this.frame, new Blob([JSON.stringify(weights)], { type: 'application/json' }),
      `attention-trainer-${task}-${layers}x${heads}-seed-${seed}-step-${weights.step}.json`);
    this.say('Saved the weights.');
  }

  saveLosses() {
    const { task, layers, heads, seed } = this.st;
    saveBlob(this.frame, new Blob([this.log.toCSV()], { type: 'text/csv' }), `attention-trainer-${task}-${layers}x${heads}-seed-${seed}-losses.csv`);
    this.say('Saved the losses.');
  }

  say(text) {
    setText(this.announcer, text);
  }

  // ---- drawing ----

  renderControls() {
    this.taskSelect.value = this.st.task;
    // The usual choices, and an author's own value (an attribute) among them.
    choices(this.lrSelect, LEARNING_RATES, this.st.lr);
    choices(this.layersSelect, LAYER_CHOICES, this.st.layers);
    choices(this.headsSelect, HEAD_CHOICES, this.st.heads);
    // A seed being typed (or refused, with its message beside it) stays as the reader left it.
    if (this.shadowRoot.activeElement !== this.seedInput && !this.seedInput.hasAttribute('aria-invalid')) this.seedInput.value = String(this.st.seed);
    this.logBox.checked = this.st.logScale;
    setText(this.trainButton, this.running ? 'Pause' : this.log && this.log.steps > 0 ? 'Continue' : 'Train');
    this.trainButton.setAttribute('aria-pressed', this.running ? 'true' : 'false');
    this.trainButton.disabled = !!this.divergence;
    this.stepButton.disabled = !!this.divergence;
  }

  renderStatus(message) {
    if (message !== undefined && message !== null) this.note = message;
    if (!this.log) return;
    const parts = [`Step ${grouped(this.log.steps)}`];
    const loss = this.log.lastLoss();
    if (loss !== null && Number.isFinite(loss) && !this.divergence) parts.push(`loss ${fixed(loss, 3)}`);
    const health = this.log.health;
    if (health && health.rising && !this.divergence) {
      parts.push(`the loss is rising: ${fixed(health.recentLoss, 2)} over the last ${this.info.lossWindow} steps, up from ${fixed(health.bestLoss, 2)} at step ${grouped(health.bestAt)}`);
    }
    const rate = this.running ? stepsPerSecond(this.reports) : null;
    if (rate) parts.push(`${grouped(rate)} steps a second`);
    if (this.runner && (this.running || this.log.steps > 0)) {
      const verb = this.running ? 'training' : 'trained';
      parts.push(this.runner.kind === 'worker' ? `${verb} in a background thread` : `${verb} on this page in short slices (the page allows no background thread)`);
    }
    const text = `${parts.join(' \u00b7 ')}.${this.note && !this.running ? ` ${this.note}` : ''}`;
    setText(this.status_, text);
  }

  draw() {
    this.drawCharts();
    this.drawHeads();
    this.questions.renderVerdict();
    this.renderControls();
    this.knockout.render();
  }

  drawCharts() {
    this.chartOpts = trainerCharts(this.log, this.info, { maxSteps: this.maxSteps, logScale: this.st.logScale });
    [this.lossChart, this.scoreChart].forEach((box, k) => {
      const opts = this.chartOpts[k];
      // While a run's curves grow, only their lines and titles change: redrawn in place.
      const svg = box.firstElementChild;
      if (svg && box.dataset.title === opts.title && updateLineChart(svg, opts)) return;
      box.dataset.title = opts.title;
      const menu = exportMenu(() => {
        const { task, lr, layers, heads, seed } = this.linkState();
        const note = `Task ${task}, learning rate ${lr}, ${counted(layers, 'layer')} of ${counted(heads, 'head')}, seed ${seed}.`;
        return chartFigure(this.chartOpts[k], this.linkState(), note);
      }, { label: opts.title });
      box.replaceChildren(lineChart(opts), k ? legendList(opts.series) : '', h('div', { class: 'al-chart-tools' }, menu.root));
    });
  }

  drawHeads() {
    this.headGrid.draw(this.snapshot, this.info);
  }

  // ---- lifecycle ----

  // the tab hidden and shown again (LiveElement)
  pauseRun() { this.pause(true); }

  resumeRun() { this.train(); }

  disconnectedCallback() {
    super.disconnectedCallback();
    // A widget taken off the page stops training and frees its worker; it starts afresh if it comes back.
    this.running = false;
    this.runGeneration = (this.runGeneration || 0) + 1;
    if (this.runner) this.runner.stop();
    this.runner = null;
    this.upgrade = null;
    this.upgradeToken = null;
    this._dirty = true;
  }
}

/** Fills a select with `values` and `current` (sorted in), selecting `current`; untouched when they are already there. */
function choices(select, values, current) {
  const all = values.includes(current) ? values : [...values, current].sort((a, b) => a - b);
  const texts = all.map(String);
  if (Array.from(select.options, (o) => o.value).join() !== texts.join()) {
    select.replaceChildren(...texts.map((t) => h('option', { value: t }, t)));
  }
  select.value = String(current);
}

module.exports = { AttentionTrainer };
