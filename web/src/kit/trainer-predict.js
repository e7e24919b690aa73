'use strict';
// <attention-trainer>'s predict-first questions and their verdict: before training on the
// induction task, which layer will hold the induction head and what the loss curve will do
// (ui/training-log.js has the questions and judgeRun); after, what happened, once the run says.
// A new task or number of layers asks again: the prediction was about the old model.

const { h, uid } = require('./dom.js');
const { layerChoices, judgeRun, LAYER_QUESTION, CURVE_QUESTION, CURVE_CHOICES } = require('../ui/training-log.js');
const { counted } = require('../ui/format.js');

const fresh = () => ({ layer: null, curve: null, committed: false, skipped: false });

function labelOf(choices, value) {
  const c = choices.find((x) => x.value === value);
  return c ? c.label : '';
}

class TrainerPredict {
  /** @param w the <attention-trainer> (its st, log, maxSteps, trainButton, guard and say) */
  constructor(w, on) {
    this.w = w;
    this.on = on;
    this.p = fresh();
    this.box = h('section', { class: 'al-predict al-trainer-predict', part: 'prompt' });
    this.reveal = h('section', { class: 'al-trainer-reveal', hidden: true, 'aria-live': 'polite' });
  }

  /** Whether the questions apply: asked, and the induction task (its outcome is what they are about). */
  get shown() { return this.on && this.w.st.task === 'induction'; }

  /** The questions again, unanswered. */
  askAgain() {
    this.p = fresh();
    this.render();
  }

  /** Training started with the questions unanswered: they go. */
  skipUnanswered() {
    if (this.shown && !this.p.committed && !this.p.skipped) {
      this.p.skipped = true;
      this.render();
    }
  }

  /** Nothing of the last run is left to read. */
  hideVerdict() {
    this.reveal.hidden = true;
    this.verdictKey = null;
  }

  render() {
    const { w, p, box } = this;
    box.hidden = !this.shown;
    if (box.hidden) return;
    if (p.committed || p.skipped) {
      box.replaceChildren(p.committed
        ? h('p', {}, h('strong', {}, 'Your prediction: '), `${labelOf(layerChoices(w.st.layers), p.layer)}; the loss will ${labelOf(CURVE_CHOICES, p.curve)}.`,
          this.reveal.hidden ? ' Train to see.' : ' What happened is below the heads.')
        : h('p', { class: 'al-muted' }, 'Training without a prediction.'));
      box.hidden = p.skipped;
      return;
    }
    const group = (name, question, choices, key) => {
      const qid = uid('al-q');
      return h('fieldset', { class: 'al-trainer-question' }, h('legend', { id: qid }, h('strong', {}, 'Predict: '), question),
        choices.map((c) => {
          const id = uid('al-r');
          return h('label', { for: id, class: 'al-check' },
            h('input', { type: 'radio', id, name, value: c.value, checked: p[key] === c.value, onchange: () => { p[key] = c.value; commit.disabled = !(p.layer && p.curve); } }), c.label);
        }));
    };
    const name = uid('al-p');
    const commit = h('button', { type: 'button', class: 'al-primary', disabled: !(p.layer && p.curve), onclick: () => w.guard(() => {
      p.committed = true;
      this.render();
      w.trainButton.focus();
      w.say('Prediction saved. Press Train.');
    }) }, 'Lock in my prediction');
    box.replaceChildren(
      h('p', {}, `Before you train: the model has ${counted(w.st.layers, 'layer')} of ${counted(w.st.heads, 'head')} and sees a block of random tokens followed by its repeat. It is scored on the repeat.`),
      group(`${name}-layer`, LAYER_QUESTION, layerChoices(w.st.layers), 'layer'),
      group(`${name}-curve`, CURVE_QUESTION, CURVE_CHOICES, 'curve'),
      h('p', {}, commit, ' ', h('button', { type: 'button', class: 'al-skip', onclick: () => w.guard(() => { p.skipped = true; this.render(); w.trainButton.focus(); }) }, 'Skip the prediction')));
  }

  /** What happened, once the run's log can say it (judgeRun), against a locked-in prediction. */
  renderVerdict() {
    const { w, p } = this;
    if (!p.committed) {
      this.reveal.hidden = true;
      return;
    }
    const verdict = judgeRun(w.log, p, { patience: Math.min(w.maxSteps, 1000) });
    if (!verdict) {
      this.hideVerdict();
      return;
    }
    const line = (v) => v && h('p', { class: v.ok ? 'al-verdict-ok' : 'al-verdict-bad' }, v.message);
    const key = [verdict.layer, verdict.curve].map((v) => v && v.message).join('|');
    if (key === this.verdictKey) return;
    this.verdictKey = key;
    this.reveal.replaceChildren(h('h4', {}, 'What happened'), line(verdict.layer), line(verdict.curve) || h('p', { class: 'al-muted' }, 'The loss curve: said once its shape is clear.'));
    const first = this.reveal.hidden;
    this.reveal.hidden = false;
    if (first) this.render();
  }
}

module.exports = { TrainerPredict };
