'use strict';
// A predict-first prompt: a question, a way to answer (choices, a typed number, or a
// picked cell elsewhere in the widget), and a reveal that shows the engine's answer.

const { h, uid } = require('./dom.js');

class PredictView {
  /**
   * @param opts { question, choices?: [{ label, value }], input?: { label, placeholder },
   *   judge(answer) -> { ok, close, message } (message shown; ok=false keeps asking),
   *   onReveal?(), skip?: label of a button that reveals without an answer, skipMessage?() -> what it revealed,
   *   printAnswer?() -> the answer, printed as "answer: ..." (see refreshPrint) }
   */
  constructor(opts) {
    this.opts = opts;
    this.revealed = false;
    const qid = uid('al-q');
    this.verdict = h('p', { 'aria-live': 'polite' });
    const controls = [];
    if (opts.choices) {
      controls.push(h('div', { class: 'al-group', role: 'group', 'aria-labelledby': qid },
        opts.choices.map((c) => h('button', { type: 'button', onclick: () => this.answer(c.value) }, c.label))));
    }
    if (opts.input) {
      const id = uid('al-in');
      // The label is short ("w\u2081 ="): the question says what to type.
      this.input = h('input', { id, type: 'text', inputmode: 'decimal', placeholder: opts.input.placeholder || '', autocomplete: 'off', 'aria-describedby': qid });
      this.input.addEventListener('keydown', (e) => { if (e.key === 'Enter') this.answer(this.input.value); });
      controls.push(h('div', { class: 'al-group' }, h('label', { for: id }, opts.input.label), this.input,
        h('button', { type: 'button', class: 'al-primary', onclick: () => this.answer(this.input.value) }, 'Check')));
    }
    if (opts.hint) controls.push(h('p', { class: 'al-muted' }, opts.hint));
    if (opts.skip) {
      controls.push(h('p', {}, h('button', { type: 'button', class: 'al-skip', onclick: () => this.skip() }, opts.skip)));
    }
    this.printAnswer = opts.printAnswer ? h('p', { class: 'al-print-answer' }) : null;
    this.questionText = h('span', {}, opts.question);
    this.root = h('div', { class: 'al-predict' }, h('p', { id: qid }, h('strong', {}, 'Predict first: '), this.questionText), controls, this.verdict, this.printAnswer);
  }

  /** Rewords the question (the widget's data changed, e.g. the reader's own sentence). */
  setQuestion(text) {
    this.questionText.textContent = text;
  }

  /** Fills the print-only answer; widgets call it whenever the answer may have changed. */
  refreshPrint() {
    if (this.printAnswer) this.printAnswer.textContent = `answer: ${this.opts.printAnswer()}`;
  }

  /** Reveals without an answer; opts.skipMessage() (if given) says what was shown, through the live verdict line. */
  skip() {
    this.revealed = true;
    this.opts.onReveal(null);
    if (this.opts.skipMessage) this.verdict.replaceChildren(h('span', {}, this.opts.skipMessage()));
  }

  answer(value) {
    const result = this.opts.judge(value);
    this.verdict.replaceChildren(h('span', { class: result.close ? 'al-verdict-ok' : 'al-verdict-bad' }, result.message));
    if (result.ok && !this.revealed) {
      this.revealed = true;
      if (this.opts.onReveal) this.opts.onReveal(value);
    }
    return result;
  }

  reset() {
    this.revealed = false;
    this.verdict.replaceChildren();
    if (this.input) this.input.value = '';
  }
}

module.exports = { PredictView };
