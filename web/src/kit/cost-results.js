'use strict';
// The results of <cost-lab>'s sweep: fitted slopes, the time and memory charts (log-log), the
// table of measured numbers and the notes on sizes the engine refused. Every figure is a
// measurement or the engine's own count (costFigures); the element decides when to draw.

const { h } = require('./dom.js');
const { lineChart } = require('./svg.js');
const { exportMenu } = require('./export-menu.js');
const { chartFigure } = require('../ui/export.js');
const { METHODS, FIT_FROM } = require('../ui/cost-sweep.js');
const { tailSlope, fitCaveats, MIN_FIT_POINTS } = require('../ui/cost-fit.js');
const { formatBytes, formatMs } = require('../ui/bytes.js');
const { fixed, grouped } = require('../ui/format.js');

const FULL_STYLE = { cls: 'al-curve', points: 'al-point-2', line: true };
const TILED_STYLE = { cls: 'al-curve-2', points: 'al-point', line: true };
const MINIMAL_STYLE = { cls: 'al-curve-3', points: false, line: true };
const NAMES = { full: 'full attention', tiled: 'tiled (online softmax)' };

class CostResults {
  /** @param {object} lab the engine; @param {number} d the head size every size was measured at */
  constructor(lab, d) {
    this.lab = lab;
    this.d = d;
    this.slopes = h('p', { class: 'al-cost-slopes', 'aria-live': 'polite' });
    this.timeChart = h('div', { part: 'chart' });
    this.memChart = h('div', { part: 'chart' });
    this.table = h('table', { class: 'al-table al-stack', part: 'table' });
    this.refusals = h('ul', { class: 'al-cost-refusals' });
  }

  /** The engine's cost figures of one size, computed once. */
  figuresAt(n) {
    this.figures = this.figures || new Map();
    if (!this.figures.has(n)) this.figures.set(n, this.lab.costFigures({ m: n, n, dk: this.d }));
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

  /**
   * The drawing of a sweep's results as separate steps (slopes and time chart, memory chart,
   * table), so the element can run each in its own task.
   * @param {object} sweep the sweep (ui/cost-sweep.js)
   * @param {{ runner: string, maxN: number, repeats: number }} opts how it was measured
   */
  steps(sweep, opts) {
    this.sweep = sweep;
    this.opts = opts;
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
    const settings = { d: this.d, maxN: this.opts.maxN, runner: this.opts.runner };
    const note = `d = ${this.d}; median of ${this.opts.repeats} repeats per size; measured ${this.opts.runner === 'worker' ? 'in a Web Worker' : 'on the page thread'}.`;
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


module.exports = { CostResults, NAMES };
