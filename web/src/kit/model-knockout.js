'use strict';
// <model-attention model>'s knock-out view: the learner picks heads of the model to knock out
// on their own text (a button per head, pressed while knocked out; zero or mean), predicts
// first whether the top guess survives, and then sees the engine's answer (model.ablate):
// the five likeliest next tokens and the loss, as the model is and without those heads.
// Methods of the element (mixed into its prototype); the words are ui/knockout.js's.

const { h, uid, setText } = require('./dom.js');
const { PredictView } = require('./predict-view.js');
const { exportMenu } = require('./export-menu.js');
const { modelGuesses } = require('../ui/model-text.js');
const ko = require('../ui/knockout.js');

const modelKnockout = {
  /** Builds the knock-out panel (model mode only); its tab shows from now on. */
  buildKnockout() {
    const { layers, heads: perLayer } = this.languageModel.options;
    // asked: the knock-outs (heads and text) already predicted; skipped: the learner chose to see results without predicting.
    this.ko = { heads: [], mode: 'zero', asked: new Set(), skipped: false, result: null, problem: '' };
    const name = uid('al-mode');
    this.koModes = ko.MODES.map((mode) => h('input', { type: 'radio', name, value: mode, checked: mode === 'zero',
      onchange: () => this.guard(() => this.knockoutMode(mode)) }));
    this.koButtons = [];
    const grid = h('div', { class: 'al-ko-grid', role: 'group', 'aria-label': 'Heads to knock out: press a head to knock it out, again to put it back' });
    for (let l = 0; l < layers; l++) {
      const row = [];
      for (let hd = 0; hd < perLayer; hd++) {
        const b = h('button', { type: 'button', class: 'al-ko-head', 'aria-pressed': 'false', 'aria-label': `Knock out layer ${l}, head ${hd}`,
          onclick: () => this.guard(() => this.knockoutToggle(l, hd)) }, String(hd));
        this.koButtons.push(b);
        row.push(b);
      }
      grid.append(h('div', { class: 'al-ko-layer' }, h('span', { class: 'al-ko-layer-name' }, `Layer ${l}, head`), row));
    }
    this.koClear = h('button', { type: 'button', onclick: () => this.guard(() => this.knockoutSet([])) }, 'Put every head back');
    this.koStatus = h('p', { class: 'al-ko-status' });
    this.koLimit = h('p', { class: 'al-ko-limit', role: 'alert' });
    this.koAsk = h('div', {});
    this.koSentence = h('p', { tabindex: '-1', 'aria-live': 'polite' });
    this.koLoss = h('tbody', {});
    this.koNote = h('p', { class: 'al-muted' });
    this.koAfter = h('ol', { class: 'al-ko-guesses' });
    this.koResult = h('div', { class: 'al-ko-result', hidden: true },
      this.koSentence,
      h('table', { class: 'al-table al-ko-loss' }, h('caption', { class: 'al-muted' }, 'Loss in nats per predicted token (lower is better)'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Loss'), h('th', { scope: 'col' }, 'As it is'), h('th', { scope: 'col' }, 'Knocked out'), h('th', { scope: 'col' }, 'Change'))), this.koLoss),
      this.koNote,
      // As it is, the guesses are the list above the views.
      h('p', { class: 'al-model-guess-title' }, 'Its five likeliest next tokens after the knock-out:'), this.koAfter,
      h('div', { class: 'al-chart-tools' }, exportMenu(() => ko.knockoutFigure(this.ko.result, this.shownText), { label: 'knock-out' }).root));
    this.panels.knockout.append(
      h('p', { class: 'al-muted' }, 'A weight says where a head read; a knock-out says whether that mattered. Press heads to knock them out on your text and see whether the guesses and the loss move.'),
      h('div', { class: 'al-group al-ko-modes', role: 'radiogroup', 'aria-label': 'How a knocked-out head is replaced' },
        this.koModes.map((input, k) => h('label', {}, input, ` ${ko.MODE_WORDS[ko.MODES[k]]}`))),
      grid, h('p', {}, this.koClear), this.koLimit, this.koAsk, this.koStatus, this.koResult);
    this.tabs.knockout.hidden = false;
    this.knockoutUpdate();
  },

  knockoutToggle(l, hd) {
    this.knockoutSet(ko.toggleHead(this.ko.heads, l, hd));
  },

  knockoutMode(mode) {
    this.ko.mode = mode;
    for (const input of this.koModes) input.checked = input.value === mode;
    this.knockoutUpdate();
    this.saveState();
  },

  /** Knocks out exactly `heads` (sorted [layer, head] pairs) and shows what changed. */
  knockoutSet(heads, save = true) {
    this.ko.heads = heads;
    this.ko.problem = '';
    this.knockoutUpdate();
    if (save) this.saveState();
  },

  /** The engine's knock-out of the chosen heads on the text shown (both runs: as it is, and without them), kept for the same question. */
  /** Which knock-out a prediction is about: the heads and the text (not the mode). */
  knockoutKey() {
    return `${ko.formatHeads(this.ko.heads)} ${this.shownText}`;
  },

  knockoutRun() {
    const key = `${this.ko.mode} ${ko.formatHeads(this.ko.heads)} ${this.shownText}`;
    if (!this.koLast || this.koLast.key !== key) {
      this.koLast = { key, r: this.languageModel.ablate(this.shownText, { heads: this.ko.heads, mode: this.ko.mode, truncate: true }) };
    }
    return this.koLast.r;
  },

  /** Redraws the panel for the chosen heads, the mode and the text shown. */
  knockoutUpdate() {
    if (!this.ko) return;
    const { layers, heads: perLayer } = this.languageModel.options;
    const heads = this.ko.heads;
    this.koButtons.forEach((b, k) => b.setAttribute('aria-pressed', String(heads.some(([l, hd]) => l * perLayer + hd === k))));
    setText(this.koLimit, [this.ko.problem, ko.knockoutLimit(heads, layers, perLayer)].filter(Boolean).join(' '));
    this.ko.result = null;
    if (!heads.length) {
      this.knockoutAsk(null);
      this.koResult.hidden = true;
      setText(this.koStatus, 'No head is knocked out: the model is as it is. Press a head above.');
      return;
    }
    if (!this.ko.skipped && !this.ko.asked.has(this.knockoutKey())) {
      // Predict first, for each new set of heads on each text: the result waits for an answer (or a skip, after which nothing is asked).
      this.knockoutAsk(ko.knockoutQuestion(heads, this.ko.mode));
      this.koResult.hidden = true;
      setText(this.koStatus, '');
      return;
    }
    this.knockoutAsk(null);
    const r = this.ko.result = this.knockoutRun();
    const o = ko.knockoutOutcome(r);
    setText(this.koSentence, o.sentence);
    this.koLoss.replaceChildren(...o.losses.map((x) => h('tr', {}, h('th', { scope: 'row' }, x.label), h('td', {}, x.before), h('td', {}, x.after), h('td', {}, x.change))));
    setText(this.koNote, o.note);
    this.koAfter.replaceChildren(...this.guessItems(modelGuesses({ next: r.next }, this.languageModel.maxTokens).items));
    this.koResult.hidden = false;
    setText(this.koStatus, '');
  },

  /** Shows the predict-first question `q` (null: none) above the result. */
  knockoutAsk(q) {
    if (!q) {
      this.koQuestion = null;
      this.koAsk.replaceChildren();
      return;
    }
    if (this.koQuestion) {
      // another set of heads (or mode): a question of its own, asked afresh (the choices keep the focus;
      // no miss or verdict of the last question carries over)
      if (this.koQuestion.questionText.textContent !== q.question) {
        this.koQuestion.setQuestion(q.question);
        this.koQuestion.reset();
      }
      return;
    }
    this.koQuestion = new PredictView({
      question: q.question,
      choices: q.choices,
      judge: (value) => ko.judgeKnockout(value, this.knockoutRun()),
      onReveal: (value) => {
        if (value === null) this.ko.skipped = true;
        else this.ko.asked.add(this.knockoutKey());
        this.frame.classList.remove('al-ko-asking');
        const verdict = this.koQuestion.verdict;
        const focused = this.koAsk.contains(this.shadowRoot.activeElement);
        this.knockoutUpdate();
        // The verdict stays in view above the result it judged; the focus, on a choice that is gone, goes to the result.
        this.koAsk.replaceChildren(verdict);
        if (focused) this.koSentence.focus();
      },
      skip: 'Show the result without predicting',
      printAnswer: () => ko.knockoutOutcome(this.knockoutRun()).sentence,
    });
    this.koAsk.replaceChildren(this.koQuestion.root);
  },

  /** The knock-out in a link: ko (the heads, "0.2-1.3") and km (the mode, when mean). */
  knockoutLink() {
    return this.ko ? { ko: ko.formatHeads(this.ko.heads) || undefined, km: this.ko.mode === 'zero' ? undefined : this.ko.mode } : {};
  },

  /** A link's knock-out (never an error: what names no head is left out, and said). */
  knockoutRestore(s) {
    if (!this.ko) return;
    const { layers, heads: perLayer } = this.languageModel.options;
    const { heads, problem } = ko.parseHeads(s.ko, layers, perLayer);
    this.ko.mode = ko.MODES.includes(s.km) ? s.km : 'zero';
    for (const input of this.koModes) input.checked = input.value === this.ko.mode;
    this.ko.heads = heads;
    this.ko.problem = problem;
    this.knockoutUpdate();
  },
};

module.exports = { modelKnockout };
