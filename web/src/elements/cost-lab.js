'use strict';
// <cost-lab>: what attention costs, measured in the reader's browser (time and peak extra
// memory of full against tiled attention as n doubles, on log-log charts with fitted
// slopes) and computed for published model shapes (attention-matrix and KV-cache bytes).
// Every number comes from the engine or from a measurement of it; the sweep runs in a Web
// Worker (cost-runner.js) so the page never blocks.

const { h, uid, scrollBox } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { PredictView } = require('../kit/predict-view.js');
const { WorkerRunner, PageRunner, Cancelled } = require('../kit/cost-runner.js');
const { startWorker } = require('../kit/engine-worker.js');
const { createSweep, METHODS } = require('../ui/cost-sweep.js');
const { median } = require('../ui/cost-fit.js');
const { CostResults, NAMES } = require('../kit/cost-results.js');
const { CALC_FIELDS } = require('../ui/cost-calc.js');
const { CostCalculator, presetFields } = require('../kit/cost-calculator.js');
const { pause } = require('../kit/schedule.js');
const { GROWTH_CHOICES, judgeGrowth, growthAnswer } = require('../ui/cost-predict.js');
const { DTYPES, modelShape } = require('../ui/model-shapes.js');
const { formatMs } = require('../ui/bytes.js');
const { grouped } = require('../ui/format.js');
const { FAST_MEMORY_CHOICES, DEFAULT_FAST_MEMORY_KIB, fastMemoryFloats, fastMemoryLabel, trafficSentences } = require('../ui/cost-traffic.js');

const MAX_NS = [1024, 2048, 4096, 8192, 16384];
const D = 64;
// The longest single call each runner may start: a worker can take seconds; the page's own
// thread must stay under the 50 ms that makes a task "long".
const BUDGET_MS = { worker: 10000, page: 40 };
const MIN_MS = { worker: 20, page: 5 };
const PAGE_SENTENCE = 'This page does not allow background workers, so the measurement runs on the page itself, in small steps, and stops at sizes where one call would take more than about 50 ms.';
/** The window of the traffic table's sliding-window row (keys each query sees). */
const TRAFFIC_WINDOW = 256;

class CostLab extends LabElement {
  static get jsonKeys() { return []; }

  async setup(lab) {
    const preset = this.attr('preset', 'llama-2-7b');
    this.st = { maxN: this.attr('max-n', '16384'), dtype: 'float16', ...presetFields(preset), preset, ran: false, runner: null,
      fastMemory: DEFAULT_FAST_MEMORY_KIB };
    this.results = null;

    // Prediction.
    this.prompt = new PredictView({
      question: 'when the sequence length n doubles, what happens to the time full attention takes?',
      choices: GROWTH_CHOICES,
      judge: (choice) => {
        this.predicted = choice;
        return judgeGrowth(choice, this.sweep ? this.sweep.slope('full') : null);
      },
      onReveal: () => this.reveal(),
      skip: 'Show the results without predicting',
      printAnswer: () => growthAnswer(this.sweep ? this.sweep.slope('full') : null),
    });
    this.prompt.root.setAttribute('part', 'prompt');

    // The sweep.
    const ids = { maxN: uid(), progress: uid(), memory: uid() };
    this.memorySelect = h('select', { id: ids.memory, onchange: () => this.guard(() => this.update({ fastMemory: Number(this.memorySelect.value) })) },
      FAST_MEMORY_CHOICES.map((c) => h('option', { value: String(c.kib) }, `${c.kib} KiB`)));
    this.maxNSelect = h('select', { id: ids.maxN, onchange: () => this.guard(() => this.update({ maxN: this.maxNSelect.value })) },
      MAX_NS.map((n) => h('option', { value: String(n) }, grouped(n))));
    this.runButton = h('button', { type: 'button', class: 'al-primary', onclick: () => this.guard(() => this.run()) }, 'Run');
    this.cancelButton = h('button', { type: 'button', disabled: true, onclick: () => this.guard(() => this.cancel()) }, 'Cancel');
    this.progress = h('progress', { id: ids.progress, max: '1', value: '0', part: 'progress', 'aria-label': 'Measurement progress' });
    this.status_ = h('p', { class: 'al-muted al-cost-status' }, 'Press Run to measure full and tiled attention (d = 64) in your browser.');
    // A sweep makes dozens of runs: the line above follows each one, a screen reader hears only
    // the start and the end (say()).
    this.announcer = h('p', { class: 'al-sr', role: 'status' });
    this.pageNote = h('p', { class: 'al-cost-note', hidden: true }, PAGE_SENTENCE);
    this.results = new CostResults(lab, D);
    this.resultsBox = h('div', { class: 'al-cost-results' },
      this.results.slopes,
      h('h4', {}, 'Time per call'), this.results.timeChart,
      h('h4', {}, 'Peak extra memory'), this.results.memChart,
      h('p', { class: 'al-muted' }, 'Extra memory is the engine\u2019s count of floats held beyond the inputs and the output, times 4 bytes. Solid: full attention as this engine runs it, keeping all four n \u00d7 n stages (scores, scaled, masked, weights) so the lessons can show each one. Dotted: a minimal full kernel, which keeps one n \u00d7 n matrix and takes the softmax in place, a quarter of that. Dashed: tiled attention, which walks the keys in blocks of 64 with a running maximum and sum and holds the same few blocks whatever n is.'),
      scrollBox('Measured numbers', this.results.table), this.results.refusals,
      this.trafficHead = h('h4', {}),
      h('div', { class: 'al-controls', part: 'controls' }, h('label', { for: ids.memory }, 'fast memory M', this.memorySelect)),
      scrollBox('Work and memory traffic', this.traffic = h('table', { class: 'al-table al-stack al-cost-traffic', part: 'traffic' })),
      this.trafficNotes = h('div', { class: 'al-cost-traffic-notes al-muted' }),
      h('p', { class: 'al-muted al-cost-hardware' }, 'Both methods do the same multiply-adds; they differ in the numbers they move. A graphics processor does its arithmetic so fast that reading and writing its large main memory sets the speed of attention, and that is where a tiled kernel such as FlashAttention wins. A processor core has small, fast memories too, its L1 and L2 caches, and fast CPU kernels are fast because they work in blocks that stay in them (Goto and van de Geijn 2008 take matrix products apart this way); the tiled kernel\u2019s blocks fit in them as well. But one core\u2019s arithmetic is far slower than a graphics processor\u2019s, so the full method\u2019s extra traffic costs it much less of its time, and the two lines of times above may lie close together. What tiling surely saves here is memory. A sliding window cuts the work itself.'));
    this.resultsBox.hidden = this.attr('predict', true);
    if (!this.attr('predict', true)) this.prompt.root.hidden = true;

    // The calculator.
    this.calculator = new CostCalculator({ lab, st: this.st, update: (change) => this.update(change), guard: (fn) => this.guard(fn) });

    this.frame.replaceChildren(
      h('section', { class: 'al-cost-measure' },
        h('h3', {}, 'Measured in your browser: full against tiled attention'),
        this.prompt.root,
        h('div', { class: 'al-controls', part: 'controls' },
          h('label', { for: ids.maxN }, 'up to n =', this.maxNSelect), this.runButton, this.cancelButton,
          h('span', { class: 'al-cost-progress' }, this.progress)),
        this.status_, this.announcer, this.pageNote, this.resultsBox),
      this.calculator.root);
    // Two tasks: the view and calculator, then the traffic table (the engine walks every tile).
    this.takeState(this.readState());
    this.renderInputs();
    await this.pause();
    this.renderTraffic();
  }

  viewState() {
    return { ...this.st, predicted: this.predicted || null };
  }

  linkState() {
    const s = { maxN: this.st.maxN, preset: this.st.preset, dtype: this.st.dtype };
    if (this.st.fastMemory !== DEFAULT_FAST_MEMORY_KIB) s.memory = this.st.fastMemory;
    if (this.st.preset === 'custom') for (const [key] of CALC_FIELDS) s[key] = this.st[key];
    return s;
  }

  restore(s, save = true) {
    this.takeState(s);
    this.render(save);
  }

  takeState(s) {
    if (MAX_NS.includes(Number(s.maxN))) this.st.maxN = String(Number(s.maxN));
    if (DTYPES.includes(s.dtype)) this.st.dtype = s.dtype;
    const memory = Number(s.memory);
    if (FAST_MEMORY_CHOICES.some((c) => c.kib === memory)) this.st.fastMemory = memory;
    if (s.preset && (s.preset === 'custom' || modelShape(s.preset))) {
      this.st.preset = s.preset;
      Object.assign(this.st, presetFields(s.preset === 'custom' ? null : s.preset));
      if (s.preset === 'custom') {
        for (const [key, , min, fallback] of CALC_FIELDS) this.st[key] = urlState.int(s[key], fallback, min, 1e9);
      }
    }
  }

  applyAttribute(property, value) {
    if (property === 'maxN') this.update({ maxN: value === undefined ? '16384' : value });
    else if (property === 'preset') this.calculator.choosePreset(value === undefined ? 'llama-2-7b' : value);
  }

  update(change) {
    Object.assign(this.st, change);
    this.render();
  }

  render(save = true) {
    this.renderInputs();
    this.renderTraffic();
    if (save) this.saveState();
  }

  renderInputs() {
    this.maxNSelect.value = this.st.maxN;
    this.memorySelect.value = String(this.st.fastMemory);
    this.calculator.render();
  }

  /**
   * The engine's counts of work and traffic at the sweep's largest n: full, tiled with the
   * blocks the chosen fast memory M gives, and tiled with a causal sliding window (whole blocks).
   */
  renderTraffic() {
    const n = Number(this.st.maxN), kib = this.st.fastMemory;
    const fastMemory = fastMemoryFloats(kib);
    const defaults = this.lab.costFigures({ m: n, n, dk: D });
    const plain = this.lab.costFigures({ m: n, n, dk: D, fastMemory });
    const windowed = this.lab.costFigures({ m: n, n, dk: D, causal: true, window: TRAFFIC_WINDOW, fastMemory });
    // Each choice's blocks, from the engine: the one that gives the engine's own is named.
    let ownKib = null;
    for (const [i, choice] of FAST_MEMORY_CHOICES.entries()) {
      const blocks = this.lab.costFigures({ m: n, n, dk: D, fastMemory: fastMemoryFloats(choice.kib) });
      if (ownKib === null && blocks.blockQ === defaults.blockQ && blocks.blockK === defaults.blockK) ownKib = choice.kib;
      this.memorySelect.options[i].textContent = fastMemoryLabel(choice, blocks, defaults);
    }
    this.trafficHead.textContent = `Work and memory traffic at n = ${grouped(n)}, d = ${D} (the engine\u2019s counts)`;
    const blocks = `${grouped(plain.blockQ)} \u00d7 ${grouped(plain.blockK)}`;
    const rows = [
      ['full attention (one n \u00d7 n matrix, written and read back)', plain.full],
      [`tiled, ${blocks} blocks`, plain.tiled],
      [`tiled, causal window of ${grouped(TRAFFIC_WINDOW)} keys, whole ${blocks} blocks`, windowed.tiled],
    ];
    const say = trafficSentences({ c: plain, defaults, windowed, d: D, window: TRAFFIC_WINDOW, kib, ownKib });
    this.trafficNotes.replaceChildren(h('p', {}, say.ratio), h('p', {}, say.origin), h('p', {}, say.window));
    const cols = ['multiply-adds', 'floats read', 'floats written', 'extra floats held'];
    this.traffic.replaceChildren(
      h('caption', { class: 'al-sr' }, this.trafficHead.textContent),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'method'), cols.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rows.map(([label, c]) => h('tr', {}, h('th', { scope: 'row' }, label),
        [c.multiplyAdds, c.floatsRead, c.floatsWritten, c.peakExtraFloats].map((v, i) => h('td', { 'data-label': cols[i] }, grouped(v)))))));
  }

  /** The status line's note of the size just measured (cheap: the charts are drawn at the end). */
  lastLine(job, result) {
    const what = result.error ? 'refused' : formatMs(median(result.times));
    this.lastResult = `${NAMES[job.method]} at n = ${grouped(job.n)}: ${what}`;
  }

  reveal() {
    this.resultsBox.hidden = false;
    if (this.sweep) this.draw();
  }

  async run() {
    if (this.running) return;
    const generation = this.runGen = (this.runGen || 0) + 1;
    this.running = true;
    // Cancel takes the focus before Run is disabled, so a keyboard user is never dropped to the page.
    const hadFocus = this.shadowRoot.activeElement === this.runButton;
    this.cancelButton.disabled = false;
    if (hadFocus) this.cancelButton.focus();
    this.runButton.disabled = true;
    this.progress.value = 0;
    this.say('Starting the measurement\u2026', true);
    try {
      let runner = await this.getRunner();
      if (generation !== this.runGen) return;
      this.pageNote.hidden = runner.kind !== 'page';
      this.st.runner = runner.kind;
      this.lastResult = null;
      const sweep = this.sweep = createSweep({ maxN: Number(this.st.maxN), d: D, repeats: this.attr('repeats', 3),
        budgetMs: BUDGET_MS[runner.kind], minMs: MIN_MS[runner.kind] });
      for (let job = sweep.next(); job; job = sweep.next()) {
        this.say(`Measuring ${NAMES[job.method]} at n = ${grouped(job.n)}\u2026${this.lastResult ? ` (last: ${this.lastResult})` : ''}`, false);
        this.progress.value = sweep.done / sweep.total;
        let result;
        try {
          result = await runner.run(job);
        } catch (err) {
          if (err instanceof Cancelled) throw err;
          // The worker died (a browser may end one that runs out of memory): that size failed;
          // the sweep goes on in a new one.
          result = { error: err.message };
          if (this.runner) this.runner.stop();
          this.runner = null;
          runner = await this.getRunner();
        }
        if (generation !== this.runGen) return;
        sweep.record(job, result);
        this.lastLine(job, result);
      }
      this.progress.value = 1;
      const last = METHODS.map((m) => sweep.rows[m].filter((r) => r.ms !== null).pop()).filter(Boolean);
      this.say(`Done: measured up to n = ${grouped(Math.max(...last.map((r) => r.n), 0))}.`, true);
      this.st.ran = true;
      this.draw();
      if (this.predicted && this.prompt.revealed) this.prompt.answer(this.predicted);
      this.saveState();
    } catch (err) {
      if (!(err instanceof Cancelled)) this.showError(err);
    } finally {
      if (generation === this.runGen) this.finishRun();
    }
  }

  /** Shows a line about the sweep; `announce` also tells a screen reader. */
  say(text, announce) {
    this.status_.textContent = text;
    if (announce) this.announcer.textContent = text;
  }

  finishRun() {
    this.running = false;
    this.runButton.disabled = false;
    if (this.shadowRoot.activeElement === this.cancelButton) this.runButton.focus();
    this.cancelButton.disabled = true;
  }

  cancel() {
    if (!this.running) return;
    this.runGen += 1;
    if (this.runner) this.runner.stop();
    this.runner = null;   // a stopped worker is gone: the next run starts a new one
    this.finishRun();
    const done = this.sweep ? this.sweep.done : 0;
    this.say(`Cancelled after ${done} of ${this.sweep ? this.sweep.total : 0} runs.`, true);
    if (this.sweep && !this.resultsBox.hidden) this.draw();
    this.runButton.focus();
  }

  /** The worker, started once (or the page runner where a worker cannot start). */
  async getRunner() {
    if (this.runner) return this.runner;
    if (this.attr('worker', 'auto') === 'auto' && typeof Worker === 'function') {
      try {
        this.runner = await WorkerRunner.start(startWorker);
        return this.runner;
      } catch (err) {
        this.workerError = err;
      }
    }
    this.runner = new PageRunner(this.lab);
    return this.runner;
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    if (this.running) this.cancel();
    else if (this.runner) this.runner.stop();
    this.runner = null;
  }

  /** Draws the results in three tasks (slopes and time chart, memory chart, table), so none is long. */
  draw() {
    const generation = this.drawGen = (this.drawGen || 0) + 1;
    const steps = this.results.steps(this.sweep, { runner: this.st.runner, maxN: Number(this.st.maxN), repeats: this.attr('repeats', 3) });
    const next = () => {
      if (generation !== this.drawGen || !this.isConnected) return;
      const step = steps.shift();
      if (!step) return;
      this.guard(step);
      if (steps.length) pause().then(next);
    };
    next();
  }
}

module.exports = { CostLab };
