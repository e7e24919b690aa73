'use strict';
// <shape-tracer>: the shape of every tensor through one attention layer for chosen sizes,
// from the engine's traceShapes; quiz mode hides each shape until the learner predicts it.
// d_k and d_v follow d_model / h (the engine's rule when they are left out) unless the author set
// them with the dk / dv attributes or the reader unticks "follow".

const { h, uid, scrollBox } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { judgeShape, parseShape, attempt } = require('../ui/predict.js');
const { shapeRule } = require('../ui/shape-rules.js');
const { readField } = require('../ui/fields.js');
const { FieldNote } = require('../kit/field-note.js');
const { answerSlot } = require('../kit/print.js');
const { shape, grouped } = require('../ui/format.js');

const FIELDS = [
  ['batch', 'batch', 1], ['n', 'tokens n', 5], ['dModel', 'd_model', 768], ['heads', 'heads h', 1], ['dk', 'd\u2096', 768], ['dv', 'd\u1d65', 768],
];
const MAX_SIZE = 100000;  // the engine's limit for every size (traceShapes)
const ATTRS = { batch: 'batch', n: 'n', dModel: 'd-model', heads: 'heads', dk: 'dk', dv: 'dv' };
// Sizes worth a click: the seed's 4 x 512^2 parameter count is the base transformer's layer.
const PRESETS = [
  { label: 'base transformer: d_model 512, 8 heads', sizes: { batch: 1, n: 10, dModel: 512, heads: 8 } },
  { label: 'one 768-wide head, 5 tokens', sizes: { batch: 1, n: 5, dModel: 768, heads: 1 } },
  { label: '768 wide, 12 heads', sizes: { batch: 1, n: 5, dModel: 768, heads: 12 } },
  { label: 'lesson 2: 6 tokens, d_model 8, 2 heads', sizes: { batch: 1, n: 6, dModel: 8, heads: 2 } },
];

class ShapeTracer extends LabElement {
  static get jsonKeys() { return []; }

  setup() {
    this.sizes = {};
    for (const [key, , fallback] of FIELDS) this.sizes[key] = this.attr(ATTRS[key], fallback);
    this.quizOn = this.attr('quiz', false);
    this.follow = this.attr('dk') === undefined && this.attr('dv') === undefined;
    this.revealed = new Set();
    this.misses = new Map();  // step id -> wrong answers so far (ui/predict.js attempt)
    this.hints = new Map();  // step id -> the hint its first miss got
    this.verdicts = new Map();  // step id -> what the reader was told when it was revealed
    this.inputs = {};
    // What was wrong with a typed size (or a combination the engine refuses), beside the boxes.
    this.note = new FieldNote();
    const fields = FIELDS.map(([key, label]) => {
      const id = uid();
      const input = h('input', { id, type: 'number', min: '1', max: String(MAX_SIZE), step: '1' });
      input.addEventListener('change', () => this.guard(() => this.onSize(key, input)));
      this.note.watch(input);
      this.inputs[key] = input;
      return h('label', { for: id }, label, input);
    });
    const followId = uid(), presetId = uid();
    this.followBox = h('input', { id: followId, type: 'checkbox', onchange: () => this.guard(() => { this.follow = this.followBox.checked; this.forget(); this.render(); }) });
    this.presetSelect = h('select', { id: presetId, onchange: () => this.guard(() => this.usePreset(Number(this.presetSelect.value))) },
      h('option', { value: '-1' }, 'choose\u2026'), PRESETS.map((p, i) => h('option', { value: String(i) }, p.label)));
    const quizId = uid();
    this.quizBox = h('input', { id: quizId, type: 'checkbox', onchange: () => this.guard(() => { this.quizOn = this.quizBox.checked; this.forget(); this.render(); }) });
    this.table = h('table', { class: 'al-table' });
    this.summary = h('p', { class: 'al-muted', 'aria-live': 'polite' });
    // Says the verdict of a quiz answer: the row it was typed in is redrawn with the shape.
    this.quizLive = h('p', { class: 'al-sr', 'aria-live': 'polite' });
    this.frame.replaceChildren(h('div', { class: 'al-controls' }, fields),
      h('div', { class: 'al-controls' },
        h('label', { for: followId }, this.followBox, 'd\u2096 = d\u1d65 = d_model / h'),
        h('label', { for: presetId }, 'preset', this.presetSelect)),
      h('div', { class: 'al-controls' }, h('label', { for: quizId }, this.quizBox, 'quiz: predict each shape before it is shown')),
      this.note.el, this.quizLive, scrollBox('Numbers', this.table), this.summary);
    this.restore(this.readState(), false);
  }

  /** Every row asked again, nothing said yet. */
  forget() {
    this.revealed.clear();
    this.misses.clear();
    this.hints.clear();
    this.verdicts.clear();
  }

  restore(s, save = true) {
    for (const [key] of FIELDS) this.sizes[key] = urlState.int(s[key], this.sizes[key], 1, 100000);
    this.quizOn = urlState.bool(s.quiz, this.quizOn);
    this.follow = urlState.bool(s.follow, this.follow);
    this.render(save);
  }

  viewState() {
    return { ...this.sizes, ...this.derived(), quiz: this.quizOn, follow: this.follow };
  }

  /** d_k and d_v as the engine will use them: d_model / h when following (null if h does not divide it). */
  derived() {
    if (!this.follow) return { dk: this.sizes.dk, dv: this.sizes.dv };
    const dk = this.sizes.dModel % this.sizes.heads === 0 ? this.sizes.dModel / this.sizes.heads : null;
    return { dk, dv: dk };
  }

  usePreset(i) {
    const preset = PRESETS[i];
    if (!preset) return;
    Object.assign(this.sizes, preset.sizes);
    this.follow = true;
    this.forget();
    this.render();
    this.presetSelect.value = '-1';
  }

  applyAttribute(property, value) {
    if (property === 'dk' || property === 'dv') this.follow = this.attr('dk') === undefined && this.attr('dv') === undefined;
    if (property === 'quiz') {
      this.quizOn = value === undefined ? false : value;
      this.forget();
    } else {
      const field = FIELDS.find(([key]) => key === property);
      this.sizes[property] = value === undefined ? field[2] : value;
      this.forget();
    }
    this.render();
  }

  onSize(key, input) {
    const label = FIELDS.find(([k]) => k === key)[1];
    const r = readField(input.value, { label, min: 1, max: MAX_SIZE, whole: true }, input.validity.badInput);
    if (r.error) {
      this.note.refuse(input, r.error);
      return;
    }
    this.note.accept(input);
    this.changed = input;
    const v = r.value;
    this.sizes[key] = v;
    // Typing a d_k or d_v fixes it: from now on it no longer follows d_model / h.
    if (key === 'dk' || key === 'dv') {
      if (this.follow) this.sizes[key === 'dk' ? 'dv' : 'dk'] = this.derived()[key === 'dk' ? 'dv' : 'dk'] || v;
      this.follow = false;
    }
    this.forget();
    this.render();
  }

  render(save = true) {
    const derived = this.derived();
    for (const [key] of FIELDS) this.inputs[key].value = String(key === 'dk' || key === 'dv' ? (derived[key] || this.sizes[key]) : this.sizes[key]);
    this.quizBox.checked = this.quizOn;
    this.followBox.checked = this.follow;
    let trace;
    try {
      trace = this.lab.traceShapes({ ...this.sizes, ...(this.follow ? { dk: undefined, dv: undefined } : {}) });
    } catch (err) {
      // Sizes that do not fit together (h does not divide d_model): said beside the boxes; the table stays.
      this.note.refuse(this.changed || this.inputs.heads, err.message.replace(/^traceShapes: /, ''));
      return;
    }
    for (const [key] of FIELDS) this.note.accept(this.inputs[key]);
    const heads = this.sizes.heads;
    const rows = trace.steps.map((step) => {
      const hidden = this.quizOn && !this.revealed.has(step.id);
      let cell;
      if (hidden) {
        const id = uid(), vid = uid();
        const input = h('input', { id, type: 'text', placeholder: 'e.g. 2, 5, 64', size: '12', autocomplete: 'off', 'aria-describedby': vid });
        // A hint given before this redraw stays beside its row (another row's answer redraws the table).
        const hinted = this.hints.get(step.id);
        const verdict = h('span', { id: vid, 'aria-live': 'polite', class: hinted ? 'al-verdict-hint' : null }, hinted || '');
        const check = () => this.guard(() => {
          const rule = shapeRule(step, heads);
          const r = judgeShape(input.value, step.shape, { hint: `${rule.hint}${this.mixUp(input.value, step, trace)}`, why: rule.why });
          const said = attempt(r, this.misses.get(step.id) || 0);
          this.misses.set(step.id, said.misses);
          if (said.kind === 'hint') this.hints.set(step.id, said.message);
          input.setAttribute('aria-invalid', String(said.kind === 'invalid'));
          verdict.textContent = said.message;
          verdict.className = said.kind === 'right' ? 'al-verdict-ok' : said.kind === 'hint' ? 'al-verdict-hint' : 'al-verdict-bad';
          if (said.reveal) this.reveal(step.id, { text: said.message, className: verdict.className });
        });
        input.addEventListener('keydown', (e) => { if (e.key === 'Enter') check(); });
        const name = `shape of "${step.name}"${step.formula ? ` (${step.formula})` : ''}`;
        cell = h('span', { class: 'al-group' }, h('label', { for: id, class: 'al-sr' }, name), input,
          h('button', { type: 'button', onclick: check }, 'Check'), verdict,
          answerSlot(() => ({ question: `The ${name}`, answer: shapeRule(step, heads).why }), 'span'));
      } else {
        const said = this.quizOn ? this.verdicts.get(step.id) : null;
        cell = [h('code', { class: 'al-shape', dataset: { id: step.id } }, shape(step.shape)),
          said ? h('span', { class: `al-quiz-verdict ${said.className}` }, ' ', said.text) : null];
      }
      return h('tr', {}, h('th', { scope: 'row' }, step.name, step.formula ? h('span', { class: 'al-how' }, step.formula) : null),
        h('td', { style: { textAlign: 'left' } }, cell));
    });
    this.table.replaceChildren(h('caption', { class: 'al-sr' }, 'Shapes through one attention layer'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'tensor'), h('th', { scope: 'col' }, 'shape'))), h('tbody', {}, rows));
    // The two counts are products of the shapes: in the quiz they wait for the last answer.
    const pending = this.quizOn && trace.steps.some((step) => !this.revealed.has(step.id));
    this.summary.textContent = pending ? 'The parameter count and the size of the attention matrices appear once every shape is answered.'
      : `W_Q, W_K, W_V and W_O hold ${grouped(trace.parameters)} parameters; the attention matrices hold ${grouped(trace.scoreEntries)} numbers, growing with n\u00b2.`;
    if (save) this.saveState({ ...this.sizes, quiz: this.quizOn, follow: this.follow });
  }

  /**
   * Shows the shape of a row the reader answered, keeps what they were told beside it, and
   * moves focus on to the next row still asked (or the table) so it never falls to <body>.
   */
  reveal(id, said) {
    this.revealed.add(id);
    this.verdicts.set(id, said);
    const hadFocus = this.table.contains(this.shadowRoot.activeElement);
    this.render();
    this.quizLive.textContent = said.text;
    if (!hadFocus) return;
    const next = this.table.querySelector('tbody input');
    (next || this.table.closest('.al-scroll')).focus();
  }

  /**
   * After a wrong shape: the row the guess belongs to, when that row's shape is already shown
   * (naming one still asked would answer it), so the learner sees the mix-up.
   */
  mixUp(text, step, trace) {
    const guess = parseShape(text);
    if (!guess) return '';
    const named = (s) => `"${s.name}"${s.formula ? ` (${s.formula})` : ''}`;
    const shown = (s) => !this.quizOn || this.revealed.has(s.id);
    const others = trace.steps.filter((s) => s.id !== step.id && shown(s) && s.shape.length === guess.length && s.shape.every((x, i) => x === guess[i]));
    return others.length ? ` Your answer is the shape of ${others.map(named).join(' and of ')}; this row asks for ${named(step)}.` : '';
  }
}

module.exports = { ShapeTracer };
