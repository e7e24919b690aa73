'use strict';
// A predict-first prompt: a question, a way to answer (choices, a typed number, or a
// picked cell elsewhere in the widget), and a reveal that shows the engine's answer. A wrong
// first answer gets a hint and another try (ui/predict.js decides); the answer and its reason
// come with a right answer, the second wrong one, or the skip button.

const { h, uid } = require('./dom.js');
const { attempt, TRIES } = require('../ui/predict.js');
const { answerSlot } = require('./print.js');

class PredictView {
  /**
   * @param opts { question, choices?: [{ label, value }], input?: { label, placeholder },
   *   judge(answer) -> { ok, close, message, hint } (ok=false: not an answer, asked again; hint:
   *   what a first wrong answer is told, without the answer), onReveal?(answer or null),
   *   skip?: label of a button that reveals without an answer, skipMessage?() -> what it revealed,
   *   printAnswer?() -> the answer, listed in the printed page's "Answers" section,
   *   help?: a line under the controls saying how to answer (a cell picked elsewhere) }
   */
  constructor(opts) {
    this.opts = opts;
    this.revealed = false;
    this.misses = 0;
    const qid = uid('al-q'), vid = uid('al-v');
    this.verdict = h('p', { id: vid, 'aria-live': 'polite' });
    const controls = [];
    if (opts.choices) {
      controls.push(h('div', { class: 'al-group', role: 'group', 'aria-labelledby': qid },
        opts.choices.map((c) => h('button', { type: 'button', onclick: () => this.answer(c.value) }, c.label))));
    }
    if (opts.input) {
      const id = uid('al-in');
      // The label is short ("w\u2081 ="): the question says what to type, the verdict what was wrong with it.
      this.input = h('input', { id, type: 'text', inputmode: 'decimal', placeholder: opts.input.placeholder || '', autocomplete: 'off', 'aria-describedby': `${qid} ${vid}` });
      this.input.addEventListener('keydown', (e) => { if (e.key === 'Enter') this.answer(this.input.value); });
      controls.push(h('div', { class: 'al-group' }, h('label', { for: id }, opts.input.label), this.input,
        h('button', { type: 'button', class: 'al-primary', onclick: () => this.answer(this.input.value) }, 'Check')));
    }
    if (opts.help) controls.push(h('p', { class: 'al-muted' }, opts.help));
    if (opts.skip) {
      controls.push(h('p', {}, h('button', { type: 'button', class: 'al-skip', onclick: () => this.skip() }, opts.skip)));
    }
    this.questionText = h('span', {}, opts.question);
    const slot = opts.printAnswer ? answerSlot(() => ({ question: this.questionText.textContent, answer: opts.printAnswer() })) : null;
    this.root = h('div', { class: 'al-predict' }, h('p', { id: qid }, h('strong', {}, 'Predict first: '), this.questionText), controls, this.verdict, slot);
  }

  /** Rewords the question (the widget's data changed, e.g. the reader's own sentence). */
  setQuestion(text) {
    this.questionText.textContent = text;
  }

  /** Reveals without an answer; opts.skipMessage() (if given) says what was shown, through the live verdict line. */
  skip() {
    this.revealed = true;
    this.opts.onReveal(null);
    if (this.opts.skipMessage) this.verdict.replaceChildren(h('span', {}, this.opts.skipMessage()));
  }

  /** Shows a judged answer's verdict: a hint and another try after a first miss, else the answer (ui/predict.js attempt). */
  answer(value) {
    const result = this.opts.judge(value);
    // Once the answer is out, a further answer is simply judged, with the answer and its reason.
    const step = attempt(result, this.revealed ? TRIES : this.misses);
    if (!this.revealed) this.misses = step.misses;
    const good = step.kind === 'right';
    this.verdict.replaceChildren(h('span', { class: good ? 'al-verdict-ok' : step.kind === 'hint' ? 'al-verdict-hint' : 'al-verdict-bad' }, step.message));
    if (this.input) this.input.setAttribute('aria-invalid', String(step.kind === 'invalid'));
    if (step.reveal && !this.revealed) {
      this.revealed = true;
      if (this.opts.onReveal) this.opts.onReveal(value);
    }
    return step;
  }

  reset() {
    this.revealed = false;
    this.misses = 0;
    this.verdict.replaceChildren();
    if (this.input) {
      this.input.value = '';
      this.input.removeAttribute('aria-invalid');
    }
  }
}

module.exports = { PredictView };
