'use strict';
// <attention-trainer>: the reader trains a small transformer in the page and watches its heads
// form: the loss curve with the phase change marked, the best previous-token and induction
// scores over time, and every head's weights on a fixed example, redrawn a few times a second.
// The engine trains (cpp/src/trainer.cpp) in a Web Worker (trainer-runner.js), or on the page
// in short slices where the page forbids blob: workers. Every number comes from the engine.

const { h, uid, setText } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { lineChart } = require('../kit/svg.js');
const { exportMenu, saveBlob } = require('../kit/export-menu.js');
const { startWorker } = require('../kit/engine-worker.js');
const { WorkerTrainer, PageTrainer } = require('../kit/trainer-runner.js');
const { chartFigure } = require('../ui/export.js');
const colors = require('../ui/colors.js');
const { fixed, grouped, counted } = require('../ui/format.js');
const {
  TrainingLog, stepsPerSecond, judgeRun, layerChoices, FORMED, LEARNING_RATES, LAYER_CHOICES, HEAD_CHOICES, TASK_CHOICES,
  LAYER_QUESTION, CURVE_QUESTION, CURVE_CHOICES, parseSeed, divergenceText,
} = require('../ui/training-log.js');

// Redraw the charts and heads at most this often while training (ms).
const DRAW_MS = 250;
const TASKS = TASK_CHOICES.map((t) => t.value);

class AttentionTrainer extends LabElement {
  static get jsonKeys() { return []; }

  setup(lab) {
    const d = lab.TRAINER_DEFAULTS;
    this.defaults = { task: this.attr('task', d.task), lr: this.attr('lr', d.lr), layers: this.attr('layers', d.layers),
      heads: this.attr('heads', d.heads), seed: this.attr('seed', d.seed) };
    this.st = { ...this.defaults, logScale: this.attr('log-scale', false) };
    this.maxSteps = this.attr('steps', 1500);
    this.predictOn = this.attr('predict', true);
    this.prediction = { layer: null, curve: null, committed: false, skipped: false };
    this.restoreFields(this.readState());
    const ids = { task: uid(), lr: uid(), layers: uid(), heads: uid(), seed: uid(), seedMsg: uid(), log: uid() };

    // Predict first (the induction task only: its outcome is what the questions are about).
    this.predictBox = h('section', { class: 'al-predict al-trainer-predict', part: 'prompt' });

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
    this.reveal = h('section', { class: 'al-trainer-reveal', hidden: true, 'aria-live': 'polite' });
    this.downloads = h('p', { class: 'al-trainer-downloads' },
      h('button', { type: 'button', onclick: () => this.guard(() => this.saveLosses()) }, 'Losses (CSV)'),
      h('button', { type: 'button', onclick: () => this.guard(() => this.saveWeights()) }, 'Weights (JSON)'));

    this.frame.replaceChildren(
      h('h3', {}, this.attr('heading', 'Train a transformer and watch its heads form')),
      this.predictBox,
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
      this.reveal, this.downloads);
    this.renderControls();
    this.renderPredict();
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
  }

  restore(s) {
    const before = JSON.stringify(this.st);
    this.restoreFields(s);
    if (JSON.stringify(this.st) !== before) this.reset('The link changed the settings: a fresh model.', false);
  }

  viewState() {
    return { ...this.st, step: this.log ? this.log.steps : 0, running: !!this.running, formedAt: this.log && this.log.formed ? this.log.formed.step : null,
      runner: this.runner ? this.runner.kind : null, diverged: !!this.divergence };
  }

  linkState() {
    const { task, lr, layers, heads, seed, logScale } = this.st;
    return { task, lr, layers, heads, seed, log: logScale };
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
    this.log = new TrainingLog();
    this.reports = [];
    this.alert.hidden = true;
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
    this.renderPredict();
    this.draw();
    this.renderStatus(message);
    if (save) this.saveState();
  }

  /**
   * Before the first step: a worker takes over from the page where the page allows one (and
   * `worker` is not off), with a model made from the same seed, so the same weights.
   */
  async moveToRunner() {
    const generation = this.runGeneration;
    if (!this.upgrade) {
      const tryWorker = this.attr('worker', 'auto') !== 'off' && typeof Worker === 'function' && this.log.steps === 0;
      this.upgrade = tryWorker ? WorkerTrainer.start(startWorker).then(async (worker) => {
        if (generation !== this.runGeneration || !this.isConnected || this.log.steps > 0) {
          worker.stop();
          return;
        }
        await worker.create(this.options());
        const page = this.runner;
        this.adopt(worker);
        if (page && page !== worker) page.stop();
      }).catch(() => {}) : Promise.resolve();
    }
    await this.upgrade;
    return generation === this.runGeneration && this.isConnected ? this.runner : null;
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
    if (fields.task !== undefined || fields.layers !== undefined) this.prediction = { layer: null, curve: null, committed: false, skipped: false };
    this.reset('New settings: a fresh model. Press Train.');
  }

  changeSeed() {
    const r = parseSeed(this.seedInput.value);
    if (!r.ok) {
      this.seedMessage.textContent = r.message;
      this.seedInput.setAttribute('aria-invalid', 'true');
      return;
    }
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
    if (this.predictOn && this.st.task === 'induction' && !this.prediction.committed && !this.prediction.skipped) {
      this.prediction.skipped = true;  // Train without answering: the questions go
      this.renderPredict();
    }
    const runner = await this.moveToRunner();
    if (!runner || this.divergence) return;
    if (this.log.steps >= this.maxSteps) this.maxSteps += this.attr('steps', 1500);
    this.running = true;
    this.pausedByHidden = false;
    this.reports.push({ at: performance.now(), step: this.log.steps });
    runner.train(this.maxSteps);
    this.renderControls();
    this.renderStatus();
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
    if (!byHidden) this.say(`Paused at step ${grouped(this.log.steps)}.`);
    this.saveState();
  }

  async stepOnce() {
    if (this.divergence) return;
    const runner = await this.moveToRunner();
    if (!runner) return;
    if (this.running) this.pause();
    runner.step();
  }

  receive(r) {
    if (r.losses) {
      this.log.addLosses(r.first, r.losses);
      this.reports.push({ at: performance.now(), step: r.step });
      if (this.reports.length > 200) this.reports.splice(0, 100);
      if (r.diverged) this.diverged(r);
    }
    if (r.snapshot) this.takeSnapshot(r.snapshot);
    this.renderStatus();
    this.scheduleDraw();
  }

  takeSnapshot(snap) {
    const hadFormed = !!this.log.formed;
    this.snapshot = snap;
    this.log.addScores(snap.step, snap.scores);
    if (!hadFormed && this.log.formed) {
      const f = this.log.formed;
      this.say(`An induction head formed at step ${grouped(f.step)}: layer ${f.layer}, head ${f.head}, induction score ${fixed(f.score, 2)}.`);
    }
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
    this.alert.replaceChildren(h('strong', {}, 'The run diverged. '),
      divergenceText(this.divergence, this.info),
      h('button', { type: 'button', class: 'al-primary', onclick: () => this.guard(() => this.reset('Reset: a fresh model.')) }, 'Reset'));
    this.alert.hidden = false;
    this.renderControls();
    this.say('The run diverged; reset to start again.');
  }

  failed(err) {
    this.running = false;
    // The worker is gone: the next reset makes the model on the page again, and the next
    // Train tries a new worker.
    const runner = this.runner;
    this.runner = null;
    this.upgrade = null;
    if (runner) runner.stop();
    this.alert.replaceChildren(h('strong', {}, 'Training stopped. '), `${err && err.message ? err.message : err} `,
      h('button', { type: 'button', class: 'al-primary', onclick: () => this.guard(() => this.reset('Reset: a fresh model.')) }, 'Reset'));
    this.alert.hidden = false;
    this.renderControls();
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
    const rate = this.running ? stepsPerSecond(this.reports) : null;
    if (rate) parts.push(`${grouped(rate)} steps a second`);
    if (this.runner && (this.running || this.log.steps > 0)) {
      const verb = this.running ? 'training' : 'trained';
      parts.push(this.runner.kind === 'worker' ? `${verb} in a background thread` : `${verb} on this page in short slices (the page allows no background thread)`);
    }
    const text = `${parts.join(' \u00b7 ')}.${this.note && !this.running ? ` ${this.note}` : ''}`;
    setText(this.status_, text);
  }

  renderPredict() {
    const box = this.predictBox;
    const show = this.predictOn && this.st.task === 'induction';
    box.hidden = !show;
    if (!show) return;
    const p = this.prediction;
    if (p.committed || p.skipped) {
      box.replaceChildren(p.committed
        ? h('p', {}, h('strong', {}, 'Your prediction: '), `${labelOf(layerChoices(this.st.layers), p.layer)}; the loss will ${labelOf(CURVE_CHOICES, p.curve)}.`,
          this.reveal.hidden ? ' Train to see.' : ' What happened is below the heads.')
        : h('p', { class: 'al-muted' }, 'Training without a prediction.'));
      box.hidden = p.skipped;
      return;
    }
    const group = (name, question, choices, key) => {
      const qid = uid('al-q');
      return h('fieldset', { class: 'al-trainer-question' }, h('legend', { id: qid }, h('strong', {}, 'Predict: '), question),
        choices.map((c) => {
          const id = uid('al-r');
          return h('label', { for: id, class: 'al-check' },
            h('input', { type: 'radio', id, name, value: c.value, checked: p[key] === c.value, onchange: () => { p[key] = c.value; commit.disabled = !(p.layer && p.curve); } }), c.label);
        }));
    };
    const name = uid('al-p');
    const commit = h('button', { type: 'button', class: 'al-primary', disabled: !(p.layer && p.curve), onclick: () => this.guard(() => {
      p.committed = true;
      this.renderPredict();
      this.trainButton.focus();
      this.say('Prediction saved. Press Train.');
    }) }, 'Lock in my prediction');
    box.replaceChildren(
      h('p', {}, `Before you train: the model has ${counted(this.st.layers, 'layer')} of ${counted(this.st.heads, 'head')} and sees a block of random tokens followed by its repeat. It is scored on the repeat.`),
      group(`${name}-layer`, LAYER_QUESTION, layerChoices(this.st.layers), 'layer'),
      group(`${name}-curve`, CURVE_QUESTION, CURVE_CHOICES, 'curve'),
      h('p', {}, commit, ' ', h('button', { type: 'button', class: 'al-skip', onclick: () => this.guard(() => { p.skipped = true; this.renderPredict(); this.trainButton.focus(); }) }, 'Skip the prediction')));
  }

  scheduleDraw() {
    if (this.drawTimer) return;
    const wait = Math.max(0, DRAW_MS - (performance.now() - (this.lastDraw || 0)));
    this.drawTimer = setTimeout(() => {
      this.drawTimer = null;
      this.soon(() => this.draw());
    }, wait);
  }

  draw() {
    this.lastDraw = performance.now();
    this.drawCharts();
    this.drawHeads();
    this.renderReveal();
    this.renderControls();
  }

  drawCharts() {
    const log = this.log;
    const formed = log.formed;
    const settings = this.linkState();
    const marks = formed ? [{ x: formed.step, label: `induction head, step ${grouped(formed.step)}` }] : [];
    const xMax = Math.max(this.maxSteps, log.steps);
    const loss = log.lossSeries(300);
    const ys = loss.ys.filter(Number.isFinite);
    const top = ys.length ? Math.max(...ys) : this.info.uniformLoss;
    const bottom = ys.length ? Math.min(...ys) : 1;
    const lossOpts = {
      title: 'Training loss', desc: log.steps ? `Mean loss over the scored positions after ${counted(log.steps, 'step')}: ${fixed(log.lastLoss(), 3)} at the last step${formed ? `; an induction head formed at step ${grouped(formed.step)}` : ''}.` : 'No step yet.',
      xLabel: 'step', yLabel: this.st.logScale ? 'loss (log scale)' : 'loss (nats)', xMin: 0, xMax,
      xs: loss.xs.length ? loss.xs : [0], yMax: this.st.logScale ? Math.max(top, 1e-3) : Math.max(1, Math.ceil(top)),
      ...(this.st.logScale ? { yLog: true, yMin: Math.max(1e-4, Math.min(bottom, top / 10)) } : {}),
      series: [{ name: loss.per > 1 ? `loss (mean of each ${loss.per} steps)` : 'loss', ys: loss.xs.length ? loss.ys : [null], cls: 'al-curve' }],
      marks,
    };
    const scores = log.scoreSeries();
    const scoreOpts = {
      title: 'What the heads do', desc: scores.xs.length > 1 ? `The best head\u2019s previous-token score is ${fixed(scores.previous[scores.previous.length - 1], 2)} and its induction score ${fixed(scores.induction[scores.induction.length - 1], 2)}.` : 'Scores of the untrained heads.',
      xLabel: 'step', yLabel: 'score (0 to 1)', xMin: 0, xMax, xs: scores.xs.length ? scores.xs : [0], yMax: 1,
      series: [{ name: 'best induction score', ys: scores.induction, cls: 'al-curve' }, { name: 'best previous-token score', ys: scores.previous, cls: 'al-curve-2' }],
      guides: [{ y: FORMED, label: `${FORMED}` }], marks: marks.map((m) => ({ ...m, low: true })), legend: true,
    };
    const note = `Task ${settings.task}, learning rate ${settings.lr}, ${counted(settings.layers, 'layer')} of ${counted(settings.heads, 'head')}, seed ${settings.seed}.`;
    const withExport = (opts) => [lineChart(opts), h('div', { class: 'al-chart-tools' }, exportMenu(() => chartFigure(opts, settings, note), { label: opts.title }).root)];
    this.lossChart.replaceChildren(...withExport(lossOpts));
    this.scoreChart.replaceChildren(...withExport(scoreOpts));
  }

  drawHeads() {
    const snap = this.snapshot;
    if (!snap || !this.info) return;
    const { layers, heads } = this.info.options;
    const tokens = this.info.example;
    const n = tokens.length;
    setText(this.exampleLine, `The example (token ids): ${tokens.join(' ')}. Each square shows one head\u2019s weights on it after ${counted(snap.step, 'step')}: row i is where token i looks, brighter is more weight, the empty triangle is the future, hidden by the causal mask.`);
    const cards = this.headCards && this.headCards.length === layers * heads ? this.headCards : this.buildHeads(layers, heads, n);
    snap.scores.forEach((s, k) => {
      const card = cards[k];
      paint(card.canvas, snap.patterns, k * n * n, n);
      card.prev.style.width = `${Math.round(100 * s.previousToken)}%`;
      card.ind.style.width = `${Math.round(100 * s.induction)}%`;
      setText(card.prevText, fixed(s.previousToken, 2));
      setText(card.indText, fixed(s.induction, 2));
      card.root.classList.toggle('al-formed', s.induction >= FORMED);
      card.view.setAttribute('aria-label', `Layer ${s.layer}, head ${s.head}: previous-token score ${fixed(s.previousToken, 2)}, induction score ${fixed(s.induction, 2)}${s.induction >= FORMED ? ', an induction head' : ''}.`);
    });
  }

  buildHeads(layers, heads, n) {
    this.headCards = [];
    const rows = [];
    for (let l = 0; l < layers; l++) {
      const row = h('div', { class: 'al-trainer-layer', role: 'group', 'aria-label': `Layer ${l}` }, h('p', { class: 'al-trainer-layer-name' }, `layer ${l}`));
      for (let k = 0; k < heads; k++) {
        const index = l * heads + k;
        const canvas = h('canvas', { width: String(n), height: String(n), class: 'al-trainer-canvas', 'aria-hidden': 'true' });
        const bar = (cls) => h('span', { class: `al-bar ${cls}` });
        const prev = bar('al-bar-prev'), ind = bar('al-bar-ind');
        const prevText = h('span', { class: 'al-trainer-score' }), indText = h('span', { class: 'al-trainer-score' });
        // The focusable picture (its label: the head's scores) and, beside it, not inside it,
        // the head's export menu: an interactive control inside role="img" is hidden from
        // assistive technology (axe: nested-interactive).
        const view = h('div', { class: 'al-trainer-head-view', tabindex: '0', role: 'img' }, canvas,
          h('div', { class: 'al-trainer-bars', 'aria-hidden': 'true' },
            h('span', { class: 'al-trainer-bar-name' }, 'previous'), h('span', { class: 'al-trainer-track' }, prev), prevText,
            h('span', { class: 'al-trainer-bar-name' }, 'induction'), h('span', { class: 'al-trainer-track' }, ind), indText));
        const root = h('figure', { class: 'al-trainer-head' },
          h('figcaption', { 'aria-hidden': 'true' }, `head ${k}`), view,
          h('div', { class: 'al-trainer-head-export' }, exportMenu(() => this.headFigure(index), { label: `layer ${l} head ${k}` }).root));
        this.headCards.push({ root, view, canvas, prev, ind, prevText, indText });
        row.append(root);
      }
      rows.push(row);
    }
    this.headsBox.replaceChildren(...rows);
    return this.headCards;
  }

  /** One head's weights on the example as an export figure (heatmap). */
  headFigure(index) {
    const snap = this.snapshot;
    const tokens = this.info.example.map(String);
    const n = tokens.length, s = snap.scores[index];
    const values = [], masked = [];
    for (let i = 0; i < n; i++) {
      values.push(Array.from(snap.patterns.subarray((index * n + i) * n, (index * n + i + 1) * n)));
      masked.push(tokens.map((_, j) => j > i));
    }
    return {
      kind: 'heatmap', title: `Layer ${s.layer}, head ${s.head} after ${counted(snap.step, 'step')}`,
      caption: `Weights of one head on the example (token ids); rows are queries. Previous-token score ${fixed(s.previousToken, 2)}, induction score ${fixed(s.induction, 2)}.`,
      settings: this.linkState(), rowLabels: tokens, colLabels: tokens, values, masked,
    };
  }

  renderReveal() {
    const p = this.prediction;
    if (!p.committed) {
      this.reveal.hidden = true;
      return;
    }
    const verdict = judgeRun(this.log, p, { patience: Math.min(this.maxSteps, 1000) });
    if (!verdict) {
      this.reveal.hidden = true;
      return;
    }
    const line = (v) => h('p', { class: v.ok ? 'al-verdict-ok' : 'al-verdict-bad' }, v.message);
    const key = `${verdict.layer.message}|${verdict.curve.message}`;
    if (key === this.revealKey) return;
    this.revealKey = key;
    this.reveal.replaceChildren(h('h4', {}, 'What happened'), line(verdict.layer), line(verdict.curve));
    const first = this.reveal.hidden;
    this.reveal.hidden = false;
    if (first) this.renderPredict();
  }

  // ---- lifecycle ----

  connectedCallback() {
    super.connectedCallback();
    const { signal } = this._listeners;
    this.ownerDocument.addEventListener('visibilitychange', () => this.guard(() => {
      if (this.ownerDocument.hidden && this.running) this.pause(true);
      else if (!this.ownerDocument.hidden && this.pausedByHidden) this.train();
    }), { signal });
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    // A widget taken off the page stops training and frees its worker; it starts afresh if it comes back.
    clearTimeout(this.drawTimer);
    this.drawTimer = null;
    this.running = false;
    this.runGeneration = (this.runGeneration || 0) + 1;
    if (this.runner) this.runner.stop();
    this.runner = null;
    this.upgrade = null;
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

function labelOf(choices, value) {
  const c = choices.find((x) => x.value === value);
  return c ? c.label : '';
}

/** Draws one head's n x n weights into its canvas (one pixel a cell; CSS scales it up). */
function paint(canvas, patterns, offset, n) {
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  const image = ctx.createImageData(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const at = 4 * (i * n + j);
      if (j > i) {
        image.data[at + 3] = 0;  // masked: the card's background shows
        continue;
      }
      const [r, g, b] = colors.rgb(patterns[offset + i * n + j]);
      image.data[at] = r;
      image.data[at + 1] = g;
      image.data[at + 2] = b;
      image.data[at + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);
}

module.exports = { AttentionTrainer };
