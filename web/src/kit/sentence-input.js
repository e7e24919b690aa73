'use strict';
// The learner's own sentence, for any widget that draws seeded vectors for words: a text box,
// a "Use it" button and a message line. The rule (limits, messages, which vectors) is
// decided here and in ui/sentence.js, once for every widget that offers it.

const { h, uid } = require('./dom.js');
const { resolveInputs } = require('./inputs.js');
const { parseSentence, sentenceNote } = require('../ui/sentence.js');

class SentenceInput {
  /**
   * @param opts { lab, tag (element name), authorData (the widget's own data), tokens (the
   *   author's tokens), onChange(inputs, own): the widget redraws with the new inputs }
   */
  constructor(opts) {
    this.opts = opts;
    this.own = false;
    const id = uid(), hint = uid();
    // No maxlength: it would cut a long paste silently, and the message would then count the
    // words that were left. parseSentence sees the whole text and says what is too long.
    this.input = h('input', { id, type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': hint,
      value: opts.tokens.join(' ') });
    this.input.addEventListener('keydown', (e) => { if (e.key === 'Enter') this.use(); });
    this.message = h('p', { class: 'al-sentence-message', id: hint, 'aria-live': 'polite' });
    this.controls = h('div', { class: 'al-controls al-sentence', part: 'controls' },
      h('label', { for: id }, 'Sentence'), this.input, h('button', { type: 'button', onclick: () => this.use() }, 'Use it'));
  }

  /**
   * Switches to `text` (seeded vectors, as an author's tokens get; the author's own data when
   * the words are the author's). Returns false, with the reason shown, when it was refused.
   */
  set(text, { announce = true } = {}) {
    const { lab, tag, authorData, tokens } = this.opts;
    // The author's own words are always accepted, whatever their length: they are the way back.
    const words = String(text || '').trim().split(/\s+/).filter(Boolean);
    const parsed = words.join(' ') === tokens.join(' ') ? { tokens: words } : parseSentence(text);
    if (parsed.error) {
      this.message.textContent = parsed.error;
      this.message.className = 'al-sentence-message al-field-message';
      this.input.setAttribute('aria-invalid', 'true');
      return false;
    }
    this.input.removeAttribute('aria-invalid');
    const own = parsed.tokens.join(' ') !== tokens.join(' ');
    const inputs = own ? resolveInputs(lab, { tokens: parsed.tokens }, tag) : resolveInputs(lab, authorData, tag);
    this.own = own;
    this.input.value = inputs.tokens.join(' ');
    this.message.className = 'al-sentence-message al-muted';
    this.message.textContent = announce ? sentenceNote(own) : '';
    this.opts.onChange(inputs, own);
    return true;
  }

  use() {
    try {
      this.set(this.input.value);
    } catch (err) {
      if (this.opts.onError) this.opts.onError(err);
      else throw err;
    }
  }

  /** The words to keep in a shared link: only the reader's own sentence. */
  linkWords(tokens) {
    return this.own ? tokens.join(' ') : undefined;
  }
}

module.exports = { SentenceInput };
