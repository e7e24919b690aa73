'use strict';
// <attention-stepper>: pick a query token and walk the four operations, forward and back,
// with buttons or arrow keys. Every number comes from the engine's explainRow.

const { h, scrollBox, uid, setText } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { formula } = require('../kit/formulas.js');
const { resolveInputs, authorOptions } = require('../kit/inputs.js');
const { STEPS, argmax } = require('../ui/steps.js');
const { SentenceInput } = require('../kit/sentence-input.js');
const { rowPrompt } = require('../kit/row-prompt.js');
const { num, vector, MINUS } = require('../ui/format.js');

// Every score, weight and result in the stepper's tables, the comparison column without the
// scaling too, is shown to this many decimals.
const DIGITS = 3;
const cell = (x) => num(x, DIGITS);

const ACTIVE_TERMS = { project: ['q', 'k', 'v'], score: ['s', 'q', 'k', 'terms'], softmax: ['w', 'softmax', 'scaled', 'exp'], sum: ['o', 'sum', 'w', 'v'] };

class AttentionStepper extends LabElement {
  setup(lab, data) {
    this.inputs = resolveInputs(lab, data, this.localName);
    this.authorTokens = this.inputs.tokens;
    this.options = authorOptions(data);
    const { tokens } = this.inputs;
    const fromAttr = tokens.indexOf(this.attr('query', ''));
    this.token = fromAttr >= 0 ? fromAttr : Math.min(1, tokens.length - 1);
    this.step = 0;

    this.tokenGroup = h('div', { class: 'al-group al-tokens', role: 'group' });
    this.back = h('button', { type: 'button', onclick: () => this.guard(() => this.go(this.step - 1)) }, '\u25c0 Back');
    this.next = h('button', { type: 'button', class: 'al-primary', onclick: () => this.guard(() => this.go(this.step + 1)) }, 'Next \u25b6');
    // The step list takes focus (tabindex -1) so focus has somewhere to land when a button it sat on is disabled.
    this.stepList = h('ol', { class: 'al-steps', part: 'steps', tabindex: '-1', 'aria-label': 'The four operations' },
      STEPS.map((s, i) => h('li', {}, `${i + 1}. ${s.title}`)));
    this.stepTitle = h('h3', { 'aria-live': 'polite' });
    this.formulaBox = h('p', { class: 'al-formula-line' });
    this.panel = h('div', { class: 'al-panel', part: 'table' });
    // Not live: the number a reader focuses has the same working in its name, and the hint
    // that comes back with every step would be said again on each one.
    this.derivation = h('p', { class: 'al-derivation' });
    this.narration = h('p', { class: 'al-narration', part: 'narration', 'aria-live': 'polite' });
    // predict="flies": the reader types that row's scores, then its weights, before seeing them.
    this.predictToken = this.attr('predict', '');
    this.answered = { score: false, softmax: false };
    this.rowPrompts = {};
    this.promptSlot = h('div', { part: 'prompt' });

    const qlabel = uid();
    this.tokenGroup.setAttribute('aria-labelledby', qlabel);
    this.sentence = new SentenceInput({ lab, tag: this.localName, authorData: data, tokens: this.authorTokens,
      onChange: (inputs) => {
        this.inputs = inputs;
        this.token = Math.min(this.token, inputs.tokens.length - 1);
        this.buildTokenButtons();
        if (this._status === 'ready') this.render();
      },
      onError: (err) => this.showError(err) });
    this.frame.replaceChildren(
      this.sentence.controls, this.sentence.message,
      h('div', { class: 'al-controls', part: 'controls' }, h('span', { id: qlabel }, 'Query token:'), this.tokenGroup),
      h('div', { class: 'al-controls', part: 'controls' }, this.back, this.next, h('span', { class: 'al-muted' }, 'or use \u2190 \u2192 keys')),
      this.stepList, this.stepTitle, this.formulaBox, this.promptSlot, this.panel, this.derivation, this.narration);
    this.buildTokenButtons();
    this.restore(this.readState(), false);
  }

  buildTokenButtons() {
    this.tokenButtons = this.inputs.tokens.map((t, i) => h('button', { type: 'button', 'aria-pressed': 'false', title: t, translate: 'no', onclick: () => this.guard(() => this.select(i)) }, t));
    this.tokenGroup.replaceChildren(...this.tokenButtons);
  }

  onKey(e) {
    const tag = e.target && e.target.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
    if (e.target && e.target.getAttribute && e.target.getAttribute('role') === 'gridcell') return;
    if (e.key === 'ArrowRight') { e.preventDefault(); this.go(this.step + 1); }
    if (e.key === 'ArrowLeft') { e.preventDefault(); this.go(this.step - 1); }
  }

  /**
   * The question open at this step, if any: for the predict token (the author's sentence only),
   * its scores at the score step and after, then its weights at the softmax step and after.
   */
  rowQuestion() {
    const { tokens } = this.inputs;
    if (this.sentence.own || tokens[this.token] !== this.predictToken || this.step === 0) return null;
    const kind = this.step === 1 || !this.answered.score ? 'score' : 'softmax';
    if (!this.rowPrompts[kind]) {
      const i = this.token;
      this.rowPrompts[kind] = rowPrompt({ kind, i, token: tokens[i], inputs: () => this.inputs,
        explain: () => this.lab.explainRow(this.inputs.Q, this.inputs.K, this.inputs.V, i, this.options),
        plain: () => this.unscaledRow(i), skip: 'Show me without guessing',
        onReveal: () => { this.answered[kind] = true; this.render(); } });
    }
    return { kind, prompt: this.rowPrompts[kind] };
  }

  restore(state, save = true) {
    if (typeof state.words === 'string' && state.words !== this.inputs.tokens.join(' ')) this.sentence.set(state.words, { announce: false });
    const tokens = this.inputs.tokens;
    this.token = urlState.int(state.token, this.token, 0, tokens.length - 1);
    this.step = urlState.int(state.step, this.step, 0, STEPS.length - 1);
    this.render(save);
  }

  viewState() {
    // answered: the predict token once its weights are committed (a heatmap may keep its row back until then).
    return { token: this.inputs.tokens[this.token], tokenIndex: this.token, step: STEPS[this.step].id, stepIndex: this.step,
      tokens: this.inputs.tokens.slice(), ownSentence: this.sentence.own, answered: this.answered.softmax ? [this.predictToken] : [] };
  }

  linkState() {
    return { token: this.token, step: this.step, words: this.sentence.linkWords(this.inputs.tokens) };
  }

  applyAttribute(property, value) {
    const i = this.inputs.tokens.indexOf(value);
    if (property === 'query' && i >= 0) this.select(i);
  }

  select(i) {
    this.token = i;
    this.render();
  }

  go(step) {
    const active = this.shadowRoot.activeElement;
    this.step = Math.max(0, Math.min(STEPS.length - 1, step));
    this.render();
    // A disabled button drops focus to <body>: hand it to the other button, which is enabled.
    if (active === this.next && this.next.disabled) this.back.focus();
    else if (active === this.back && this.back.disabled) this.next.focus();
  }

  /** The engine's row i without the 1/sqrt(d_k) scale (other options kept): the comparison column, and the slips the row question names. */
  unscaledRow(i) {
    const { scale, ...rest } = this.options;
    return this.lab.explainRow(this.inputs.Q, this.inputs.K, this.inputs.V, i, { ...rest, scaling: 'none' });
  }

  render(save = true) {
    const { tokens, Q, K, V, X } = this.inputs;
    const i = this.token;
    const d = this.lab.explainRow(Q, K, V, i, this.options);
    const unscaled = Array.from(this.unscaledRow(i).weights.data);
    const focused = this.shadowRoot.activeElement;
    const focusKey = focused && this.panel.contains(focused) && focused.dataset ? focused.dataset.key : null;
    this.derivationData = d;
    const step = STEPS[this.step];
    this.frame.dataset.step = step.id;
    this.frame.dataset.token = tokens[i];
    this.tokenButtons.forEach((b, j) => b.setAttribute('aria-pressed', String(j === i)));
    this.back.disabled = this.step === 0;
    this.next.disabled = this.step === STEPS.length - 1;
    Array.from(this.stepList.children).forEach((li, j) => {
      if (j === this.step) li.setAttribute('aria-current', 'step'); else li.removeAttribute('aria-current');
    });
    setText(this.stepTitle, `Step ${this.step + 1} of ${STEPS.length}: ${step.title}`);
    this.formulaBox.replaceChildren(formula(step.formula, ACTIVE_TERMS[step.id]));
    this.showDerivation(null);

    const rowOf = (t, r) => Array.from(t.data.subarray(r * t.shape[1], (r + 1) * t.shape[1]));
    const scores = Array.from(d.scores.data), weights = Array.from(d.weights.data);
    const best = argmax(step.id === 'score' ? scores : weights);
    const ctx = {
      token: tokens[i], tokens, q: rowOf(Q, i), k: rowOf(K, i), v: rowOf(V, i), scores, weights, best,
      scale: d.scale, output: Array.from(d.output.data), maskedCount: Array.from(d.masked.data).filter((x) => x === -Infinity).length,
      unscaled: d.scale === 1 ? null : unscaled,
    };
    // An open question keeps this step's numbers out of the page until it is answered.
    const asked = this.rowQuestion();
    const waiting = Boolean(asked && !this.answered[asked.kind]);
    const promptFocused = this.promptSlot.contains(this.shadowRoot.activeElement);
    if (!asked) this.promptSlot.replaceChildren();
    else if (this.promptSlot.firstChild !== asked.prompt.root) this.promptSlot.replaceChildren(asked.prompt.root);
    // Answering the scores brings the weights question in its place: focus follows it.
    if (promptFocused && !this.promptSlot.contains(this.shadowRoot.activeElement)) (asked ? asked.prompt.input : this.stepList).focus();
    this.panel.hidden = waiting;
    this.derivation.hidden = waiting;
    // A later step shows the asked numbers too, so the question comes with it: the narration
    // says which step they belong to.
    const from = waiting ? STEPS.findIndex((s) => s.id === asked.kind) : -1;
    const what = waiting && `the ${asked.kind === 'score' ? 'scores' : 'weights'} of "${tokens[i]}"`;
    setText(this.narration, !waiting ? step.narrate(ctx)
      : from === this.step ? `Your turn: work out ${what} before the diagram shows them.`
        : `Your turn first: this step starts from step ${from + 1} (${STEPS[from].title}). Work out ${what} before the diagram shows them.`);
    this.panel.replaceChildren(waiting ? '' : this[`panel_${step.id}`](d, ctx, rowOf, X));
    if (focusKey) this.refocus(focusKey);
    if (save) this.saveState();
  }

  /** After a redraw, focus the number with the same key, else one in the same row, else the step list. */
  refocus(key) {
    const row = key.split(':')[1];
    const buttons = Array.from(this.panel.querySelectorAll('[data-key]'));
    const target = buttons.find((b) => b.dataset.key === key) || buttons.find((b) => b.dataset.key.split(':')[1] === row);
    (target || this.stepList).focus();
  }

  explainOn(el, text) {
    el.addEventListener('focus', () => this.showDerivation(text));
    el.addEventListener('mouseenter', () => this.showDerivation(text));
    return el;
  }

  /** The working behind a number (monospace, so its lines align), or, with none, the hint in prose. */
  showDerivation(text) {
    this.derivation.classList.toggle('al-muted', !text);
    this.derivation.textContent = text || 'Focus or hover a number, or tap it, to see where it comes from.';
  }

  cellButton(text, explanation, label, key) {
    return this.explainOn(h('button', { type: 'button', class: 'al-cell-button', dataset: { key }, 'aria-label': `${label}: ${text}. ${explanation}` }, text), explanation);
  }

  panel_project(d, ctx, rowOf, X) {
    const { tokens, Q, K, V } = this.inputs;
    const i = this.token;
    const head = h('tr', {}, h('th', {}, 'token'), X ? h('th', {}, 'embedding x') : null, h('th', {}, 'query q'), h('th', {}, 'key k'), h('th', {}, 'value v'));
    const rows = tokens.map((t, r) => h('tr', { class: r === i ? 'al-current' : '' },
      h('th', { scope: 'row', title: t, translate: 'no' }, t), X ? h('td', { 'data-label': 'x' }, vector(rowOf(X, r), 2)) : null,
      h('td', { 'data-label': 'q' }, vector(rowOf(Q, r), 2)), h('td', { 'data-label': 'k' }, vector(rowOf(K, r), 2)), h('td', { 'data-label': 'v' }, vector(rowOf(V, r), 2))));
    const note = X ? 'Every token gets its own q, k and v from the same three matrices; the highlighted row is the query token.'
      : 'These q, k and v were given directly, so there is no projection to show.';
    return h('div', {}, scrollBox('Embeddings and their projections', h('table', { class: 'al-table al-stack' }, h('caption', { class: 'al-sr' }, 'Embeddings and their projections'), h('thead', {}, head), h('tbody', {}, rows))),
      h('p', { class: 'al-muted' }, note));
  }

  panel_score(d, ctx, rowOf) {
    const { tokens, K } = this.inputs;
    const q = ctx.q;
    const rows = tokens.map((t, j) => {
      const terms = rowOf(d.terms, j);
      const k = rowOf(K, j);
      const expl = `q\u00b7k(${t}) = ${q.map((qv, c) => `${num(qv, 2)}\u00d7${num(k[c], 2)}`).join(' + ')}\n` +
        `          = ${terms.map((x) => num(x, 3)).join(' + ')} = ${num(ctx.scores[j], 4)}`;
      return h('tr', { class: j === ctx.best ? 'al-current' : '' }, h('th', { scope: 'row', translate: 'no' }, t), h('td', {}, vector(k, 2)),
        h('td', {}, this.cellButton(cell(ctx.scores[j]), expl, `score of ${ctx.token} against ${t}`, `score:${j}`)));
    });
    return scrollBox('Scores', h('p', {}, `query q(${ctx.token}) = ${vector(q, 2)}`),
      h('table', { class: 'al-table' }, h('thead', {}, h('tr', {}, h('th', {}, 'key token'), h('th', {}, 'key k'), h('th', {}, 'score q\u00b7k'))), h('tbody', {}, rows)));
  }

  panel_softmax(d, ctx) {
    const { tokens } = this.inputs;
    const scaled = Array.from(d.scaled.data), masked = Array.from(d.masked.data), ex = Array.from(d.expShifted.data);
    const raw = Array.from(d.expRaw.data);
    const rows = tokens.map((t, j) => {
      const hidden = masked[j] === -Infinity;
      const expl = hidden ? `${t} is masked: its score becomes ${MINUS}\u221e, e^(${MINUS}\u221e) = 0, weight 0`
        : `${num(ctx.scores[j], 4)} \u00d7 ${num(d.scale, 4)} = ${num(scaled[j], 4)}\n` +
          `e^(${num(masked[j], 4)} ${MINUS} ${num(d.rowMax, 4)}) = ${num(ex[j], 4)}   (shifted by the row max so nothing overflows)\n` +
          `${num(ex[j], 4)} \u00f7 ${num(d.sumShifted, 4)} = ${num(ctx.weights[j], 4)}\n` +
          `by hand, unshifted: e^${num(masked[j], 4)} = ${num(raw[j], 4)}, and ${num(raw[j], 4)} \u00f7 ${num(d.sumRaw, 4)} gives the same weight`;
      return h('tr', { class: j === ctx.best ? 'al-current' : '' }, h('th', { scope: 'row', title: t, translate: 'no' }, t),
        h('td', {}, cell(ctx.scores[j])), h('td', {}, hidden ? `${MINUS}\u221e` : cell(scaled[j])),
        h('td', {}, this.cellButton(cell(ctx.weights[j]), expl, `weight of ${ctx.token} on ${t}`, `weight:${j}`)),
        ctx.unscaled ? h('td', { class: 'al-unscaled' }, cell(ctx.unscaled[j])) : null,
        h('td', { class: 'al-bar-cell' }, h('span', { class: 'al-bar', style: { width: `${Math.round(ctx.weights[j] * 120)}px` }, 'aria-hidden': 'true' })));
    });
    const sums = h('p', { class: 'al-muted al-sums' },
      `Sum of the shifted terms e^(s \u2212 max), the max being ${num(d.rowMax, 4)}: `, h('strong', { dataset: { sum: 'shifted' } }, num(d.sumShifted, 4)), '. ',
      'Sum of the unshifted terms e^s, as you would add them by hand: ', h('strong', { dataset: { sum: 'raw' } }, num(d.sumRaw, 4)), '. ',
      'Either sum gives the same weights, which add up to 1.');
    return h('div', {}, scrollBox('Scaled scores and weights', h('table', { class: 'al-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'key'), h('th', {}, 'score'), h('th', {}, `\u00d7 ${num(d.scale, 4)}`), h('th', {}, 'weight'),
        ctx.unscaled ? h('th', { class: 'al-unscaled' }, 'weight, no scaling') : null, h('th', { class: 'al-bar-cell' }, h('span', { class: 'al-sr' }, 'bar')))),
      h('tbody', {}, rows))), sums);
  }

  panel_sum(d, ctx, rowOf) {
    const { tokens, V } = this.inputs;
    const rows = tokens.map((t, j) => {
      const wv = rowOf(d.weightedValues, j);
      const expl = `${num(ctx.weights[j], 4)} \u00d7 ${vector(rowOf(V, j), 2)} = ${vector(wv, 4)}`;
      return h('tr', { class: j === ctx.best ? 'al-current' : '' }, h('th', { scope: 'row', title: t, translate: 'no' }, t),
        h('td', { 'data-label': 'weight' }, this.cellButton(cell(ctx.weights[j]), `weight of ${ctx.token} on ${t}, from the softmax step`, `weight of ${ctx.token} on ${t}`, `weight:${j}`)),
        h('td', { 'data-label': 'v' }, vector(rowOf(V, j), 2)), h('td', { 'data-label': 'weight \u00d7 v' }, this.cellButton(vector(wv, DIGITS), expl, `weighted value of ${t}`, `weighted:${j}`)));
    });
    return scrollBox('Weighted values', h('table', { class: 'al-table al-stack' },
      h('thead', {}, h('tr', {}, h('th', {}, 'key'), h('th', {}, 'weight'), h('th', {}, 'value v'), h('th', {}, 'weight \u00d7 v'))),
      h('tbody', {}, rows), h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, 'output'), h('td', {}), h('td', {}), h('td', { class: 'al-output', 'data-label': 'output' }, vector(ctx.output, DIGITS))))));
  }
}

module.exports = { AttentionStepper };
