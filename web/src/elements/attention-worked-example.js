'use strict';
// <attention-worked-example>: one query, two keys, every intermediate number. The weights
// and the output wait for the learner's prediction; a new query (typed into both boxes, or
// confirmed with "Try this query", or the practice query) starts a practice round in which
// the new weight is predicted before the engine's numbers are shown.

const { h, uid, scrollBox } = require('../kit/dom.js');
const { LabElement } = require('../kit/base.js');
const { examples } = require('../kit/engine.js');
const { PredictView } = require('../kit/predict-view.js');
const { judgeNumber } = require('../ui/predict.js');
const { readField, FLOAT32_MAX } = require('../ui/fields.js');
const { FieldNote } = require('../kit/field-note.js');

// The lessons' practice query: its answer is never printed before the learner predicts it.
const PRACTICE_QUERY = [0, 2];
const { num, vector } = require('../ui/format.js');
const { whyText, expOverflows, shiftText } = require('../ui/worked-why.js');

class AttentionWorkedExample extends LabElement {
  static get jsonKeys() { return []; }

  setup(lab, data) {
    const ex = examples(lab).worked;
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

    // What was wrong with a typed query, beside the boxes: the last good numbers stay below it.
    this.note = new FieldNote();
    this.qInputs = [0, 1].map((c) => {
      const input = h('input', { id: uid(), type: 'number', step: '0.5', value: String(this.q[c]), 'aria-label': `query component ${c + 1}` });
      this.note.watch(input);
      // A half-edited query (one box changed) waits: the round starts when both boxes
      // changed or on "Try this query".
      input.addEventListener('change', () => this.guard(() => this.onEdit(false)));
      input.addEventListener('keydown', (e) => { if (e.key === 'Enter') this.guard(() => this.onEdit(true)); });
      return input;
    });
    this.edited = new Set();
    this.tryButton = h('button', { type: 'button', class: 'al-primary', onclick: () => this.guard(() => this.onEdit(true)) }, 'Try this query');
    this.practiceButton = h('button', { type: 'button', onclick: () => this.guard(() => this.startPractice(PRACTICE_QUERY, true)) },
      `Practice query q = [${PRACTICE_QUERY.join(', ')}]`);
    this.editMessage = h('p', { class: 'al-edit-message al-muted', 'aria-live': 'polite' });
    this.announcer = h('p', { class: 'al-sr', 'aria-live': 'polite' });
    this.table = h('table', { class: 'al-table', part: 'table' });
    this.why = h('p', { class: 'al-why' });
    this.shiftNote = h('p', { class: 'al-shift-note' });
    this.outputBox = h('p', { class: 'al-output-line' });
    this.copyPrompt = new PredictView({
      question: 'which value will the output mostly copy?',
      choices: [{ label: 'mostly v\u2081', value: 0 }, { label: 'mostly v\u2082', value: 1 }, { label: 'an even blend', value: 2 }],
      judge: (choice) => this.judgeCopy(choice),
      printAnswer: () => `${this.copyAnswer()}: weights ${vector(this.current.weights.data, 4)}.`,
      onReveal: () => { this.revealed = true; this.render(); this.saveState(); },
    });
    this.practicePrompt = new PredictView({
      question: 'you changed the query. What weight will k\u2081 get now?',
      input: { label: 'w\u2081 =', placeholder: 'e.g. 0.6' },
      judge: (text) => judgeNumber(text, this.current.weights.get(0), 0.02, {
        hint: 'Score the query against each key, scale both scores, then w\u2081 is e to the first divided by the sum of e to each.',
        why: `Scaled scores ${vector(this.current.scaled.data, 4)}; w\u2081 = ${num(this.current.expRaw.get(0), 4)} \u00f7 ${num(this.current.sumRaw, 4)}.`,
      }),
      printAnswer: () => `w\u2081 = ${num(this.current.weights.get(0), 4)}.`,
      onReveal: () => { this.revealed = true; this.render(); this.saveState(); },
    });
    this.copyPrompt.root.setAttribute('part', 'prompt');
    this.practicePrompt.root.setAttribute('part', 'prompt');
    this.practicePrompt.root.hidden = true;
    this.frame.replaceChildren(
      h('div', { class: 'al-controls', part: 'controls' },
        // One group, so that a narrow box wraps before the vector, never inside it.
        h('span', { class: 'al-vector' }, h('span', {}, 'query q = ['), this.qInputs[0], h('span', {}, ','), this.qInputs[1], h('span', {}, ']')),
        this.tryButton, this.practiceButton),
      this.note.el, this.editMessage, this.announcer,
      scrollBox('Numbers', this.table), this.shiftNote, this.copyPrompt.root, this.practicePrompt.root, this.why, this.outputBox);
    this.render();
    this.restore(this.readState());
  }

  viewState() {
    return { q: this.q.slice(), practice: this.practice, revealed: this.revealed, weights: this.revealed ? Array.from(this.current.weights.data) : null };
  }

  /** A shared link with q=a,b opens a practice round on that query. */
  restore(state) {
    if (state.q === undefined) return;
    const q = state.q.split(',').map((t) => readField(t, { label: 'q', min: -FLOAT32_MAX, max: FLOAT32_MAX }).value);
    if (q.length !== 2 || q.includes(undefined) || (q[0] === this.q[0] && q[1] === this.q[1]) || this.refusal(q)) return;
    this.startPractice(q);
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
    return { ok: true, close: right, message: right ? `Right: ${names[truth]}, but still a blend of both.` : `Not quite: it is ${names[truth]}. Why: see below.`,
      hint: 'Work out the score of q against each key: the key with the larger score gets the larger weight, and equal scores share it evenly.' };
  }

  /** Why the weights came out as they did, from the engine's numbers (shown once answered). */
  explainWhy() {
    return whyText(this.current);
  }

  /** A box changed (confirmed = Enter or "Try this query"): start a round once the query is whole. */
  onEdit(confirmed) {
    // Each box is read, and each one refused is marked; the line says why, for all of them.
    const read = this.qInputs.map((input, c) => readField(input.value, { label: `Query box ${c + 1}`, min: -FLOAT32_MAX, max: FLOAT32_MAX }, input.validity.badInput));
    const errors = read.filter((r) => r.error).map((r) => r.error).join(' ');
    read.forEach((r, c) => (r.error ? this.note.refuse(this.qInputs[c], errors) : this.note.accept(this.qInputs[c])));
    if (errors) return;
    const q = read.map((r) => r.value);
    q.forEach((x, c) => { if (x !== this.q[c]) this.edited.add(c); });
    this.editMessage.textContent = '';
    if (q[0] === this.q[0] && q[1] === this.q[1]) return;
    if (!confirmed && this.edited.size < 2) {
      this.editMessage.textContent = 'Change the other box too, or press "Try this query", to start a practice round.';
      return;
    }
    // The engine may still refuse a query it cannot hold (a score past float32): said beside
    // the boxes, and the last good numbers stay.
    const refused = this.refusal(q);
    if (refused) {
      this.note.refuse(this.qInputs[0], refused);
      return;
    }
    this.startPractice(q, true);
  }

  /** Why the engine cannot take query q ('' when it can): a score or sum past float32, say. */
  refusal(q) {
    try {
      this.lab.explainRow([q], this.K, this.V, 0);
      return '';
    } catch (err) {
      return `The engine cannot take q = [${q.join(', ')}]: ${err.message.replace(/^explainRow: /, '')}`;
    }
  }

  /**
   * announce: the reader started the round (not a shared link on load). Focus stays where it
   * was, so a screen reader hears of the new question from the live line instead.
   */
  startPractice(q, announce = false) {
    this.qInputs.forEach((input, c) => { input.value = String(q[c]); });
    this.edited.clear();
    this.editMessage.textContent = '';
    this.q = q.slice();
    this.practice = true;
    this.revealed = false;
    this.copyPrompt.root.hidden = true;
    this.practicePrompt.root.hidden = false;
    this.practicePrompt.reset();
    this.render();
    // Written even when the words repeat: each round started is news.
    this.announcer.textContent = announce ? `Practice round for q = [${q.join(', ')}]: the numbers below are hidden until you answer. `
      + `Predict first: ${this.practicePrompt.questionText.textContent}` : '';
    this.saveState({ q: this.q.join(',') });
  }

  render() {
    const d = this.lab.explainRow([this.q], this.K, this.V, 0);
    this.current = d;
    const hide = !this.revealed;
    // Before the answer, what gives it away (exps, their sum, the weights) is not in the page
    // at all; in a practice round the scores are hidden too, since they were not asked about.
    const blank = () => h('span', { class: 'al-hidden-answer' }, '?', h('span', { class: 'al-sr' }, ' (shown once you answer)'));
    const maskAll = (text) => (hide && this.practice ? blank() : text);
    const maskAnswer = (text) => (hide ? blank() : text);
    const k = this.K, v = this.V;
    const row = (label, cells, cls) => h('tr', { class: cls || '' }, h('th', { scope: 'row' }, label), cells.map((c) => h('td', {}, c)));
    const overflow = expOverflows(d);
    this.table.replaceChildren(
      h('caption', { class: 'al-sr' }, 'Every number of the worked example'),
      h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', { scope: 'col' }, 'key 1'), h('th', { scope: 'col' }, 'key 2'))),
      h('tbody', {},
        row('key k', [vector(k[0], 2), vector(k[1], 2)]),
        row('value v', [vector(v[0], 2), vector(v[1], 2)]),
        row('score q\u00b7k', [num(d.scores.get(0), 4), num(d.scores.get(1), 4)].map(maskAll)),
        row(`scaled \u00d7 ${num(d.scale, 4)}`, [num(d.scaled.get(0), 4), num(d.scaled.get(1), 4)].map(maskAll)),
        row('exp', [num(d.expRaw.get(0), 4), num(d.expRaw.get(1), 4)].map(maskAnswer)),
        row('sum of exps', [maskAnswer(num(d.sumRaw, 4)), '']),
        // When e^s overflows, the max-shift the engine uses instead, beside the overflowed row
        // (once answered: before, the row alone would say how the weights come out).
        ...(overflow && !hide ? [row('exp(s \u2212 max)', [num(d.expShifted.get(0), 4), num(d.expShifted.get(1), 4)].map(maskAnswer)),
          row('sum of those', [maskAnswer(num(d.sumShifted, 4)), ''])] : []),
        row('weight', [num(d.weights.get(0), 4), num(d.weights.get(1), 4)].map(maskAnswer), 'al-current')));
    this.shiftNote.textContent = overflow && !hide ? shiftText(d) : '';
    this.shiftNote.hidden = !overflow || hide;
    if (hide) delete this.frame.dataset.weights;
    else this.frame.dataset.weights = Array.from(d.weights.data).join(',');
    this.why.textContent = hide ? '' : this.explainWhy();
    this.outputBox.replaceChildren(hide
      ? h('span', { class: 'al-muted' }, 'The weights and the output: answer the question above to see them.')
      : h('span', {}, h('strong', {}, 'output = '), h('span', { class: 'al-output' }, vector(d.output.data, 4)),
        ` = ${num(d.weights.get(0), 4)} \u00d7 v\u2081 + ${num(d.weights.get(1), 4)} \u00d7 v\u2082`));
  }
}

module.exports = { AttentionWorkedExample };
