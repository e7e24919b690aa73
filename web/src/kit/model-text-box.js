'use strict';
// <model-attention model>: the learner's own text read by the shipped model. The text box (Enter
// reads it, Shift+Enter types a line break, a long paste is cut and said), the model's guesses
// for the next token, the note on characters outside its alphabet, and the predict-first question
// on where the strongest induction head looks. Methods of the element (mixed into its prototype),
// kept apart from the pasted-data side they share the views with.

const { h, uid, setText } = require('./dom.js');
const { FieldNote } = require('./field-note.js');
const { PredictView } = require('./predict-view.js');
const { readAuthorData } = require('../ui/author-data.js');
const { pattern, MAX_JSON_LENGTH } = require('../ui/attention-data.js');
const { counted } = require('../ui/format.js');
const { inductionQuestion, inductionHead } = require('../ui/induction-question.js');
const { modelGuesses, modelAbout, modelLabels, unknownNote, cutNote, KEYS_HINT, DEFAULT_TEXT, MAX_TEXT } = require('../ui/model-text.js');

const TYPING_MS = 250;  // the text box redraws this long after the last key

// One loaded model per lab and name, shared by the widgets of a page (a model is read once).
const models = new WeakMap();
function sharedModel(lab, name) {
  let byName = models.get(lab);
  if (!byName) models.set(lab, byName = new Map());
  if (!byName.has(name)) byName.set(name, lab.loadModel(name || undefined));
  return byName.get(name);
}

const modelText = {
  /**
   * Model mode: loads the model (its script must be on the page), builds the text box and
   * returns the attention data of the first text (the URL's, the text attribute's, or ours).
   */
  startModel(lab, name) {
    const tag = this.localName;
    try {
      this.languageModel = sharedModel(lab, name);
    } catch (err) {
      throw new Error(`<${tag}>: model="${name}" cannot be loaded: ${err.message.replace(/^loadModel: /, '')}`);
    }
    const id = uid();
    // data-al-text: a box for any text (the hostile-input test expects words to be taken).
    // A text area of two lines, so the whole sentence shows on a phone; Enter reads it at once,
    // Shift+Enter types a line break. No maxlength: a longer paste is cut here, and said.
    this.textInput = h('textarea', { id, class: 'al-model-text', rows: '2', spellcheck: 'false', autocomplete: 'off', 'data-al-text': '',
      oninput: () => this.guard(() => this.typed()),
      onkeydown: (e) => { if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); this.guard(() => this.typed(0)); } } });
    this.note = new FieldNote();
    this.note.watch(this.textInput);
    // What the box did to the text (cut it) and what the model cannot read (characters outside its alphabet).
    this.textNote = h('p', { class: 'al-muted al-model-note', 'aria-live': 'polite' });
    this.cut = '';
    this.guessList = h('ol', { class: 'al-model-guesses' });
    this.guessTitle = h('p', { class: 'al-model-guess-title' });
    this.modelLine = h('p', { class: 'al-muted' }, modelAbout(this.languageModel));
    this.inputRow.replaceChildren(
      // The keys are said in the label: part of the box's name, not a message about its text.
      h('label', { for: id, class: 'al-model-label' }, 'Your text', h('span', { class: 'al-muted al-model-keys' }, ` ${KEYS_HINT}`)), this.textInput,
      this.note.el, this.textNote,
      h('div', { class: 'al-model-guess-box', part: 'guesses' }, this.guessTitle, this.guessList), this.modelLine);
    this.inputRow.hidden = false;
    const state = this.readState();
    const text = typeof state.text === 'string' && state.text.trim() ? state.text.slice(0, MAX_TEXT) : this.attr('text', DEFAULT_TEXT);
    this.textInput.value = text;
    const r = this.readText(text);
    if (!r) throw new Error(`<${tag}>: text is empty; expected a sentence for the model to read`);
    this.shownText = text;
    this.showGuesses(r);
    this.unknown = r.unknown;
    this.showTextNote(r.unknown);
    this.buildKnockout();
    return r.data;
  },

  /**
   * The model's reading of `text`: { data (what the views take), guesses, truncated }, or null
   * when the text is refused (said beside the box; the views keep the last good text).
   */
  readText(text) {
    if (!text.trim()) {
      this.note.refuse(this.textInput, 'The text is empty: type a sentence, for example one that repeats a phrase. The views and guesses below are still those of the last text.');
      return null;
    }
    this.note.accept(this.textInput);
    const a = this.languageModel.attention(text, { truncate: true });
    const p = this.languageModel.predict(text, { truncate: true });
    // Characters outside the model's alphabet all become its one unknown piece: drawn as that piece, and said.
    const { labels, unknown } = modelLabels(a.tokens, a.ids, this.languageModel.tokenizer);
    return { data: { tokens: labels, attentions: a.attentions, causal: true }, next: p.next, truncated: a.truncated, count: a.tokens.length, unknown };
  },

  /** The line under the box: the cut text and the unknown characters of the text shown. */
  showTextNote(unknown) {
    setText(this.textNote, [this.cut, unknownNote(unknown, this.languageModel.tokenizer)].filter(Boolean).join(' '));
  },

  showGuesses(r) {
    const { title, items } = modelGuesses(r, this.languageModel.maxTokens);
    setText(this.guessTitle, title);
    this.guessList.replaceChildren(...this.guessItems(items));
  },

  /** The list items of guesses (modelGuesses' items): the token, a bar, the probability. */
  guessItems(items) {
    return items.map((g) => h('li', {},
      h('span', { class: 'al-model-guess-token' }, g.token),
      h('span', { class: 'al-model-guess-bar', 'aria-hidden': 'true' }, h('span', { style: { width: `${g.percent}%` } })),
      h('span', { class: 'al-model-guess-p' }, g.probability)));
  },

  /** The text box changed: redraw after a pause in typing (at once with `delay` 0). */
  typed(delay = TYPING_MS) {
    clearTimeout(this._typing);
    const value = this.textInput.value;
    if (value.length > MAX_TEXT) {
      this.textInput.value = value.slice(0, MAX_TEXT);
      this.cut = cutNote(value.length);
      this.showTextNote(this.unknown);
    }
    // Busy from the key until the views show the text (or the text is refused).
    this.frame.setAttribute('aria-busy', 'true');
    this._typing = setTimeout(() => this.guard(() => {
      const done = () => { if (!this._typingRun || this._typingRun === run) this.frame.removeAttribute('aria-busy'); };
      const run = this._typingRun = this.showText(this.textInput.value).then(done, (err) => { done(); throw err; });
      run.catch((err) => this.guard(() => { throw err; }));
    }), delay);
  },

  /** Reads `text` with the model and redraws every view; a newer text overtakes an older one. */
  async showText(text) {
    if (text === this.shownText) return;
    const r = this.readText(text);
    if (!r) return;
    const run = this._textRun = {};
    const { set, rows } = await this.decode(this.lab, readAuthorData(this.localName, { tokens: null }, r.data, this.constructor.jsonKeys, MAX_JSON_LENGTH));
    if (run !== this._textRun) return;
    this.shownText = text;
    this.showGuesses(r);
    this.unknown = r.unknown;
    if (text.length < MAX_TEXT) this.cut = '';
    this.showTextNote(r.unknown);
    await this.redraw(set, rows);
    this.knockoutUpdate();
    this.ask(this.attr('predict', false));
    // While a question is open the guesses are hidden: the live region must not read them out.
    const open = (this.question && !this.answered) || this.frame.classList.contains('al-ko-asking');
    setText(this.announce, `The model read ${counted(r.count, 'token')}. ${open ? `Answer the question ${this.question ? 'above' : 'of a knock-out'}, or skip it, to see its guesses${this.question ? ' and the views' : ''}.`
      : `${this.guessTitle.textContent} ${Array.from(this.guessList.children, (li) => li.textContent).join('; ')}.`}`);
  },

  /**
   * Predict-first (the predict attribute, with model): until the reader answers or skips, the views and the
   * guesses are hidden and a question asks where the strongest induction head will look from
   * the last token. Asked again for new text until answered; nothing is asked of text whose
   * last token does not repeat.
   */
  ask(on) {
    if (!on || !this.languageModel) return;
    // Opened on the knock-out: its question is the one asked first, and the guesses wait for its answer.
    if (this.attr('view', 'model') === 'knockout') {
      this.frame.classList.toggle('al-ko-asking', !this.ko.answered);
      return;
    }
    if (this.answered) {
      // Answered once: new text shows its views at once, with no question about old text left behind.
      if (this.question) this.question.root.remove();
      this.question = null;
      return;
    }
    const head = inductionHead(this.rows);
    const n = this.set.n;
    const q = head && inductionQuestion(this.set.tokens, pattern(this.set, head.layer, head.head).subarray((n - 1) * n, n * n), head, this.rows);
    if (this.question) this.question.root.remove();
    this.question = null;
    if (!q) {
      this.frame.classList.remove('al-asking');
      setText(this.announce, 'The last token does not appear earlier in the text, so there is nothing to predict: the views are shown.');
      return;
    }
    this.question = new PredictView({
      question: q.question,
      choices: q.choices,
      judge: (value) => q.judge(value),
      onReveal: () => {
        this.answered = true;
        this.frame.classList.remove('al-asking');
        const best = inductionHead(this.rows);
        this.openHead(best.layer, best.head, { show: true });
      },
      skip: 'Show the heads without predicting',
      skipMessage: () => q.reveal,
      printAnswer: () => q.reveal,
    });
    this.frame.classList.add('al-asking');
    this.about.after(this.question.root);
  }
};

module.exports = { modelText };
