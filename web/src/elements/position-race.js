'use strict';
// <position-race>: the same small transformer trained on the induction task with each of five
// position schemes (learned, sinusoidal, RoPE, ALiBi, none), side by side and live: each
// scheme's loss, the step its previous-token and induction heads formed (from the engine's
// record of every step, so the same on any machine), then its loss at each position of
// sequences 2x and 4x the training length. The learner ranks the schemes first. The engine
// trains in one Web Worker that takes the five in turn (kit/race-runner.js), or on the page in
// short slices where the page allows no worker. Rules and charts: ui/position-race.js.

const { h, uid, setText, scrollBox } = require('../kit/dom.js');
const { LiveElement } = require('../kit/live-element.js');
const { lineChart, updateLineChart, legendList } = require('../kit/svg.js');
const { exportMenu } = require('../kit/export-menu.js');
const { startWorker } = require('../kit/engine-worker.js');
const { WorkerRace, PageRace } = require('../kit/race-runner.js');
const { chartFigure } = require('../ui/export.js');
const { grouped, counted } = require('../ui/format.js');
const race = require('../ui/position-race.js');

const { SCHEMES, BUDGET, LENGTHS } = race;

class PositionRace extends LiveElement {
  static get jsonKeys() { return []; }

  setup(lab) {
    this.predictOn = this.attr('predict', true);
    this.prediction = { place: {}, works: { 64: new Set(), 128: new Set() }, committed: false, skipped: false };
    this.options = SCHEMES.map((s) => race.raceOptions(lab.TRAINER_DEFAULTS, s.value));
    this.seqLen = lab.TRAINER_DEFAULTS.seqLen;
    this.chartLength = LENGTHS[LENGTHS.length - 1];

    this.predictBox = h('section', { class: 'al-predict al-race-predict', part: 'prompt' });
    this.startButton = h('button', { type: 'button', class: 'al-primary', onclick: () => this.guard(() => this.toggle()) }, 'Start the race');
    this.resetButton = h('button', { type: 'button', onclick: () => this.guard(() => this.reset('Reset: five fresh models from seed 1.')) }, 'Reset');
    this.status_ = h('p', { class: 'al-trainer-status', part: 'status' });
    this.announcer = h('p', { class: 'al-sr', role: 'status' });
    this.alert = h('div', { class: 'al-trainer-alert', role: 'alert', hidden: true });
    this.table = h('table', { class: 'al-table al-race-table', part: 'table' });
    this.lossChart = h('div', { part: 'chart', class: 'al-trainer-chart' });
    this.positionChart = h('div', { part: 'chart', class: 'al-trainer-chart' });
    this.lengthButtons = LENGTHS.map((n) => h('button', { type: 'button', 'aria-pressed': 'false', onclick: () => this.guard(() => this.showLength(n)) }, `${n} tokens`));
    this.refusal = h('p', { class: 'al-race-refusal', hidden: true });
    this.reveal = h('section', { class: 'al-trainer-reveal', hidden: true, 'aria-live': 'polite' });

    this.frame.replaceChildren(
      h('h3', {}, this.attr('heading', 'Five ways to know word order: a race')),
      h('p', {}, `The same two-layer model learns the induction task (a block of random tokens, repeated to fill the sequence) once with each way of giving it positions, and once with no positions (only the causal mask), ${counted(BUDGET, 'step')} each, seed 1, ${this.seqLen} tokens per sequence. Then each reads sequences ${LENGTHS.map((n) => `${n / this.seqLen}x`).join(' and ')} as long.`),
      this.predictBox,
      h('div', { class: 'al-controls', part: 'controls' }, this.startButton, this.resetButton),
      this.status_, this.announcer, this.alert,
      scrollBox('Results of each scheme', this.table),
      h('p', { class: 'al-muted' }, 'Formed: the first step a head\u2019s score reaches one half (previous-token: over the block\u2019s first copy, lesson 6\u2019s first score).'),
      h('div', { class: 'al-trainer-charts' }, this.lossChart,
        h('div', {}, this.positionChart, h('div', { class: 'al-group', role: 'group', 'aria-label': 'sequence length of the position chart' }, 'length read: ', this.lengthButtons))),
      this.refusal, this.reveal);
    this.renderPredict();
    // The worker starts when the reader reaches for the race (a pointer over Start, or focus in
    // the widget), so its engine is ready by the press; never for a pointer merely passing by.
    const warm = () => this.guard(() => this.runnerFor(this.raceGen));
    this.startButton.addEventListener('pointerenter', warm);
    this.frame.addEventListener('focusin', warm);
    this.reset(null, false);
  }

  // ---- state ----

  viewState() {
    const lanes = this.lanes || [];
    const of = (fn) => Object.fromEntries(lanes.map((l) => [l.scheme, fn(l)]));
    return {
      running: !!this.running, done: !!this.done, runner: this.runner ? this.runner.kind : null,
      steps: of((l) => l.steps), formed: of((l) => ({ ...l.formed })),
      lengths: of((l) => Object.fromEntries(LENGTHS.map((n) => {
        const w = race.worksAt(l, n);
        const r = l.lengths && l.lengths.find((x) => x.length === n);
        return [n, w === null ? null : w === 'refused' ? 'refused' : r.past];
      }))),
      predicted: this.prediction.committed ? 'committed' : this.prediction.skipped ? 'skipped' : null,
    };
  }

  // ---- running ----

  /** Five empty lanes; the models are made on the first Start (in the runner). */
  reset(message, announce = true) {
    this.raceGen = (this.raceGen || 0) + 1;
    if (this.running && this.runner) this.runner.pause();
    this.running = false;
    this.pausedByHidden = false;
    this.done = false;
    this.created = false;
    this.lanes = SCHEMES.map((s) => new race.Lane(s.value, null));
    this.alert.hidden = true;
    this.reveal.hidden = true;
    this.refusal.hidden = true;
    this.renderPredict();
    this.draw();
    this.renderStatus(message);
    this.say(message || '');
    if (announce) this.emitChange();
  }

  /**
   * The runner: a worker where the page allows one (and `worker` is not off), else the page.
   * Resolves to null when the widget left the page or was reset meanwhile.
   */
  async runnerFor(gen) {
    if (!this.runnerReady) this.runnerReady = this.makeRunner(this.runnerToken = {});
    const runner = await this.runnerReady;
    return this.isConnected && gen === this.raceGen ? runner : null;
  }

  async makeRunner(token) {
    let runner = null;
    if (this.attr('worker', 'auto') !== 'off' && typeof Worker === 'function') {
      try {
        runner = await WorkerRace.start(startWorker);
      } catch (err) {
        runner = null;  // no worker (a CSP, or it failed to start): the page trains
      }
    }
    // removed (or the worker failed and was dropped) while it started: it ends here, none is left running
    if (token !== this.runnerToken || !this.isConnected) {
      if (runner) runner.stop();
      return null;
    }
    runner = runner || new PageRace(this.lab);
    this.runner = runner;
    // a report of a race since reset (in flight from the worker) is not this race's
    runner.onReport = (k, r) => this.guard(() => { if (this.created) this.receive(k, r); });
    runner.onLengths = (results) => this.guard(() => { if (this.created) this.finish(results); });
    runner.onStopped = () => this.guard(() => this.stopped());
    runner.onError = (err) => this.guard(() => this.failed(err));
    return runner;
  }

  async toggle() {
    if (this.running) this.pauseRace();
    else await this.start();
  }

  async start() {
    if (this.done || this.starting) return;
    const p = this.prediction;
    if (this.predictOn && !p.committed && !p.skipped) {
      p.skipped = true;  // Start without answering: the questions go
      this.renderPredict();
    }
    const gen = this.raceGen;
    this.starting = true;
    try {
      const runner = await this.runnerFor(gen);
      if (!runner) return;
      if (!this.created) {
        setText(this.status_, 'Making five models\u2026');
        const infos = await runner.create(this.options);
        if (!this.isConnected || gen !== this.raceGen) return;
        this.lanes = SCHEMES.map((s, k) => new race.Lane(s.value, infos[k].formedThreshold));
        this.created = true;
      }
      // the tab was hidden while the models were made: the race waits for it to be shown
      if (this.ownerDocument.hidden) {
        this.pausedByHidden = true;
        this.renderStatus();
        return;
      }
      this.running = true;
      this.pausedByHidden = false;
      runner.train(BUDGET, LENGTHS);
      this.renderControls();
      this.renderStatus();
      this.say(`The race started${runner.kind === 'worker' ? '' : ' on this page'}.`);
      this.emitChange();
    } finally {
      this.starting = false;
    }
  }

  pauseRace(byHidden = false) {
    if (!this.running || !this.runner) return;
    this.runner.pause();
    this.running = false;
    this.pausedByHidden = byHidden;
    this.renderControls();
    this.renderStatus();
    if (!byHidden) this.say(`Paused at step ${grouped(this.slowest())}.`);
    this.emitChange();
  }

  slowest() { return Math.min(...this.lanes.map((l) => l.steps)); }

  receive(k, r) {
    const lane = this.lanes[k];
    const before = { ...lane.formed };
    lane.add(r);
    const name = SCHEMES[k].label;
    if (before.previousToken === null && lane.formed.previousToken !== null) this.say(`${name}: a previous-token head at step ${grouped(lane.formed.previousToken)}.`);
    if (before.induction === null && lane.formed.induction !== null) this.say(`${name}: an induction head at step ${grouped(lane.formed.induction)}.`);
    this.scheduleDraw();
  }

  finish(results) {
    this.lanes.forEach((l, k) => l.setLengths(results[k], this.seqLen));
    this.done = true;
    this.running = false;
    this.draw();
    this.say('The race is over: every scheme trained 1,000 steps and read the longer sequences.');
    this.emitChange();
  }

  stopped() {
    if (!this.running) return;
    this.running = false;
    this.renderControls();
    this.renderStatus();
  }

  failed(err) {
    this.running = false;
    // The runner is gone: Reset makes the models again, the next Start tries a new worker.
    const runner = this.runner;
    this.runner = null;
    this.runnerReady = null;
    this.runnerToken = null;
    this.created = false;
    if (runner) runner.stop();
    const reset = h('button', { type: 'button', class: 'al-primary', onclick: () => this.guard(() => this.reset('Reset: five fresh models from seed 1.')) }, 'Reset');
    this.alert.replaceChildren(h('strong', {}, 'The race stopped. '), `${err && err.message ? err.message : err} `, reset);
    this.alert.hidden = false;
    this.renderControls();
  }

  showLength(n) {
    this.chartLength = n;
    this.drawCharts();
    this.renderControls();  // the pressed button follows the length shown
  }

  say(text) { setText(this.announcer, text); }

  emitChange() { this.emit('al-change', { state: this.state }); }

  // ---- drawing ----

  renderControls() {
    setText(this.startButton, this.running ? 'Pause' : this.done ? 'Finished' : this.created && this.slowest() > 0 ? 'Continue' : 'Start the race');
    this.startButton.setAttribute('aria-pressed', this.running ? 'true' : 'false');
    this.startButton.disabled = this.done || !this.alert.hidden;
    this.lengthButtons.forEach((b, i) => b.setAttribute('aria-pressed', String(LENGTHS[i] === this.chartLength)));
  }

  renderStatus(message) {
    if (message !== undefined && message !== null) this.note = message;
    const steps = this.slowest();
    const parts = [this.done ? `Finished: ${counted(BUDGET, 'step')} each` : `Step ${grouped(steps)} of ${grouped(BUDGET)} for each scheme`];
    if (this.runner && (this.running || steps > 0)) {
      const verb = this.running ? 'training' : 'trained';
      parts.push(this.runner.kind === 'worker' ? `${verb} in a background thread, the five in turn` : `${verb} on this page in short slices (the page allows no background thread)`);
    }
    const note = this.pausedByHidden ? 'Paused while this tab is hidden.' : this.note && !this.running && !this.done && steps === 0 ? this.note : '';
    setText(this.status_, `${parts.join(' \u00b7 ')}.${note ? ` ${note}` : ''}`);
  }

  renderPredict() {
    const box = this.predictBox, p = this.prediction;
    box.hidden = !this.predictOn || p.skipped;
    if (box.hidden) return;
    if (p.committed) {
      const placed = SCHEMES.filter((s) => p.place[s.value] !== 'none').sort((a, b) => p.place[a.value] - p.place[b.value]).map((s) => s.label);
      const works = LENGTHS.map((n) => `at ${n} tokens: ${SCHEMES.filter((s) => p.works[n].has(s.value)).map((s) => s.label).join(', ') || 'none'}`);
      box.replaceChildren(h('p', {}, h('strong', {}, 'Your prediction: '), `induction heads in the order ${placed.join(', ') || '(none)'}; still working ${works.join('; ')}.`,
        this.done ? ' What happened is below the charts.' : ' Start the race to see.'));
      return;
    }
    const problem = h('p', { class: 'al-input-message', role: 'status' });
    const row = (s) => {
      const select = h('select', { 'aria-label': `${s.label}: its place in forming an induction head`,
        onchange: (e) => { p.place[s.value] = e.target.value; setText(problem, ''); } },
      h('option', { value: '' }, 'choose'), race.PLACES.map((o) => h('option', { value: o.value, selected: p.place[s.value] === o.value }, o.label)));
      // the label around the box is its tap target, at least 28 px square on a phone
      const tick = (n) => h('td', {}, h('label', { class: 'al-race-tick' }, h('input', { type: 'checkbox', 'aria-label': `${s.label} still works at ${n} tokens`, checked: p.works[n].has(s.value),
        onchange: (e) => { if (e.target.checked) p.works[n].add(s.value); else p.works[n].delete(s.value); } })));
      return h('tr', {}, h('th', { scope: 'row' }, s.label), h('td', {}, select), LENGTHS.map(tick));
    };
    const lock = h('button', { type: 'button', class: 'al-primary', onclick: () => this.guard(() => {
      const why = race.predictionProblem(p);
      if (why) {
        setText(problem, why);
        return;
      }
      p.committed = true;
      this.renderPredict();
      this.startButton.focus();
      this.say('Prediction saved. Press Start the race.');
      this.emitChange();
    }) }, 'Lock in my prediction');
    const skip = h('button', { type: 'button', class: 'al-skip', onclick: () => this.guard(() => {
      p.skipped = true;
      this.renderPredict();
      this.startButton.focus();
      this.emitChange();
    }) }, 'Skip the prediction');
    const caption = uid('al-c');
    box.replaceChildren(
      h('p', { id: caption }, h('strong', {}, 'Predict first: '), `which schemes form an induction head within ${grouped(BUDGET)} steps, in what order (1st is fastest; none if it never forms), and which still predict the repeat well (under ${race.WORKS_BELOW} nat of loss from position ${this.seqLen} on) on longer sequences?`),
      scrollBox('Your prediction', h('table', { class: 'al-table', 'aria-labelledby': caption },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col', rowspan: '2' }, 'scheme'), h('th', { scope: 'col', rowspan: '2' }, 'place'), h('th', { scope: 'colgroup', colspan: String(LENGTHS.length) }, 'works at')),
          h('tr', {}, LENGTHS.map((n) => h('th', { scope: 'col' }, String(n))))),
        h('tbody', {}, SCHEMES.map(row)))),
      problem,
      h('p', {}, lock, ' ', skip));
  }

  draw() {
    this.renderTable();
    this.drawCharts();
    this.renderControls();
    this.renderStatus();
    this.renderReveal();
  }

  renderTable() {
    const head = h('thead', {}, h('tr', {}, h('th', { scope: 'col', rowspan: '2' }, 'scheme'), h('th', { scope: 'colgroup', colspan: '2' }, 'head formed at step'),
      h('th', { scope: 'colgroup', colspan: String(LENGTHS.length) }, `loss from ${this.seqLen} on (nats), tokens read`)),
    h('tr', {}, h('th', { scope: 'col' }, 'previous-token'), h('th', { scope: 'col' }, 'induction'), LENGTHS.map((n) => h('th', { scope: 'col' }, String(n)))));
    // short cells (the units and the budget are in the headers and the note), so all five columns fit a phone
    const rows = this.lanes.map((l, k) => h('tr', {}, h('th', { scope: 'row' }, SCHEMES[k].label),
      ['previousToken', 'induction'].map((key) => h('td', {}, race.formedText(l, key))),
      LENGTHS.map((n) => h('td', { class: race.worksAt(l, n) === true ? 'al-race-works' : '' }, race.lengthText(l, n, true) || '\u2013'))));
    this.table.replaceChildren(h('caption', { class: 'al-sr' }, 'Each scheme: the step its heads formed, and its mean loss past the training length'), head, h('tbody', {}, rows));
    const learned = this.lanes.find((l) => l.scheme === 'learned');
    const refused = learned && learned.lengths && learned.lengths.find((r) => r.refused);
    this.refusal.hidden = !refused;
    if (refused) {
      this.refusal.replaceChildren(h('strong', {}, `The learned table has no vector for position ${this.seqLen} or beyond. `),
        `Asked for the loss on longer sequences, the engine refuses rather than guess: \u201c${refused.refused}\u201d`);
    }
  }

  drawCharts() {
    this.chartOpts = race.raceCharts(this.lanes, { length: this.chartLength, seqLen: this.seqLen });
    [this.lossChart, this.positionChart].forEach((box, k) => {
      const opts = this.chartOpts[k];
      const svg = box.firstElementChild;
      if (svg && box.dataset.title === opts.title && updateLineChart(svg, opts)) return;
      box.dataset.title = opts.title;
      const menu = exportMenu(() => chartFigure(this.chartOpts[k], { seed: race.SEED, steps: BUDGET }, 'Trainer defaults, seed 1, one model per position scheme.'), { label: opts.title });
      box.replaceChildren(lineChart(opts), legendList(opts.guides ? [...opts.series, race.GUIDE_LEGEND] : opts.series), h('div', { class: 'al-chart-tools' }, menu.root));
    });
  }

  renderReveal() {
    const p = this.prediction;
    if (!this.done || !p.committed) {
      this.reveal.hidden = true;
      return;
    }
    const v = race.judgePrediction(p, this.lanes);
    const line = (x) => h('p', { class: x.ok ? 'al-verdict-ok' : 'al-verdict-bad' }, x.message);
    this.reveal.replaceChildren(h('h4', {}, 'What happened'), line(v.places), ...v.lengths.map(line));
    if (this.reveal.hidden) {
      this.reveal.hidden = false;
      this.renderPredict();
    }
  }

  // ---- lifecycle ----

  // the tab hidden and shown again (LiveElement)
  pauseRun() { this.pauseRace(true); }

  resumeRun() { this.start(); }

  disconnectedCallback() {
    super.disconnectedCallback();
    // A race taken off the page stops and frees its worker; it starts afresh if it comes back.
    this.running = false;
    this.raceGen = (this.raceGen || 0) + 1;
    if (this.runner) this.runner.stop();
    this.runner = null;
    this.runnerReady = null;
    this.runnerToken = null;
    this._dirty = true;
  }
}

module.exports = { PositionRace };
