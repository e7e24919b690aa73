'use strict';
// <scaling-experiment>: the seeded sqrt(d_k) experiment (measured std of q.k against the
// sqrt(d_k) curve) and the saturation view (largest softmax weight and gradient with and
// without scaling). All numbers from the engine.

const { h, uid, scrollBox } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { pause, now } = require('../kit/schedule.js');
const { PredictView } = require('../kit/predict-view.js');
const { lineChart } = require('../kit/svg.js');
const { exportMenu } = require('../kit/export-menu.js');
const { chartFigure } = require('../ui/export.js');
const { judgeNumber } = require('../ui/predict.js');
const { readField } = require('../ui/fields.js');
const { FieldNote } = require('../kit/field-note.js');
const { num, fixed, grouped } = require('../ui/format.js');

const DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
// What the saturation chart's "largest gradient" is (the engine's softmaxSaturation).
const GRADIENT_MEANS = 'The largest gradient is the largest entry, in size, of the softmax\u2019s Jacobian for that row, \u2202w\u1d62/\u2202s\u2c7c = w\u1d62(\u03b4\u1d62\u2c7c \u2212 w\u2c7c): how far the most sensitive weight moves per unit change of one score (at most 0.25), averaged over the random rows.';
const SAMPLES = [1000, 5000, 20000];
const MAX_SEED = 1e9;  // the seed attribute's range (manifest.js)

class ScalingExperiment extends LabElement {
  static get jsonKeys() { return []; }

  setup() {
    this.st = { samples: 1, seed: this.attr('seed', 2017) };
    const ids = { samples: uid(), seed: uid() };
    this.samples = h('select', { id: ids.samples, onchange: () => this.guard(() => this.update({ samples: Number(this.samples.value) })) },
      SAMPLES.map((n, i) => h('option', { value: String(i) }, grouped(n))));
    this.seedInput = h('input', { id: ids.seed, type: 'number', min: '0', max: String(MAX_SEED), step: '1', onchange: () => this.guard(() => this.onSeed()) });
    this.seedNote = new FieldNote();
    this.seedNote.watch(this.seedInput);
    this.table = h('table', { class: 'al-table', part: 'table' });
    this.status_ = h('p', { class: 'al-muted', role: 'status' });
    this.chart1 = h('div', { part: 'chart' });
    this.chart2 = h('div', { part: 'chart' });
    this.results = h('div', {}, h('h3', {}, 'Measured spread of q\u00b7k'), this.chart1,
      h('p', { class: 'al-muted' }, 'Dots: measured standard deviation. Line: \u221ad\u2096.'), scrollBox('Numbers', this.table),
      h('h3', {}, 'What happens to one softmax row'), this.chart2,
      h('p', { class: 'al-muted' }, `Lines: the largest weight in a row of 5 keys (solid: scaled by 1/\u221ad\u2096, dashed: unscaled). Dots: the largest gradient of that row (filled: scaled, hollow: unscaled). ${GRADIENT_MEANS} Unscaled rows go one-hot and their gradient vanishes.`));
    this.results.hidden = this.attr('predict', true);
    this.prompt = new PredictView({
      question: 'q and k have d\u2096 = 512 independent entries of variance 1. What standard deviation do you expect for q\u00b7k?',
      input: { label: 'std \u2248', placeholder: 'a number' },
      judge: (text) => {
        if (!this.stats) return { ok: false, close: false, message: 'The experiment is still running; check again in a moment.' };
        const measured = this.stats[DKS.indexOf(512)].std;
        // After a miss, the reason: the variances of the 512 products add up.
        const r = judgeNumber(text, measured, measured * 0.1, {
          hint: 'q\u00b7k adds up 512 products of independent entries: what is the variance of such a sum, and what is the standard deviation?',
          why: 'q\u00b7k adds up 512 products, each of variance 1, so its variance is 512 and its standard deviation \u221a512.',
        });
        return { ...r, message: r.ok ? `${r.message} Theory says \u221a512 = ${num(this.stats[DKS.indexOf(512)].expectedStd, 2)}.` : r.message };
      },
      onReveal: (value) => {
        this.results.hidden = false;
        if (value !== null) return;
        // Skipped: the question goes, and focus moves from its button to the results.
        const focused = this.prompt.root.contains(this.shadowRoot.activeElement);
        this.prompt.root.hidden = true;
        if (focused) {
          this.results.tabIndex = -1;
          this.results.focus();
        }
      },
      skip: 'Show the results without guessing',
      printAnswer: () => `about ${fixed(this.stats[DKS.indexOf(512)].std, 2)} measured; theory says \u221a512 = ${fixed(this.stats[DKS.indexOf(512)].expectedStd, 2)}.`,
    });
    if (!this.attr('predict', true)) this.prompt.root.hidden = true;
    this.frame.replaceChildren(
      h('div', { class: 'al-controls', part: 'controls' },
        h('label', { for: ids.samples }, 'samples per d\u2096', this.samples),
        h('label', { for: ids.seed }, 'seed', this.seedInput), this.status_),
      this.seedNote.el, this.prompt.root, this.results);
    this.restore(this.readState(), false);
  }

  restore(s, save = true) {
    this.st.samples = urlState.int(s.samples, this.st.samples, 0, SAMPLES.length - 1);
    this.st.seed = urlState.int(s.seed, this.st.seed, 0, MAX_SEED);
    this.render(save);
  }

  /** A typed seed: a whole number from 0 to MAX_SEED starts a new run; anything else is refused beside the box, and the charts stay. */
  onSeed() {
    const r = readField(this.seedInput.value, { label: 'seed', min: 0, max: MAX_SEED, whole: true }, this.seedInput.validity.badInput);
    if (r.error) {
      this.seedNote.refuse(this.seedInput, r.error);
      return;
    }
    this.seedNote.accept(this.seedInput);
    this.update({ seed: r.value });
  }

  applyAttribute(property, value) {
    if (property === 'seed') this.update({ seed: value === undefined ? 2017 : value });
  }

  update(change) {
    Object.assign(this.st, change);
    this.render();
  }

  render(save = true) {
    const { samples, seed } = this.st;
    this.samples.value = String(samples);
    this.seedInput.value = String(seed);
    this.stats = null;
    const generation = this.generation = (this.generation || 0) + 1;
    this.measure(generation, SAMPLES[samples], seed).then((done) => {
      if (done) this.guard(() => this.draw());
      else if (generation === this.generation) this.frame.removeAttribute('aria-busy');
    }, (err) => this.showError(err));
    if (save) this.saveState({ samples, seed });
  }

  /**
   * Runs the experiment in slices of about 8 ms, each in a task of its own, so the page stays
   * responsive; a newer run (another seed) makes this one stop.
   * @returns true when it finished and is still the newest run
   */
  async measure(generation, samples, seed) {
    const lab = this.lab;
    const stale = () => generation !== this.generation || !this.isConnected;
    this.status_.textContent = 'Measuring\u2026';
    // Busy while measuring: the charts below are about to change.
    this.frame.setAttribute('aria-busy', 'true');
    const stats = [];
    for (const dk of DKS) {
      if (typeof lab.createDotProductStats === 'function') {
        const acc = lab.createDotProductStats({ dk, seed });
        try {
          let done = 0;
          let chunk = Math.max(16, Math.floor(20000 / dk));
          while (done < samples) {
            const t0 = now();
            const count = Math.min(chunk, samples - done);
            acc.add(count);
            done += count;
            if (now() - t0 < 4) chunk *= 2;
            await pause();
            if (stale()) return false;
          }
          stats.push(acc.result());
        } finally {
          acc.dispose();
        }
      } else {
        stats.push(lab.dotProductStats({ dk, samples, seed }));
        await pause();
        if (stale()) return false;
      }
    }
    const sat = [];
    for (const dk of DKS) {
      sat.push(lab.softmaxSaturation({ dks: [dk], keys: 5, trials: 200, seed })[0]);
      await pause();
      if (stale()) return false;
    }
    this.stats = stats;
    this.sat = sat;
    this.status_.textContent = '';
    this.frame.removeAttribute('aria-busy');
    return true;
  }

  draw() {
    const sat = this.sat;
    const { samples, seed } = this.st;
    const shown = [4, 64, 512];
    this.table.replaceChildren(h('caption', { class: 'al-sr' }, 'Measured and expected standard deviation'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'd\u2096'), h('th', { scope: 'col' }, 'measured std'), h('th', { scope: 'col' }, '\u221ad\u2096'))),
      h('tbody', {}, shown.map((dk) => {
        const st = this.stats[DKS.indexOf(dk)];
        return h('tr', {}, h('th', { scope: 'row' }, String(dk)), h('td', { class: 'al-measured' }, fixed(st.std, 2)), h('td', {}, fixed(st.expectedStd, 2)));
      })));
    const maxStd = Math.max(...this.stats.map((x) => Math.max(x.std, x.expectedStd)));
    const settings = { samples: SAMPLES[samples], seed };
    const note = `Samples per d\u2096: ${grouped(SAMPLES[samples])}, seed ${seed}.`;
    const withExport = (opts) => [lineChart(opts), h('div', { class: 'al-chart-tools' }, exportMenu(() => chartFigure(opts, settings, note), { label: opts.title }).root)];
    // Plotted against \u221ad\u2096 on linear axes (the same scale on both), where std = \u221ad\u2096 is the
    // diagonal: against d\u2096 on a log axis, the square root looked like an exponential.
    const top = Math.ceil(maxStd / 5) * 5;
    this.chart1.replaceChildren(...withExport({
      title: 'Standard deviation of q\u00b7k against \u221ad\u2096',
      desc: `Measured: ${shown.map((dk) => `d\u2096 ${dk}: ${fixed(this.stats[DKS.indexOf(dk)].std, 2)}`).join(', ')}; the points lie on the line std = \u221ad\u2096.`,
      xLabel: '\u221ad\u2096', xName: 'd\u2096', yLabel: 'std', xs: DKS, xPlot: this.stats.map((x) => x.expectedStd), xMax: top, yMax: top,
      series: [{ name: 'std = \u221ad\u2096', ys: this.stats.map((x) => x.expectedStd), cls: 'al-curve' }, { name: 'measured std', ys: this.stats.map((x) => x.std), cls: 'al-point', points: true }],
    }));
    this.chart2.replaceChildren(...withExport({
      title: 'Saturation of one softmax row against d\u2096',
      desc: `Unscaled, the largest weight reaches ${fixed(sat[sat.length - 1].maxWeightUnscaled, 2)} at d\u2096 512 and the largest gradient falls to ${fixed(sat[sat.length - 1].maxGradUnscaled, 3)}; scaled, they stay near ${fixed(sat[sat.length - 1].maxWeightScaled, 2)} and ${fixed(sat[sat.length - 1].maxGradScaled, 3)}. ${GRADIENT_MEANS}`,
      xLabel: 'd\u2096 (log scale)', yLabel: 'value', xs: DKS, yMax: 1,
      series: [
        { name: 'largest weight, scaled', ys: sat.map((p) => p.maxWeightScaled), cls: 'al-curve' },
        { name: 'largest weight, unscaled', ys: sat.map((p) => p.maxWeightUnscaled), cls: 'al-curve-2' },
        { name: 'largest gradient, scaled', ys: sat.map((p) => p.maxGradScaled), cls: 'al-point-2', points: true },
        { name: 'largest gradient, unscaled', ys: sat.map((p) => p.maxGradUnscaled), cls: 'al-point-hollow', points: true },
      ],
    }));
  }
}

module.exports = { ScalingExperiment };
