'use strict';
// <cost-lab>: what attention costs, measured in the reader's browser (time and peak extra
// memory of full against tiled attention as n doubles, on log-log charts with fitted
// slopes) and computed for published model shapes (attention-matrix and KV-cache bytes).
// Every number comes from the engine or from a measurement of it; the sweep runs in a Web
// Worker (cost-runner.js) so the page never blocks.

const { h, uid, scrollBox } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { PredictView } = require('../kit/predict-view.js');
const { lineChart } = require('../kit/svg.js');
const { exportMenu } = require('../kit/export-menu.js');
const { WorkerRunner, PageRunner, Cancelled } = require('../kit/cost-runner.js');
const { chartFigure } = require('../ui/export.js');
const { createSweep, METHODS, FIT_FROM } = require('../ui/cost-sweep.js');
const { tailSlope, median, fitCaveats, MIN_FIT_POINTS } = require('../ui/cost-fit.js');
const { CALC_FIELDS, sizeText, calcMessage } = require('../ui/cost-calc.js');
const { readField } = require('../ui/fields.js');
const { FieldNote } = require('../kit/field-note.js');
const { pause } = require('../kit/schedule.js');
const { GROWTH_CHOICES, judgeGrowth, growthAnswer } = require('../ui/cost-predict.js');
const { MODEL_SHAPES, DTYPES, modelShape } = require('../ui/model-shapes.js');
const { formatBytes, formatMs } = require('../ui/bytes.js');
const { fixed, grouped } = require('../ui/format.js');
const { FAST_MEMORY_CHOICES, DEFAULT_FAST_MEMORY_KIB, fastMemoryFloats, fastMemoryLabel, trafficSentences } = require('../ui/cost-traffic.js');

const MAX_NS = [1024, 2048, 4096, 8192, 16384];
const D = 64;
// The longest single call each runner may start: a worker can take seconds; the page's own
// thread must stay under the 50 ms that makes a task "long".
const BUDGET_MS = { worker: 10000, page: 40 };
const MIN_MS = { worker: 20, page: 5 };
const FULL_STYLE = { cls: 'al-curve', points: 'al-point-2', line: true };
const TILED_STYLE = { cls: 'al-curve-2', points: 'al-point', line: true };
const NAMES = { full: 'full attention', tiled: 'tiled (online softmax)' };
const PAGE_SENTENCE = 'This page does not allow background workers, so the measurement runs on the page itself, in small steps, and stops at sizes where one call would take more than about 50 ms.';
const MINIMAL_STYLE = { cls: 'al-curve-3', points: false, line: true };
/** The window of the traffic table's sliding-window row (keys each query sees). */
const TRAFFIC_WINDOW = 256;

class CostLab extends LabElement {
  static get jsonKeys() { return []; }

  async setup(lab) {
    const preset = this.attr('preset', 'llama-2-7b');
    this.st = { maxN: this.attr('max-n', '16384'), dtype: 'float16', ...this.presetFields(preset), preset, ran: false, runner: null,
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
    this.slopes = h('p', { class: 'al-cost-slopes', 'aria-live': 'polite' });
    this.timeChart = h('div', { part: 'chart' });
    this.memChart = h('div', { part: 'chart' });
    this.table = h('table', { class: 'al-table al-stack', part: 'table' });
    this.refusals = h('ul', { class: 'al-cost-refusals' });
    this.resultsBox = h('div', { class: 'al-cost-results' },
      this.slopes,
      h('h4', {}, 'Time per call'), this.timeChart,
      h('h4', {}, 'Peak extra memory'), this.memChart,
      h('p', { class: 'al-muted' }, 'Extra memory is the engine\u2019s count of floats held beyond the inputs and the output, times 4 bytes. Solid: full attention as this engine runs it, keeping all four n \u00d7 n stages (scores, scaled, masked, weights) so the lessons can show each one. Dotted: a minimal full kernel, which keeps one n \u00d7 n matrix and takes the softmax in place, a quarter of that. Dashed: tiled attention, which walks the keys in blocks of 64 with a running maximum and sum and holds the same few blocks whatever n is.'),
      scrollBox('Measured numbers', this.table), this.refusals,
      this.trafficHead = h('h4', {}),
      h('div', { class: 'al-controls', part: 'controls' }, h('label', { for: ids.memory }, 'fast memory M', this.memorySelect)),
      scrollBox('Work and memory traffic', this.traffic = h('table', { class: 'al-table al-stack al-cost-traffic', part: 'traffic' })),
      this.trafficNotes = h('div', { class: 'al-cost-traffic-notes al-muted' }),
      h('p', { class: 'al-muted al-cost-hardware' }, 'Both methods do the same multiply-adds; they differ in the numbers they move. A graphics processor does its arithmetic so fast that reading and writing its large main memory sets the speed of attention, and that is where a tiled kernel such as FlashAttention wins. A processor core has small, fast memories too, its L1 and L2 caches, and fast CPU kernels are fast because they work in blocks that stay in them (Goto and van de Geijn 2008 take matrix products apart this way); the tiled kernel\u2019s blocks fit in them as well. But one core\u2019s arithmetic is far slower than a graphics processor\u2019s, so the full method\u2019s extra traffic costs it much less of its time, and the two lines of times above may lie close together. What tiling surely saves here is memory. A sliding window cuts the work itself.'));
    this.resultsBox.hidden = this.attr('predict', true);
    if (!this.attr('predict', true)) this.prompt.root.hidden = true;

    // The calculator.
    this.presetSelect = h('select', { id: uid(), onchange: () => this.guard(() => this.choosePreset(this.presetSelect.value)) },
      h('option', { value: 'custom' }, 'your own'), MODEL_SHAPES.map((m) => h('option', { value: m.id }, m.name)));
    this.dtypeSelect = h('select', { id: uid(), onchange: () => this.guard(() => this.update({ dtype: this.dtypeSelect.value })) },
      DTYPES.map((t) => h('option', { value: t }, t)));
    this.inputs = {};
    this.calcNote = new FieldNote();
    const fieldLabels = CALC_FIELDS.map(([key, label]) => {
      const input = h('input', { id: uid(), type: 'number', min: '1', step: '1', inputmode: 'numeric',
        onchange: () => this.guard(() => this.onCalcField(key, input)) });
      this.calcNote.watch(input);
      this.inputs[key] = input;
      return h('label', { for: input.id }, label, input);
    });
    this.calcOut = h('div', { class: 'al-cost-calc-out', 'aria-live': 'polite' });

    this.frame.replaceChildren(
      h('section', { class: 'al-cost-measure' },
        h('h3', {}, 'Measured in your browser: full against tiled attention'),
        this.prompt.root,
        h('div', { class: 'al-controls', part: 'controls' },
          h('label', { for: ids.maxN }, 'up to n =', this.maxNSelect), this.runButton, this.cancelButton,
          h('span', { class: 'al-cost-progress' }, this.progress)),
        this.status_, this.announcer, this.pageNote, this.resultsBox),
      h('section', { class: 'al-cost-calc', part: 'calculator' },
        h('h3', {}, 'Memory for a model\u2019s shape'),
        h('div', { class: 'al-controls', part: 'controls' },
          h('label', { for: this.presetSelect.id }, 'model', this.presetSelect),
          h('label', { for: this.dtypeSelect.id }, 'dtype', this.dtypeSelect)),
        h('div', { class: 'al-controls al-cost-fields' }, fieldLabels),
        this.calcNote.el, this.calcOut));
    // Two tasks: the view and calculator, then the traffic table (the engine walks every tile).
    this.takeState(this.readState());
    this.renderInputs();
    await this.pause();
    this.renderTraffic();
  }

  /** A typed calculator size: a whole number goes to the engine; anything else is refused beside the boxes, and the figures stay. */
  onCalcField(key, input) {
    const [, label, min] = CALC_FIELDS.find(([k]) => k === key);
    const r = readField(input.value, { label, min, max: 2 ** 53, whole: true }, input.validity.badInput);
    if (r.error) {
      this.calcNote.refuse(input, r.error);
      return;
    }
    this.calcNote.accept(input);
    this.update({ [key]: r.value, preset: 'custom' });
  }

  presetFields(id) {
    const m = modelShape(id);
    if (!m) return { batch: 1, heads: 12, n: 1024, layers: 12, kvHeads: 12, dHead: 64, window: 0 };
    return { batch: 1, heads: m.heads, n: m.context, layers: m.layers, kvHeads: m.kvHeads, dHead: m.dHead, window: m.window };
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
      Object.assign(this.st, this.presetFields(s.preset === 'custom' ? null : s.preset));
      if (s.preset === 'custom') {
        for (const [key, , min, fallback] of CALC_FIELDS) this.st[key] = urlState.int(s[key], fallback, min, 1e9);
      }
    }
  }

  applyAttribute(property, value) {
    if (property === 'maxN') this.update({ maxN: value === undefined ? '16384' : value });
    else if (property === 'preset') this.choosePreset(value === undefined ? 'llama-2-7b' : value);
  }

  choosePreset(id) {
    this.update(id === 'custom' ? { preset: 'custom' } : { preset: id, ...this.presetFields(id) });
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
    this.presetSelect.value = this.st.preset;
    this.dtypeSelect.value = this.st.dtype;
    for (const [key] of CALC_FIELDS) {
      this.inputs[key].value = String(this.st[key]);
      this.calcNote.accept(this.inputs[key]);
    }
    this.renderCalculator();
  }

  /** The calculator's figures, each from the engine; a size the engine rejects shows why, in the reader's terms. */
  renderCalculator() {
    const { batch, heads, n, dtype, layers, kvHeads, dHead, preset } = this.st;
    const win = this.st.window === 0 ? undefined : this.st.window;
    const line = (label, fn) => {
      try {
        return h('tr', {}, h('th', { scope: 'row' }, label), h('td', {}, fn()));
      } catch (err) {
        return h('tr', {}, h('th', { scope: 'row' }, label), h('td', { class: 'al-cost-refused' }, calcMessage(err)));
      }
    };
    const bytes = (b) => `${formatBytes(b)} (${grouped(b)} bytes)`;
    const kv = (kvh, tokens, many) => this.lab.kvCacheBytes({ layers, kvHeads: kvh, dHead, dtype, heads, tokens, batch: many, window: win });
    const keys = win === undefined ? `${sizeText(n)}\u00b2` : `${sizeText(n)} \u00d7 at most ${sizeText(win)} keys`;
    const total = (kvh) => {
      const r = kv(kvh, n, batch);
      return r.tokensCached < n ? `${bytes(r.bytes)}: a rolling buffer of the last ${grouped(r.tokensCached)} tokens` : bytes(r.bytes);
    };
    const rows = [
      line(`attention weights, one layer (${sizeText(batch)} \u00d7 ${sizeText(heads)} heads \u00d7 ${keys})`, () => {
        const r = this.lab.attentionMatrixBytes({ batch, heads, n, dtype, window: win });
        return `${grouped(r.elements)} numbers = ${bytes(r.bytes)}`;
      }),
      line(`KV cache per token, ${sizeText(layers)} layers`, () => bytes(kv(kvHeads, 1, 1).bytesPerToken)),
      line(`KV cache for ${sizeText(batch)} \u00d7 ${sizeText(n)} tokens`, () => total(kvHeads)),
    ];
    if (kvHeads !== heads) rows.push(line(`the same without grouped-query attention (kv heads = ${sizeText(heads)})`, () => total(heads)));
    const shape = modelShape(preset);
    const windowNote = (w) => ` Sliding window of ${grouped(w)} keys: each query weighs at most ${grouped(w)} keys, and the cache keeps only the last ${grouped(w)} tokens (a rolling buffer).`;
    this.calcOut.replaceChildren(
      h('table', { class: 'al-table al-cost-calc-table' }, h('caption', { class: 'al-sr' }, 'Memory figures from the engine'), h('tbody', {}, rows)),
      h('p', { class: 'al-muted' }, shape
        ? `${shape.name}: ${shape.layers} layers, ${shape.heads} heads, ${shape.kvHeads} kv heads, d_head ${shape.dHead}, n = its ${grouped(shape.context)}-token context.${shape.window ? windowNote(shape.window) : ''}`
        : `Your own shape: change any number.${Number.isInteger(win) && win > 0 ? windowNote(win) : ''}`));
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
      this.figures = this.figures || new Map();
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
        this.runner = await WorkerRunner.start();
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

  /** The engine's cost figures of one size (d = 64), computed once. */
  figuresAt(n) {
    this.figures = this.figures || new Map();
    if (!this.figures.has(n)) this.figures.set(n, this.lab.costFigures({ m: n, n, dk: D }));
    return this.figures.get(n);
  }

  /** Extra bytes of one size: full as this engine holds it, a minimal full kernel, and tiled (the kernel's own count). */
  memory(n) {
    const c = this.figuresAt(n);
    const tiledRow = this.sweep.rows.tiled[this.sweep.sizes.indexOf(n)];
    return {
      full: c.engine.extraFloats * 4,
      minimal: c.full.peakExtraFloats * 4,
      tiled: (tiledRow.figures ? tiledRow.figures.peakExtraFloats : c.tiled.peakExtraFloats) * 4,
    };
  }

  /** A refusal in the reader's terms: the engine's figures for that size, then its own message. */
  refusalNote(method, row) {
    const head = h('strong', {}, `${NAMES[method]}, n = ${grouped(row.n)}: `);
    if (method === 'full' && /^attention: /.test(row.error)) {
      const c = this.figuresAt(row.n);
      return h('li', {}, head, h('span', { class: 'al-cost-refused' }, `refused. This engine keeps four n \u00d7 n stages, which at this size need ${grouped(c.engine.extraFloats)} floats (${formatBytes(c.engine.extraFloats * 4)}) beyond the inputs, more than the ${grouped(c.engine.limitFloats)} floats (${formatBytes(c.engine.limitFloats * 4)}) one call may hold. Tiled attention holds ${grouped(c.tiled.peakExtraFloats)} floats (${formatBytes(c.tiled.peakExtraFloats * 4)}) at this size.`),
        h('span', { class: 'al-muted' }, ` (The engine\u2019s message: \u201c${row.error}\u201d)`));
    }
    return h('li', {}, head, h('span', { class: 'al-cost-refused' }, `the measurement stopped: ${row.error}`));
  }

  /** Draws the results in three tasks (slopes and time chart, memory chart, table), so none is long. */
  draw() {
    const generation = this.drawGen = (this.drawGen || 0) + 1;
    const steps = this.drawSteps();
    const next = () => {
      if (generation !== this.drawGen || !this.isConnected) return;
      const step = steps.shift();
      if (!step) return;
      this.guard(step);
      if (steps.length) pause().then(next);
    };
    next();
  }

  drawSteps() {
    const sweep = this.sweep;
    const xs = sweep.sizes;
    const ms = (m) => sweep.rows[m].map((r) => r.ms);
    const mem = xs.map((n) => this.memory(n));
    const memOf = (m, row = m) => sweep.rows[row].map((r, i) => (r.ms !== null ? mem[i][m] / 2 ** 20 : null));
    const fits = { full: sweep.slope('full'), tiled: sweep.slope('tiled') };
    const memFits = Object.fromEntries(METHODS.map((m) => [m, this.fitOf(xs, memOf(m))]));
    const slopeText = (fit) => (fit ? `slope ${fixed(fit.slope, 2)} (n = ${grouped(fit.from)}\u2013${grouped(fit.to)})` : `no slope: it needs at least ${MIN_FIT_POINTS} measured sizes`);
    const caveat = fitCaveats(METHODS.map((m) => ({ fit: fits[m], name: NAMES[m] })));
    this.slopes.replaceChildren(
      h('strong', {}, 'Fitted log-log slopes. '),
      `Time: full ${slopeText(fits.full)}, tiled ${slopeText(fits.tiled)}. `,
      `Extra memory: full ${slopeText(memFits.full)}, tiled ${slopeText(memFits.tiled)}.`,
      caveat ? h('span', { class: 'al-cost-caveat' }, ` ${caveat}`) : '');
    const settings = { d: D, maxN: Number(this.st.maxN), runner: this.st.runner };
    const note = `d = ${D}; median of ${this.attr('repeats', 3)} repeats per size; measured ${this.st.runner === 'worker' ? 'in a Web Worker' : 'on the page thread'}.`;
    const chartOf = (opts, box) => {
      const all = opts.series.flatMap((s) => s.ys).filter((v) => v > 0);
      if (!all.length) {
        box.replaceChildren(h('p', { class: 'al-muted' }, 'No size measured yet.'));
        return;
      }
      const o = { ...opts, xs, yLog: true, yMin: Math.min(...all), yMax: Math.max(...all) };
      box.replaceChildren(lineChart(o), h('div', { class: 'al-chart-tools' }, exportMenu(() => chartFigure(o, settings, note), { label: opts.title }).root));
    };
    return [() => chartOf({
      title: 'Time per call against n (log-log)',
      desc: `Full attention: ${slopeText(fits.full)}; tiled: ${slopeText(fits.tiled)}.`,
      xLabel: 'n (log scale)', yLabel: 'ms per call',
      legend: true,
      series: [{ name: NAMES.full, ys: ms('full'), ...FULL_STYLE }, { name: NAMES.tiled, ys: ms('tiled'), ...TILED_STYLE }],
    }, this.timeChart), () => chartOf({
      title: 'Peak extra memory against n (log-log)',
      desc: `Full attention as this engine runs it (four n \u00d7 n stages): ${slopeText(memFits.full)}; a minimal full kernel holds a quarter of that; tiled: ${slopeText(memFits.tiled)}.`,
      xLabel: 'n (log scale)', yLabel: 'MiB',
      legend: true,
      series: [{ name: 'full, this engine (4 stages)', ys: memOf('full'), ...FULL_STYLE },
        { name: 'full, minimal kernel', ys: memOf('minimal', 'full'), ...MINIMAL_STYLE },
        { name: NAMES.tiled, ys: memOf('tiled'), ...TILED_STYLE }],
    }, this.memChart), () => this.drawTable(mem)];
  }

  fitOf(xs, ys) {
    return tailSlope(xs, ys, FIT_FROM);
  }

  drawTable(mem) {
    const sweep = this.sweep;
    const cell = (row, label, text) => h('td', { 'data-label': label }, text);
    const timeText = (r) => (r.ms !== null ? formatMs(r.ms) : r.error ? 'refused' : r.skipped ? 'not run' : '\u2026');
    this.table.replaceChildren(
      h('caption', { class: 'al-sr' }, 'Time per call and peak extra memory of full and tiled attention'),
      h('thead', {}, h('tr', {}, ['n', 'full: time', 'tiled: time', 'full: extra memory (this engine)', 'full: extra memory (minimal kernel)', 'tiled: extra memory'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, sweep.sizes.map((n, i) => {
        const f = sweep.rows.full[i], t = sweep.rows.tiled[i];
        return h('tr', {}, h('th', { scope: 'row' }, `n = ${grouped(n)}`),
          cell(f, 'full', timeText(f)), cell(t, 'tiled', timeText(t)),
          cell(f, 'full extra, this engine', `${formatBytes(mem[i].full)}${f.error ? ' needed' : ''}`), cell(f, 'full extra, minimal kernel', formatBytes(mem[i].minimal)),
          cell(t, 'tiled extra', formatBytes(mem[i].tiled)));
      })));
    const notes = [];
    for (const m of METHODS) {
      for (const r of sweep.rows[m]) {
        if (r.error) notes.push(this.refusalNote(m, r));
      }
      const skipped = sweep.rows[m].filter((r) => r.skipped);
      if (skipped.length && !sweep.rows[m].some((r) => r.error)) {
        notes.push(h('li', {}, `${NAMES[m]}, n = ${skipped.map((r) => grouped(r.n)).join(', ')}: ${skipped[0].skipped}.`));
      }
    }
    this.refusals.replaceChildren(...notes);
  }
}

module.exports = { CostLab };
