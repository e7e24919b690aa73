'use strict';
// <attention-stepper>: pick a query token and walk the four operations, forward and back,
// with buttons or arrow keys. Every number comes from the engine's explainRow.

const { h, scrollBox, uid } = require('./dom.js');
const { LabElement, urlState } = require('./base.js');
const { formula } = require('./formulas.js');
const { resolveInputs, authorOptions } = require('./inputs.js');
const { STEPS, argmax } = require('../ui/steps.js');
const { num, vector, MINUS } = require('../ui/format.js');

const ACTIVE_TERMS = { project: ['q', 'k', 'v'], score: ['s', 'q', 'k', 'terms'], softmax: ['w', 'softmax', 'scaled', 'exp'], sum: ['o', 'sum', 'w', 'v'] };

class AttentionStepper extends LabElement {
  setup(lab, data) {
    this.inputs = resolveInputs(lab, data, this.localName);
    this.options = authorOptions(data);
    const { tokens } = this.inputs;
    const fromAttr = tokens.indexOf(this.attr('query', ''));
    this.token = fromAttr >= 0 ? fromAttr : Math.min(1, tokens.length - 1);
    this.step = 0;

    this.tokenButtons = tokens.map((t, i) => h('button', { type: 'button', 'aria-pressed': 'false', onclick: () => this.guard(() => this.select(i)) }, t));
    this.back = h('button', { type: 'button', onclick: () => this.guard(() => this.go(this.step - 1)) }, '\u25c0 Back');
    this.next = h('button', { type: 'button', class: 'al-primary', onclick: () => this.guard(() => this.go(this.step + 1)) }, 'Next \u25b6');
    this.stepList = h('ol', { class: 'al-steps', part: 'steps', 'aria-label': 'The four operations' },
      STEPS.map((s, i) => h('li', {}, `${i + 1}. ${s.title}`)));
    this.stepTitle = h('h3', { 'aria-live': 'polite' });
    this.formulaBox = h('p', { class: 'al-formula-line' });
    this.panel = h('div', { class: 'al-panel', part: 'table' });
    this.derivation = h('p', { class: 'al-derivation', 'aria-live': 'polite' });
    this.narration = h('p', { class: 'al-narration', part: 'narration', 'aria-live': 'polite' });

    const qlabel = uid();
    this.frame.replaceChildren(
      h('div', { class: 'al-controls', part: 'controls' },
        h('span', { id: qlabel }, 'Query token:'),
        h('div', { class: 'al-group', role: 'group', 'aria-labelledby': qlabel }, this.tokenButtons)),
      h('div', { class: 'al-controls', part: 'controls' }, this.back, this.next, h('span', { class: 'al-muted' }, 'or use \u2190 \u2192 keys')),
      this.stepList, this.stepTitle, this.formulaBox, this.panel, this.derivation, this.narration);
    this.frame.addEventListener('keydown', (e) => this.guard(() => this.onKey(e)));
    this.restore(this.readState(), false);
  }

  onKey(e) {
    const tag = e.target && e.target.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
    if (e.target && e.target.getAttribute && e.target.getAttribute('role') === 'gridcell') return;
    if (e.key === 'ArrowRight') { e.preventDefault(); this.go(this.step + 1); }
    if (e.key === 'ArrowLeft') { e.preventDefault(); this.go(this.step - 1); }
  }

  restore(state, save = true) {
    const tokens = this.inputs.tokens;
    this.token = urlState.int(state.token, this.token, 0, tokens.length - 1);
    this.step = urlState.int(state.step, this.step, 0, STEPS.length - 1);
    this.render(save);
  }

  viewState() {
    return { token: this.inputs.tokens[this.token], tokenIndex: this.token, step: STEPS[this.step].id, stepIndex: this.step };
  }

  linkState() {
    return { token: this.token, step: this.step };
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
    this.step = Math.max(0, Math.min(STEPS.length - 1, step));
    this.render();
  }

  render(save = true) {
    const { tokens, Q, K, V, X } = this.inputs;
    const i = this.token;
    const d = this.lab.explainRow(Q, K, V, i, this.options);
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
    this.stepTitle.textContent = `Step ${this.step + 1} of ${STEPS.length}: ${step.title}`;
    this.formulaBox.replaceChildren(formula(step.formula, ACTIVE_TERMS[step.id]));
    this.derivation.textContent = 'Focus or hover a number to see where it comes from.';

    const rowOf = (t, r) => Array.from(t.data.subarray(r * t.shape[1], (r + 1) * t.shape[1]));
    const scores = Array.from(d.scores.data), weights = Array.from(d.weights.data);
    const best = argmax(step.id === 'score' ? scores : weights);
    const ctx = {
      token: tokens[i], tokens, q: rowOf(Q, i), k: rowOf(K, i), v: rowOf(V, i), scores, weights, best,
      scale: d.scale, output: Array.from(d.output.data), maskedCount: Array.from(d.masked.data).filter((x) => x === -Infinity).length,
    };
    this.narration.textContent = step.narrate(ctx);
    this.panel.replaceChildren(this[`panel_${step.id}`](d, ctx, rowOf, X));
    if (save) this.saveState();
  }

  explainOn(el, text) {
    el.addEventListener('focus', () => { this.derivation.textContent = text; });
    el.addEventListener('mouseenter', () => { this.derivation.textContent = text; });
    return el;
  }

  cellButton(text, explanation, label) {
    return this.explainOn(h('button', { type: 'button', class: 'al-cell-button', 'aria-label': `${label}: ${text}. ${explanation}` }, text), explanation);
  }

  panel_project(d, ctx, rowOf, X) {
    const { tokens, Q, K, V } = this.inputs;
    const i = this.token;
    const head = h('tr', {}, h('th', {}, 'token'), X ? h('th', {}, 'embedding x') : null, h('th', {}, 'query q'), h('th', {}, 'key k'), h('th', {}, 'value v'));
    const rows = tokens.map((t, r) => h('tr', { class: r === i ? 'al-current' : '' },
      h('th', { scope: 'row' }, t), X ? h('td', {}, vector(rowOf(X, r), 2)) : null,
      h('td', {}, vector(rowOf(Q, r), 2)), h('td', {}, vector(rowOf(K, r), 2)), h('td', {}, vector(rowOf(V, r), 2))));
    const note = X ? 'Every token gets its own q, k and v from the same three matrices; the highlighted row is the query token.'
      : 'These q, k and v were given directly, so there is no projection to show.';
    return h('div', {}, scrollBox('Embeddings and their projections', h('table', { class: 'al-table' }, h('caption', { class: 'al-sr' }, 'Embeddings and their projections'), h('thead', {}, head), h('tbody', {}, rows))),
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
      return h('tr', { class: j === ctx.best ? 'al-current' : '' }, h('th', { scope: 'row' }, t), h('td', {}, vector(k, 2)),
        h('td', {}, this.cellButton(num(ctx.scores[j], 3), expl, `score of ${ctx.token} against ${t}`)));
    });
    return scrollBox('Scores', h('p', {}, `query q(${ctx.token}) = ${vector(q, 2)}`),
      h('table', { class: 'al-table' }, h('thead', {}, h('tr', {}, h('th', {}, 'key token'), h('th', {}, 'key k'), h('th', {}, 'score q\u00b7k'))), h('tbody', {}, rows)));
  }

  panel_softmax(d, ctx) {
    const { tokens } = this.inputs;
    const scaled = Array.from(d.scaled.data), masked = Array.from(d.masked.data), ex = Array.from(d.expShifted.data);
    const rows = tokens.map((t, j) => {
      const hidden = masked[j] === -Infinity;
      const expl = hidden ? `${t} is masked: its score becomes ${MINUS}\u221e, e^(${MINUS}\u221e) = 0, weight 0`
        : `${num(ctx.scores[j], 4)} \u00d7 ${num(d.scale, 4)} = ${num(scaled[j], 4)}\n` +
          `e^(${num(masked[j], 4)} ${MINUS} ${num(d.rowMax, 4)}) = ${num(ex[j], 4)}   (subtract the row max so nothing overflows)\n` +
          `${num(ex[j], 4)} \u00f7 ${num(d.sumShifted, 4)} = ${num(ctx.weights[j], 4)}`;
      return h('tr', { class: j === ctx.best ? 'al-current' : '' }, h('th', { scope: 'row' }, t),
        h('td', {}, num(ctx.scores[j], 3)), h('td', {}, hidden ? `${MINUS}\u221e` : num(scaled[j], 3)),
        h('td', {}, this.cellButton(num(ctx.weights[j], 3), expl, `weight of ${ctx.token} on ${t}`)),
        h('td', {}, h('span', { class: 'al-bar', style: { width: `${Math.round(ctx.weights[j] * 120)}px` }, 'aria-hidden': 'true' })));
    });
    return scrollBox('Scaled scores and weights', h('table', { class: 'al-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'key'), h('th', {}, 'score'), h('th', {}, `\u00d7 ${num(d.scale, 4)}`), h('th', {}, 'weight'), h('th', {}, h('span', { class: 'al-sr' }, 'bar')))),
      h('tbody', {}, rows)), h('p', { class: 'al-muted' }, `Sum of e-terms: ${num(d.sumShifted, 4)}. The weights add up to 1.`));
  }

  panel_sum(d, ctx, rowOf) {
    const { tokens, V } = this.inputs;
    const rows = tokens.map((t, j) => {
      const wv = rowOf(d.weightedValues, j);
      const expl = `${num(ctx.weights[j], 4)} \u00d7 ${vector(rowOf(V, j), 2)} = ${vector(wv, 4)}`;
      return h('tr', { class: j === ctx.best ? 'al-current' : '' }, h('th', { scope: 'row' }, t), h('td', {}, num(ctx.weights[j], 3)),
        h('td', {}, vector(rowOf(V, j), 2)), h('td', {}, this.cellButton(vector(wv, 3), expl, `weighted value of ${t}`)));
    });
    return scrollBox('Weighted values', h('table', { class: 'al-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'key'), h('th', {}, 'weight'), h('th', {}, 'value v'), h('th', {}, 'weight \u00d7 v'))),
      h('tbody', {}, rows), h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, 'output'), h('td', {}), h('td', {}), h('td', { class: 'al-output' }, vector(ctx.output, 3))))));
  }
}

module.exports = { AttentionStepper };
