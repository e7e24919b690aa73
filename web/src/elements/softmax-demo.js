'use strict';
// <softmax-demo>: softmax of a few numbers, computed the naive way (exponentiate, add,
// divide) and the safe way (subtract the maximum first), both by the engine. Large
// inputs overflow the naive way; the safe way is unchanged by adding a constant.

const { h, uid, scrollBox } = require('../kit/dom.js');
const { LabElement } = require('../kit/base.js');
const { PredictView } = require('../kit/predict-view.js');
const { num, fixed } = require('../ui/format.js');
const { parseValues, shiftLabel, compare } = require('../ui/softmax-compare.js');
const { FieldNote } = require('../kit/field-note.js');

class SoftmaxDemo extends LabElement {
  static get jsonKeys() { return []; }

  setup() {
    const id = uid();
    this.input = h('input', { id, type: 'text', value: this.attr('values', '1000, 1001, 1002'), size: '22', autocomplete: 'off' });
    this.input.addEventListener('change', () => this.guard(() => { if (this.render()) this.saveState(); }));
    // What was wrong with typed inputs, beside the box: the last good table stays below.
    this.note = new FieldNote();
    this.note.watch(this.input);
    this.table = h('table', { class: 'al-table' });
    this.message = h('p', { 'aria-live': 'polite' });
    this.results = h('div', {}, scrollBox('Naive and safe softmax', this.table), this.message);
    this.results.hidden = true;
    this.predict = new PredictView({
      question: 'what is softmax([1000, 1001, 1002])?',
      choices: [
        { label: 'the same as softmax([0, 1, 2])', value: 'same' },
        { label: '[0, 0, 1]', value: 'onehot' },
        { label: 'NaN: it overflows', value: 'nan' },
      ],
      judge: (choice) => ({
        ok: true,
        close: choice === 'same',
        message: choice === 'same' ? 'Right: adding the same number to every input changes nothing, so the engine subtracts the largest first.'
          : choice === 'nan' ? 'Only when computed naively. Subtracting the maximum first gives the same answer as for [0, 1, 2]; see below.'
            : 'Not quite: the differences between the inputs are what matter, and they are the same as for [0, 1, 2].',
        hint: choice === 'nan' ? 'e^1000 does overflow, but must a softmax compute it? Compare e^(x\u2212c) / \u03a3 e^(x\u2212c) with e^x / \u03a3 e^x for any number c.'
          : 'Is e^1001 really nothing next to e^1002? Their ratio is e^\u22121, whatever the size of the numbers.',
      }),
      onReveal: () => { this.results.hidden = false; this.saveState(); },
      printAnswer: () => `the same as softmax([0, 1, 2]): [${Array.from(this.lab.softmax([1000, 1001, 1002]).data, (x) => fixed(x, 4)).join(', ')}].`,
    });
    this.frame.replaceChildren(this.predict.root, h('div', { class: 'al-controls' }, h('label', { for: id }, 'inputs', this.input)), this.note.el, this.results);
    this.render();
  }

  viewState() {
    return { values: this.values === undefined ? this.input.value : this.values, revealed: !this.results.hidden };
  }

  applyAttribute(property, value) {
    if (property === 'values') {
      this.input.value = value === undefined ? '1000, 1001, 1002' : value;
      this.render();
    }
  }

  /** Draws the typed inputs; false (with the reason beside the box) when they cannot be drawn. */
  render() {
    const parsed = parseValues(this.input.value);
    if (parsed.error) {
      this.showProblem(parsed.error);
      return false;
    }
    try {
      this.draw(parsed.values);
    } catch (err) {
      // The engine refused these inputs: say why and keep the widget usable for the next try.
      this.showProblem(err.message);
      return false;
    }
    this.note.accept(this.input);
    this.values = this.input.value;
    return true;
  }

  /** Says beside the box what is wrong with its text; the table keeps the last inputs that worked and says which. */
  showProblem(text) {
    const shown = this.frame.dataset.inputs;
    this.note.refuse(this.input, shown ? `${text} The table below still shows [${shown}].` : text);
  }

  draw(values) {
    // One query whose scores against identity keys are exactly the inputs, scale 1:
    // explainRow then gives the naive float32 path and the safe (shifted) one.
    const n = values.length;
    const keys = Array.from({ length: n }, (_, j) => Array.from({ length: n }, (__, c) => (c === j ? 1 : 0)));
    const d = this.lab.explainRow([values], keys, keys, 0, { scale: 1 });
    const safe = Array.from(this.lab.softmax(values).data);
    const inputs = Array.from(d.masked.data);
    const row = (label, cells) => h('tr', {}, h('th', { scope: 'row' }, label), cells.map((c) => h('td', {}, c)));
    // The inputs head their columns: a reader moving down a column hears which x each number belongs to.
    const header = (label, cells) => h('tr', {}, h('th', { scope: 'row' }, label), cells.map((c) => h('th', { scope: 'col' }, c)));
    this.table.hidden = false;
    this.table.replaceChildren(h('caption', { class: 'al-sr' }, 'Softmax computed two ways'),
      h('tbody', {},
        header('input x', inputs.map((x) => num(x, 4))),
        row('naive: e^x (float32)', Array.from(d.expRaw.data, (x) => num(x, 4))),
        row('naive: sum (float32)', [num(d.sumRaw, 4)]),
        row('naive: e^x / sum', Array.from(d.naiveWeights.data, (x) => fixed(x, 4))),
        row(`safe: ${shiftLabel(d.rowMax)}`, Array.from(d.expShifted.data, (x) => num(x, 4))),
        row('safe: softmax', safe.map((x) => fixed(x, 4)))));
    this.frame.dataset.softmax = safe.join(',');
    this.frame.dataset.inputs = inputs.map((x) => num(x, 4)).join(', ');
    const verdict = compare({ values: inputs, expRaw: Array.from(d.expRaw.data), sumRaw: d.sumRaw, naiveWeights: Array.from(d.naiveWeights.data), rowMax: d.rowMax, naiveError: d.naiveError });
    this.message.textContent = verdict.message;
    this.message.dataset.kind = verdict.kind;
  }
}

module.exports = { SoftmaxDemo };
