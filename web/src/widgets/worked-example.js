'use strict';
// <attention-worked-example>: one query, two keys, every intermediate number. The output
// waits for the learner's prediction; editing the query starts a practice round in which
// the new weight is predicted before the engine's numbers are shown.

const { h, uid, scrollBox } = require('./dom.js');
const { LabElement } = require('./base.js');
const { PredictView } = require('./predict-view.js');
const { judgeNumber } = require('../ui/predict.js');
const { num, vector } = require('../ui/format.js');

class AttentionWorkedExample extends LabElement {
  static get jsonKeys() { return []; }

  setup(lab, data) {
    const ex = lab.examples().worked;
    const nested = (t) => (Array.isArray(t) ? t : new lab.Tensor(t.shape, Float32Array.from(t.data)).toArray());
    this.K = nested(data.K || ex.K);
    this.V = nested(data.V || ex.V);
    const Q = nested(data.Q || ex.Q);
    if (Q.length !== 1 || !Array.isArray(Q[0]) || Q[0].length !== 2) {
      throw new Error(`Q must be one query of two numbers, like [[1, 0]]; got ${JSON.stringify(Q)}`);
    }
    if (this.K.length !== 2 || this.V.length !== 2) throw new Error('K and V must have two rows each (two keys, two values)');
    this.q = Q[0].slice();
    this.revealed = false;
    this.practice = false;

    this.qInputs = [0, 1].map((c) => {
      const id = uid();
      const input = h('input', { id, type: 'number', step: '0.5', value: String(this.q[c]), 'aria-label': `query component ${c + 1}` });
      input.addEventListener('change', () => this.guard(() => this.onEdit()));
      return input;
    });
    this.table = h('table', { class: 'al-table', part: 'table' });
    this.outputBox = h('p', { class: 'al-output-line' });
    this.copyPrompt = new PredictView({
      question: 'which value will the output mostly copy?',
      choices: [{ label: 'mostly v\u2081', value: 0 }, { label: 'mostly v\u2082', value: 1 }, { label: 'an even blend', value: 2 }],
      judge: (choice) => this.judgeCopy(choice),
      printAnswer: () => `${this.copyAnswer()}: weights ${vector(this.current.weights.data, 4)}.`,
      onReveal: () => { this.revealed = true; this.render(); },
    });
    this.practicePrompt = new PredictView({
      question: 'you changed the query. What weight will k\u2081 get now?',
      input: { label: 'w\u2081 =', placeholder: 'e.g. 0.6' },
      judge: (text) => judgeNumber(text, this.current.weights.get(0), 0.02),
      printAnswer: () => `w\u2081 = ${num(this.current.weights.get(0), 4)}.`,
      onReveal: () => { this.revealed = true; this.render(); },
    });
    this.practicePrompt.root.hidden = true;
    this.frame.replaceChildren(
      h('div', { class: 'al-controls', part: 'controls' }, h('span', {}, 'query q = ['), this.qInputs[0], h('span', {}, ','), this.qInputs[1], h('span', {}, ']'),
        h('span', { class: 'al-muted' }, 'edit it to practise')),
      scrollBox('Numbers', this.table), this.copyPrompt.root, this.practicePrompt.root, this.outputBox);
    this.render();
    this.restore(this.readState());
  }

  viewState() {
    return { q: this.q.slice(), practice: this.practice, revealed: this.revealed, weights: this.revealed || !this.practice ? Array.from(this.current.weights.data) : null };
  }

  /** A shared link with q=a,b opens a practice round on that query. */
  restore(state) {
    if (state.q === undefined) return;
    const q = state.q.split(',').map(Number);
    if (q.length !== 2 || q.some((x) => !Number.isFinite(x)) || (q[0] === this.q[0] && q[1] === this.q[1])) return;
    this.qInputs.forEach((input, c) => { input.value = String(q[c]); });
    this.onEdit();
  }

  copyTruth() {
    const w = this.current.weights;
    return Math.abs(w.get(0) - w.get(1)) < 0.1 ? 2 : w.get(0) > w.get(1) ? 0 : 1;
  }

  copyAnswer() {
    return ['mostly v\u2081', 'mostly v\u2082', 'an even blend'][this.copyTruth()];
  }

  judgeCopy(choice) {
    const truth = this.copyTruth();
    const names = ['v\u2081', 'v\u2082', 'an even blend'];
    const right = choice === truth;
    return { ok: true, close: right, message: right ? `Right: ${names[truth]}, but still a blend of both.` : `Not quite: it is ${names[truth]}. See the weights below.` };
  }

  onEdit() {
    const q = this.qInputs.map((input) => Number(input.value));
    if (q.some((x) => !Number.isFinite(x))) {
      this.outputBox.textContent = 'Type a number in both query boxes.';
      return;
    }
    this.q = q;
    this.practice = true;
    this.revealed = false;
    this.copyPrompt.root.hidden = true;
    this.practicePrompt.root.hidden = false;
    this.practicePrompt.reset();
    this.render();
    this.saveState({ q: this.q.join(',') });
  }

  render() {
    const d = this.lab.explainRow([this.q], this.K, this.V, 0);
    this.current = d;
    const hide = !this.revealed;
    const masked = (text) => (hide && this.practice ? '?' : text);
    const k = this.K, v = this.V;
    const row = (label, cells, cls) => h('tr', { class: cls || '' }, h('th', { scope: 'row' }, label), cells.map((c) => h('td', {}, c)));
    this.table.replaceChildren(
      h('caption', { class: 'al-sr' }, 'Every number of the worked example'),
      h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', { scope: 'col' }, 'key 1'), h('th', { scope: 'col' }, 'key 2'))),
      h('tbody', {},
        row('key k', [vector(k[0], 2), vector(k[1], 2)]),
        row('value v', [vector(v[0], 2), vector(v[1], 2)]),
        row('score q\u00b7k', [num(d.scores.get(0), 4), num(d.scores.get(1), 4)].map(masked)),
        row(`scaled \u00d7 ${num(d.scale, 4)}`, [num(d.scaled.get(0), 4), num(d.scaled.get(1), 4)].map(masked)),
        row('exp', [num(d.expRaw.get(0), 4), num(d.expRaw.get(1), 4)].map(masked)),
        row('sum of exps', [masked(num(d.sumRaw, 4)), '']),
        row('weight', [num(d.weights.get(0), 4), num(d.weights.get(1), 4)].map(masked), 'al-current')));
    this.frame.dataset.weights = Array.from(d.weights.data).join(',');
    this.copyPrompt.refreshPrint();
    this.practicePrompt.refreshPrint();
    this.outputBox.replaceChildren(hide
      ? h('span', { class: 'al-muted' }, 'Output: answer the question above to see it.')
      : h('span', {}, h('strong', {}, 'output = '), h('span', { class: 'al-output' }, vector(d.output.data, 4)),
        ` = ${num(d.weights.get(0), 4)} \u00d7 v\u2081 + ${num(d.weights.get(1), 4)} \u00d7 v\u2082`));
  }
}

module.exports = { AttentionWorkedExample };
