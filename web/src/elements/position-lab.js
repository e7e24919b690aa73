'use strict';
// <position-lab part="shuffle | sinusoidal | rope | alibi">: how attention knows word order,
// one part per element, each predict-first. Every number is the engine's: attention over a
// reordered sentence, the sinusoidal table and its dot products, RoPE's turned vectors
// (lab.rope) and their scores, ALiBi's biases and slopes. DOM-free logic: ui/position-lab.js.

const { h, uid } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { PredictView } = require('../kit/predict-view.js');
const { HeatmapView } = require('../kit/heatmap-view.js');
const { lineChart, legendList, svgElement: s } = require('../kit/svg.js');
const { FieldNote } = require('../kit/field-note.js');
const { exportMenu } = require('../kit/export-menu.js');
const { chartFigure } = require('../ui/export.js');
const { divergingScale } = require('../ui/diverging.js');
const { maskedFrom } = require('../ui/heatmap-model.js');
const { seedFrom } = require('../ui/author-data.js');
const { num } = require('../ui/format.js');
const P = require('../ui/position-lab.js');

const rowsOf = (t) => t.toArray();
const checkbox = (label, onchange) => {
  const id = uid();
  const input = h('input', { id, type: 'checkbox', onchange });
  return { input, label: h('label', { for: id }, input, label) };
};
const numberField = (label, value, max, onchange) => {
  const id = uid();
  const input = h('input', { id, type: 'number', min: '0', max: String(max), step: '1', value: String(value), inputmode: 'numeric', onchange });
  return { input, label: h('label', { for: id }, label, input) };
};
const choices = (list) => list.map(([value, label]) => ({ value, label }));

// ---- shuffle: reorder a sentence; which output rows change, with and without positions ----

class ShufflePart {
  constructor(el, lab, tokens) {
    if (tokens.length < 2 || tokens.length > 10) throw new Error(`<position-lab>: tokens has ${tokens.length} words; the shuffle part needs 2 to 10`);
    this.el = el;
    this.lab = lab;
    this.tokens = tokens;
    // One seeded vector per word (the same word, the same vector), d = 4: Q = K = V = X.
    this.X = tokens.map((w) => Array.from(lab.randomNormal({ shape: [4], seed: seedFrom(w) }).data));
    this.st = { order: tokens.map((_, i) => i), rope: false, causal: false, revealed: false };
    this.selected = 0;
    this.chips = h('div', { class: 'al-pl-tokens', role: 'group', 'aria-label': 'The sentence, in its current order' });
    this.rope = checkbox('positions (RoPE, explained further on)', () => this.set({ rope: this.rope.input.checked }));
    this.causal = checkbox('causal mask', () => this.set({ causal: this.causal.input.checked }));
    const button = (label, fn) => h('button', { type: 'button', onclick: () => el.guard(fn) }, label);
    this.table = h('table', { class: 'al-table al-pl-rows', part: 'table' });
    this.report = h('p', { 'aria-live': 'polite', class: 'al-pl-report' });
    // The mask has its own question, shown once the first is answered; its switch comes with that answer.
    this.causalPredict = new PredictView({
      question: 'now a causal mask, and still no positions: each token sees only itself and the tokens before it. Do the rows still keep their values when tokens move?',
      choices: choices([['keep', 'yes: attention still sees only a set of tokens'], ['change', 'no: some rows change']]),
      judge: P.judgeCausal,
      skip: 'Show me',
      onReveal: () => this.set({ causal: true }),
      printAnswer: () => 'no: a row changes when the set of tokens it sees (itself and those before it) changes.',
    });
    this.causal.label.hidden = true;
    this.results = h('div', { hidden: true }, h('div', { class: 'al-controls', part: 'controls' }, this.rope.label, this.causal.label), this.causalPredict.root, this.report,
      h('p', { class: 'al-muted' }, 'Each token\u2019s output row, top to bottom in the current order; change: the engine\u2019s largest difference from that word\u2019s row in the original order (its first copy against its first copy).'),
      h('div', { class: 'al-scroll' }, this.table));
    this.predict = new PredictView({
      question: 'with no positions and no mask, you move tokens around. What happens to the output rows?',
      choices: choices([['all', 'every row changes'], ['moves', 'each row keeps its value and moves with its token'], ['moved', 'only the moved token\u2019s row changes']]),
      judge: P.judgeShuffle,
      skip: 'Show me',
      onReveal: () => this.set({ revealed: true }),
      printAnswer: () => 'each row keeps its value and moves with its token (no positions, no mask).',
    });
    this.root = [this.predict.root,
      h('p', { class: 'al-muted' }, 'Move a token with the buttons, or focus it and press Alt+\u2190 / Alt+\u2192.'),
      this.chips,
      h('div', { class: 'al-controls', part: 'controls' }, button('\u2190 Move left', () => this.shift(-1)), button('Move right \u2192', () => this.shift(1)),
        button('Reverse', () => this.set({ order: this.st.order.slice().reverse() })), button('Original order', () => this.set({ order: this.tokens.map((_, i) => i) }))),
      this.results];
  }

  shift(delta, focus = false) {
    const order = P.move(this.st.order, this.selected, delta);
    if (order === this.st.order) return;
    this.selected += delta;
    this.set({ order });
    if (focus) this.chips.children[this.selected].focus();
  }

  set(change) {
    Object.assign(this.st, change);
    this.render();
    this.el.saveState();
  }

  restore(u) {
    this.st.order = P.parseOrder(u.order, this.tokens.length) || this.st.order;
    this.st.rope = urlState.bool(u.rope, this.st.rope);
    this.st.causal = urlState.bool(u.causal, this.st.causal);
    if (urlState.bool(u.revealed, false) && !this.predict.revealed) this.predict.skip();
    // a link with the mask on has its question answered
    if (this.st.causal && !this.causalPredict.revealed) this.causalPredict.skip();
    this.render();
  }

  linkState() {
    return { order: this.st.order.join(','), rope: this.st.rope, causal: this.st.causal, revealed: this.st.revealed };
  }

  drawChips() {
    this.chips.replaceChildren(...this.st.order.map((o, p) => h('button', {
      type: 'button', class: 'al-pl-token', 'aria-pressed': String(p === this.selected),
      'aria-label': `${this.tokens[o]}, place ${p + 1} of ${this.tokens.length}`,
      onclick: () => { this.selected = p; this.drawChips(); this.chips.children[p].focus(); },
      onkeydown: (e) => {
        if (!e.altKey || (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight')) return;
        e.preventDefault();
        this.selected = p;
        this.el.guard(() => this.shift(e.key === 'ArrowLeft' ? -1 : 1, true));
      },
    }, this.tokens[o])));
  }

  render() {
    this.drawChips();
    this.rope.input.checked = this.st.rope;
    this.causal.input.checked = this.st.causal;
    this.results.hidden = !this.st.revealed;
    this.causal.label.hidden = !this.causalPredict.revealed;
    const opts = { causal: this.st.causal, stages: ['masked', 'output'] };
    if (this.st.rope) opts.rope = {};
    const order = this.st.order, X = order.map((o) => this.X[o]);
    const before = this.lab.attention(this.X, this.X, this.X, opts), now = this.lab.attention(X, X, X, opts);
    const out0 = rowsOf(before.output), out = rowsOf(now.output), m0 = rowsOf(before.masked), m = rowsOf(now.masked);
    // each row against the original row of the same word (the k-th "the" against the k-th "the")
    const ref = P.matchCopies(order, this.tokens);
    const rows = order.map((o, p) => ({
      token: this.tokens[o],
      output: out[p],
      // the engine's largest difference between this row and the original row of the same word
      change: this.lab.maxAbsDiff([out[p]], [out0[ref[p]]]),
      seenBefore: P.visibleKeys(m0[ref[p]]).map((j) => this.tokens[j]),
      seenNow: P.visibleKeys(m[p]).map((j) => this.tokens[order[j]]),
    }));
    this.rows = rows;
    this.table.replaceChildren(h('caption', { class: 'al-sr' }, 'Each token\u2019s output row in the current order, and its change'),
      h('thead', {}, h('tr', {}, ['token', 'output', 'change'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows.map((r) => h('tr', { 'data-change': String(r.change) }, h('th', { scope: 'row' }, r.token),
        h('td', {}, P.outputText(r.output)), h('td', { class: P.changed(r.change) ? 'al-pl-changed' : '' }, num(r.change, 4))))));
    this.report.textContent = P.shuffleReport(rows, { ...this.st, identity: P.isIdentity(order), same: P.sameSentence(order, this.tokens) });
  }
}

// ---- sinusoidal: the table, and PE(i)·PE(j) against i - j ----

class SinusoidalPart {
  constructor(el, lab) {
    this.el = el;
    this.lab = lab;
    const n = el.attr('n', 32), d = el.attr('d', 16);
    if (n < 12) throw new Error(`<position-lab>: n=${n} is too few positions for the sinusoidal part; expected 12 to 64 (it compares PE(10)\u00b7PE(8))`);
    if (d % 2) throw new Error(`<position-lab>: d=${d} is odd; the sinusoidal part shows pairs of dimensions, expected an even number`);
    this.n = n;
    this.d = d;
    const table = lab.positions({ kind: 'sinusoidal', n, d });
    this.table = rowsOf(table);
    // every PE(i)·PE(j) from the engine: the scores of the table against itself, scale 1
    this.scores = rowsOf(lab.attention(table, table, table, { scale: 1, stages: ['scores'] }).scores);
    this.view = new HeatmapView({ label: 'Sinusoidal position table', title: 'Sinusoidal position table', digits: 3,
      words: { rowWord: 'dimension', colWord: 'position', valueWord: 'value' }, scale: divergingScale(1),
      caption: () => `PE(p, 2i) = sin(p\u03b8\u1d62), PE(p, 2i+1) = cos(p\u03b8\u1d62), \u03b8\u1d62 = 10000^(\u22122i/${d}); ${n} positions, ${d} dimensions.`,
      settings: () => ({ n, d, base: 10000 }) });
    this.view.root.classList.add('al-pl-table');
    this.chart = h('div', { class: 'al-pl-chart', part: 'chart' });
    this.results = h('div', { hidden: true }, this.chart);
    this.predict = new PredictView({
      question: `compare PE(3)\u00b7PE(1) with PE(10)\u00b7PE(8): two pairs of positions 2 apart.`,
      choices: choices([['first', 'PE(3)\u00b7PE(1) is larger'], ['second', 'PE(10)\u00b7PE(8) is larger'], ['same', 'the same']]),
      judge: (a) => P.judgeSinusoidal(a, this.scores[3][1], this.scores[10][8]),
      skip: 'Show me',
      onReveal: () => { this.revealed = true; this.results.hidden = false; this.el.saveState(); },
      printAnswer: () => `the same: ${num(this.scores[3][1], 4)} and ${num(this.scores[10][8], 4)}.`,
    });
    this.root = [h('p', { class: 'al-muted' }, `Each column is one position\u2019s vector: ${d} numbers, a sine and a cosine per frequency, fast at the top, slow at the bottom.`),
      this.view.root, this.predict.root, this.results];
    this.draw();
  }

  restore(u) {
    if (urlState.bool(u.revealed, false) && !this.predict.revealed) this.predict.skip();
  }

  linkState() { return { revealed: !!this.revealed }; }

  repaint() {
    this.view.setScale(divergingScale(1, { dark: this.el.darkBackground() }));
    const dims = this.table[0].map((_, k) => this.table.map((row) => row[k]));
    this.view.update({ weights: dims, masked: null, rowLabels: dims.map((_, k) => String(k)), colLabels: this.table.map((_, p) => String(p)), showNumbers: false });
  }

  draw() {
    this.repaint();
    const K = Math.min(10, Math.floor((this.n - 1) / 2));
    const at = [K, this.n - 1 - K];
    const { ks, series } = P.relativeSeries(this.scores, at, K);
    const opts = {
      title: 'PE(i)\u00b7PE(j) against i \u2212 j',
      desc: `For i = ${at[0]} (line) and i = ${at[1]} (dots), j from i \u2212 ${K} to i + ${K}: the two fall on one curve, ${num(series[0][K], 3)} at i = j. The engine's dot products of the table with itself.`,
      xLabel: 'i \u2212 j', yLabel: 'PE(i)\u00b7PE(j)', xs: ks, xMin: -K, xMax: K, yMax: Math.ceil(Math.max(...series[0].filter((x) => x !== null))),
      series: [{ name: `i = ${at[0]}`, ys: series[0], cls: 'al-curve' }, { name: `i = ${at[1]}`, ys: series[1], cls: 'al-point', points: true }],
    };
    this.chart.replaceChildren(lineChart(opts), legendList([{ name: `i = ${at[0]}, j from ${at[0] - K} to ${at[0] + K}`, cls: 'al-curve' }, { name: `i = ${at[1]} (dots), j from ${at[1] - K} to ${at[1] + K}`, cls: 'al-point', points: true }]), h('div', { class: 'al-chart-tools' }, exportMenu(() => chartFigure(opts, { n: this.n, d: this.d, i: at.join(' and ') }), { label: opts.title }).root));
  }
}

// ---- rope: turning arrows; the score stays when both positions move; the layout mix-up ----

const ROPE_D = 8;

class RopePart {
  constructor(el, lab) {
    this.el = el;
    this.lab = lab;
    this.base = el.attr('base', 10000);
    this.layout = el.attr('layout', 'interleaved');
    // the query and key of the lesson's listing, so the lab shows the prose's numbers
    this.q = [Array.from(P.LISTING_Q)];
    this.k = [Array.from(P.LISTING_K)];
    this.theta = rowsOf(lab.positions({ kind: 'rope', n: 2, d: ROPE_D, base: this.base }))[1];
    this.st = { m: 3, n: 1, shift: 7, mode: 'right', revealed: false };
    // What was wrong with a typed position, beside the boxes; the view keeps the last good one.
    this.note = new FieldNote();
    const field = (key, label) => numberField(label, this.st[key], P.MAX_POSITION, () => this.el.guard(() => this.typed(key)));
    this.fields = { m: field('m', 'q at position m '), n: field('n', 'k at position n '), shift: field('shift', 'move both by ') };
    Object.values(this.fields).forEach((f) => this.note.watch(f.input));
    // how q and k are turned: right, the layout mistake the lesson describes, or the q/k mix (another bug)
    const name = uid('al-rope-mode');
    this.modes = P.ropeChoices(this.layout).map(([value, label]) => {
      const id = uid();
      const input = h('input', { id, type: 'radio', name, value, onchange: () => this.el.guard(() => this.set({ mode: value })) });
      return { value, input, label: h('label', { for: id }, input, label) };
    });
    const legend = uid();
    this.modeBox = h('div', { class: 'al-pl-modes', role: 'radiogroup', 'aria-labelledby': legend },
      h('p', { id: legend, class: 'al-muted' }, `A model trained with ${P.layoutName(this.layout)} pairs:`), ...this.modes.map((x) => x.label));
    // the verdict above answers for the right layout; said so while another is shown
    this.staleNote = h('p', { class: 'al-muted al-pl-stale', hidden: true });
    this.dials = h('div', { class: 'al-pl-dials', part: 'dials' });
    this.scoreLine = h('p', { 'aria-live': 'polite', class: 'al-pl-report' });
    this.results = h('div', { hidden: true }, this.modeBox, this.scoreLine, this.dials);
    this.predict = new PredictView({
      question: 'q at position 3 and k at position 1 give a score. Move both on by 7, to 10 and 8. The score is\u2026',
      choices: choices([['larger', 'larger'], ['same', 'the same'], ['smaller', 'smaller']]),
      judge: (a) => P.judgeRope(a, this.score(3, 1, 'right'), this.score(10, 8, 'right')),
      skip: 'Show me',
      onReveal: () => { this.st.revealed = true; this.render(); this.el.saveState(); },
      printAnswer: () => `the same: ${num(this.score(3, 1, 'right'), 5)}.`,
    });
    this.predict.root.append(this.staleNote);
    this.root = [this.predict.root, h('div', { class: 'al-controls', part: 'controls' }, this.fields.m.label, this.fields.n.label, this.fields.shift.label), this.note.el, this.results];
    this.render();
  }

  typed(key) {
    const input = this.fields[key].input, value = P.readPosition(input.value);
    if (value === null) {
      this.note.refuse(input, `${key} must be a whole number from 0 to ${P.MAX_POSITION}; the view still shows ${key} = ${this.st[key]}.`);
      return;
    }
    this.note.accept(input);
    this.set({ [key]: value });
  }

  set(change) {
    Object.assign(this.st, change);
    this.render();
    this.el.saveState();
  }

  restore(u) {
    for (const key of ['m', 'n', 'shift']) this.st[key] = urlState.int(u[key], this.st[key], 0, P.MAX_POSITION);
    // mixup=1: a link from before the layout mistake had its own choice
    this.st.mode = P.ROPE_MODES.includes(u.mode) ? u.mode : urlState.bool(u.mixup, false) ? 'mixed' : this.st.mode;
    if (urlState.bool(u.revealed, false) && !this.predict.revealed) this.predict.skip();
    this.render();
  }

  linkState() { return { ...this.st }; }

  /** q turned to position m and k to n, each by the engine (lab.rope), in the layouts of `mode` (P.ropeLayouts). */
  turned(m, n, mode) {
    const layouts = P.ropeLayouts(mode, this.layout);
    return {
      q: rowsOf(this.lab.rope(this.q, { layout: layouts.q, base: this.base, offset: m }))[0],
      k: rowsOf(this.lab.rope(this.k, { layout: layouts.k, base: this.base, offset: n }))[0],
    };
  }

  /** The engine's score of the turned q and k (attention's scores at scale 1). */
  score(m, n, mode) {
    const t = this.turned(m, n, mode);
    return this.lab.attention([t.q], [t.k], [[1]], { scale: 1, stages: ['scores'] }).scores.data[0];
  }

  render() {
    const { m, n, shift, mode } = this.st;
    for (const key of ['m', 'n', 'shift']) this.fields[key].input.value = String(this.st[key]);
    this.modes.forEach((x) => { x.input.checked = x.value === mode; });
    this.results.hidden = !this.st.revealed;
    const a = this.score(m, n, mode), b = this.score(m + shift, n + shift, mode);
    this.scores = [a, b];
    const same = P.sameInFloat32(a, b);
    this.el.frame.dataset.scores = `${a},${b}`;
    this.scoreLine.textContent = P.ropeReport({ m, n, shift, mode, a, b, same, right: mode === 'right' ? a : this.score(m, n, 'right') });
    this.scoreLine.dataset.same = String(same);
    this.staleNote.hidden = mode === 'right' || !this.predict.revealed;
    this.staleNote.textContent = '(The verdict above is for the right layout.)';
    const rows = [[m, n], [m + shift, n + shift]].map(([pm, pn]) => ({ pm, pn, t: this.turned(pm, pn, mode) }));
    // the pairs k was turned in (the wrong layout's, with that mistake); arrows drawn to one scale:
    // the longest pair of the turned vectors is the circle's radius
    const drawn = P.ropeLayouts(mode, this.layout).k;
    const pairs = Array.from({ length: ROPE_D / 2 }, (_, i) => P.pairDims(i, ROPE_D, drawn));
    const longest = Math.max(...rows.flatMap((r) => pairs.flatMap(([x, y]) => [Math.hypot(r.t.q[x], r.t.q[y]), Math.hypot(r.t.k[x], r.t.k[y])])));
    const dial = (r, i) => {
      const [x, y] = pairs[i];
      const arrow = (v, cls) => {
        const [ex, ey] = P.arrowEnd([v[x], v[y]], longest, 30);
        return s('line', { class: cls, x1: 0, y1: 0, x2: ex, y2: ey });
      };
      return h('figure', { class: 'al-pl-dial' },
        s('svg', { viewBox: '-36 -36 72 72', role: 'img', 'aria-label': `pair ${i}: q (${num(r.t.q[x], 2)}, ${num(r.t.q[y], 2)}), k (${num(r.t.k[x], 2)}, ${num(r.t.k[y], 2)})` },
          s('circle', { class: 'al-pl-ring', cx: 0, cy: 0, r: 30 }), arrow(r.t.k, 'al-pl-k'), arrow(r.t.q, 'al-pl-q')),
        h('figcaption', {}, `pair ${i}`, h('br'), `\u03b8 = ${num(this.theta[i], 3)}`));
    };
    this.dials.replaceChildren(h('p', { class: 'al-muted' }, h('span', { class: 'al-pl-key-q' }, '\u2014 q'), ' ', h('span', { class: 'al-pl-key-k' }, '\u2014 k'),
      `: dimensions ${pairs.map(([x, y]) => `(${x}, ${y})`).join(', ')} of the turned vectors (${P.layoutName(drawn)} pairs), base ${num(this.base, 0)}.`),
    ...rows.map((r) => h('div', { class: 'al-pl-dial-row' }, h('p', {}, `q at ${r.pm}, k at ${r.pn}`), ...pairs.map((_, i) => dial(r, i)))));
  }
}

// ---- alibi: each head's bias and slope ----

class AlibiPart {
  constructor(el, lab) {
    this.el = el;
    this.lab = lab;
    const heads = el.attr('heads', 8), n = el.attr('n', 6);
    if (n > 12) throw new Error(`<position-lab>: n=${n} is too many tokens for the alibi part; expected 2 to 12`);
    this.heads = heads;
    this.n = n;
    this.slopes = Array.from(lab.positions({ kind: 'alibi', heads }).data);
    // The bias alone: zero queries and keys give zero scores, so `scaled` is ALiBi's bias.
    const zeros = { shape: [heads, n, 2], data: new Float32Array(heads * n * 2) };
    const r = lab.attention(zeros, zeros, zeros, { alibi: true, causal: true, stages: ['scaled', 'masked'] });
    this.bias = rowsOf(r.scaled);
    this.masked = rowsOf(r.masked).map(maskedFrom);
    // the colour scale's end: the most negative bias shown (head 1, the last query on the first key)
    this.limit = -Math.min(...this.bias[0].map((row) => row[0]));
    this.readout = h('p', { class: 'al-readout', 'aria-live': 'polite' }, 'Tap, hover or focus a cell to read its value.');
    const labels = Array.from({ length: n }, (_, i) => String(i));
    this.views = this.slopes.map((slope, hd) => new HeatmapView({ label: `Head ${hd + 1} ALiBi bias`, readout: this.readout, readoutPrefix: `head ${hd + 1}: `, digits: 3,
      words: { rowWord: 'query', colWord: 'key', valueWord: 'bias' }, title: `ALiBi bias of head ${hd + 1}`,
      caption: () => `Head ${hd + 1} of ${heads}, slope ${P.slopeText(slope)}: the bias \u2212slope \u00d7 (i \u2212 j) added to each score; causal mask.`,
      settings: () => ({ heads, n, head: hd + 1, slope }) }));
    this.labels = labels;
    this.box = h('div', { class: 'al-heads al-compact al-pl-alibi' });
    this.box.style.setProperty('--al-cols', String(n));
    this.box.append(...this.views.map((v, hd) => h('figure', { class: 'al-head' }, h('figcaption', {}, `head ${hd + 1}`, h('br'), `slope ${P.slopeText(this.slopes[hd])}`), v.root)));
    this.results = h('div', { hidden: true }, h('p', { class: 'al-muted' }, `Rows are queries (\u2193), columns keys (\u2192), ${n} tokens, causal mask; 0 on the diagonal, more negative (bluer) further back. The slopes are the paper\u2019s for ${heads} heads.`),
      this.box, this.readout);
    this.predict = new PredictView({
      question: `ALiBi gives each of ${heads} heads its own slope and subtracts slope \u00d7 distance from its scores. Which head can still attend to a token far back?`,
      choices: choices([['first', 'head 1'], ['last', `head ${heads}`], ['same', 'all heads alike']]),
      judge: (a) => P.judgeAlibi(a, this.slopes, n),
      skip: 'Show me',
      onReveal: () => { this.revealed = true; this.results.hidden = false; this.el.saveState(); },
      printAnswer: () => `head ${heads}: its slope, ${P.slopeText(this.slopes[heads - 1])}, is the smallest.`,
    });
    this.root = [this.predict.root, this.results];
    this.repaint();
  }

  restore(u) {
    if (urlState.bool(u.revealed, false) && !this.predict.revealed) this.predict.skip();
  }

  linkState() { return { revealed: !!this.revealed }; }

  repaint() {
    const scale = divergingScale(this.limit || 1, { dark: this.el.darkBackground() });
    this.views.forEach((v, hd) => {
      v.setScale(scale);
      v.update({ weights: this.bias[hd], masked: this.masked[hd], rowLabels: this.labels, colLabels: this.labels, showNumbers: false });
    });
  }
}

const PARTS = { shuffle: ShufflePart, sinusoidal: SinusoidalPart, rope: RopePart, alibi: AlibiPart };
const DEFAULT_SENTENCE = ['the', 'dog', 'bit', 'the', 'man'];

class PositionLab extends LabElement {
  static get jsonKeys() { return []; }

  setup(lab, data) {
    const part = this.attr('part', 'shuffle');
    this.partShown = part;
    this.view = new PARTS[part](this, lab, data.tokens || DEFAULT_SENTENCE);
    this.view.predict.root.setAttribute('part', 'prompt');
    this.frame.replaceChildren(...this.view.root);
    this.view.restore(this.readState());
  }

  viewState() {
    const p = this.view;
    return { part: this.partShown, ...p.linkState(), ...(p.scores ? { scores: p.scores.slice() } : {}), ...(p.rows ? { changes: p.rows.map((r) => r.change) } : {}) };
  }

  linkState() { return this.view.linkState(); }

  restore(u) { this.view.restore(u); }

  applyTheme(hostTheme) {
    super.applyTheme(hostTheme);
    if (this.view && this.view.repaint) this.view.repaint();
  }

  /** On the page at last: the diverging cells take the background's variant (set up off the page, it could not be read). */
  shown() {
    if (this.view.repaint) this.view.repaint();
  }
}

module.exports = { PositionLab };
