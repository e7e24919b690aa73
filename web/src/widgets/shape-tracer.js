'use strict';
// <shape-tracer>: the shape of every tensor through one attention layer for chosen sizes,
// from the engine's traceShapes; quiz mode hides each shape until the learner predicts it.

const { h, uid, scrollBox } = require('./dom.js');
const { LabElement, urlState } = require('./base.js');
const { judgeShape } = require('../ui/predict.js');
const { shape, grouped } = require('../ui/format.js');

const FIELDS = [
  ['batch', 'batch', 1], ['n', 'tokens n', 5], ['dModel', 'd_model', 768], ['heads', 'heads h', 1], ['dk', 'd\u2096', 768], ['dv', 'd\u1d65', 768],
];
const ATTRS = { batch: 'batch', n: 'n', dModel: 'd-model', heads: 'heads', dk: 'dk', dv: 'dv' };

class ShapeTracer extends LabElement {
  static get jsonKeys() { return []; }

  setup() {
    this.sizes = {};
    for (const [key, , fallback] of FIELDS) this.sizes[key] = this.attr(ATTRS[key], fallback);
    this.quizOn = this.attr('quiz', false);
    this.revealed = new Set();
    this.inputs = {};
    const fields = FIELDS.map(([key, label]) => {
      const id = uid();
      const input = h('input', { id, type: 'number', min: '1', max: '100000', step: '1' });
      input.addEventListener('change', () => this.guard(() => this.onSize(key, input)));
      this.inputs[key] = input;
      return h('label', { for: id }, label, input);
    });
    const quizId = uid();
    this.quizBox = h('input', { id: quizId, type: 'checkbox', onchange: () => this.guard(() => { this.quizOn = this.quizBox.checked; this.revealed.clear(); this.render(); }) });
    this.table = h('table', { class: 'al-table' });
    this.summary = h('p', { class: 'al-muted', 'aria-live': 'polite' });
    this.message = h('p', { 'aria-live': 'polite' });
    this.frame.replaceChildren(h('div', { class: 'al-controls' }, fields),
      h('div', { class: 'al-controls' }, h('label', { for: quizId }, this.quizBox, 'quiz: predict each shape before it is shown')),
      this.message, scrollBox('Numbers', this.table), this.summary);
    this.restore(this.readState(), false);
  }

  restore(s, save = true) {
    for (const [key] of FIELDS) this.sizes[key] = urlState.int(s[key], this.sizes[key], 1, 100000);
    this.quizOn = urlState.bool(s.quiz, this.quizOn);
    this.render(save);
  }

  viewState() {
    return { ...this.sizes, quiz: this.quizOn };
  }

  applyAttribute(property, value) {
    if (property === 'quiz') {
      this.quizOn = value === undefined ? false : value;
      this.revealed.clear();
    } else {
      const field = FIELDS.find(([key]) => key === property);
      this.sizes[property] = value === undefined ? field[2] : value;
      this.revealed.clear();
    }
    this.render();
  }

  onSize(key, input) {
    const v = Number(input.value);
    if (!Number.isInteger(v) || v < 1 || v > 100000) {
      this.message.textContent = `${key} must be a whole number from 1 to 100000.`;
      input.value = String(this.sizes[key]);
      return;
    }
    this.sizes[key] = v;
    this.revealed.clear();
    this.render();
  }

  render(save = true) {
    for (const [key] of FIELDS) this.inputs[key].value = String(this.sizes[key]);
    this.quizBox.checked = this.quizOn;
    let trace;
    try {
      trace = this.lab.traceShapes(this.sizes);
      this.message.textContent = '';
    } catch (err) {
      this.message.textContent = err.message;
      return;
    }
    const rows = trace.steps.map((step) => {
      const hidden = this.quizOn && !this.revealed.has(step.id);
      let cell;
      if (hidden) {
        const id = uid();
        const input = h('input', { id, type: 'text', placeholder: 'e.g. 2, 5, 64', size: '12', autocomplete: 'off' });
        const verdict = h('span', { 'aria-live': 'polite' });
        const check = () => this.guard(() => {
          const r = judgeShape(input.value, step.shape);
          verdict.textContent = r.message;
          verdict.className = r.close ? 'al-verdict-ok' : 'al-verdict-bad';
          if (r.ok) {
            this.revealed.add(step.id);
            setTimeout(() => this.guard(() => this.render()), r.close ? 600 : 1600);
          }
        });
        input.addEventListener('keydown', (e) => { if (e.key === 'Enter') check(); });
        cell = h('span', { class: 'al-group' }, h('label', { for: id, class: 'al-sr' }, `shape of ${step.name}`), input,
          h('button', { type: 'button', onclick: check }, 'Check'), verdict, h('span', { class: 'al-print-answer' }, `answer: ${shape(step.shape)}`));
      } else {
        cell = h('code', { class: 'al-shape', dataset: { id: step.id } }, shape(step.shape));
      }
      return h('tr', {}, h('th', { scope: 'row' }, step.name, step.formula ? h('span', { class: 'al-how' }, step.formula) : null),
        h('td', { style: { textAlign: 'left' } }, cell));
    });
    this.table.replaceChildren(h('caption', { class: 'al-sr' }, 'Shapes through one attention layer'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'tensor'), h('th', { scope: 'col' }, 'shape'))), h('tbody', {}, rows));
    this.summary.textContent = `W_Q, W_K, W_V and W_O hold ${grouped(trace.parameters)} parameters; the attention matrices hold ${grouped(trace.scoreEntries)} numbers, growing with n\u00b2.`;
    if (save) this.saveState({ ...this.sizes, quiz: this.quizOn });
  }
}

module.exports = { ShapeTracer };
