'use strict';
// <padding-mask>: a batch of sentences of different lengths padded to one length; the
// valid-length mask on each heatmap, and a toggle that forgets the mask.

const { h, uid } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { HeatmapView } = require('../kit/heatmap-view.js');
const { maskedFrom } = require('../ui/heatmap-model.js');
const { splitTokens, seedFrom } = require('../ui/author-data.js');
const { num } = require('../ui/format.js');

const PAD = '<pad>';

class PaddingMask extends LabElement {
  static get jsonKeys() { return ['sentences']; }

  setup(lab, data) {
    const raw = data.sentences || ['time flies like an arrow', 'the cat sat', 'hi'];
    if (!Array.isArray(raw) || raw.length < 1 || raw.length > 6 || !raw.every((x) => typeof x === 'string' && splitTokens(x).length > 0)) {
      throw new Error('sentences must be an array of 1 to 6 non-empty strings');
    }
    this.sentences = raw.map(splitTokens);
    this.len = Math.max(...this.sentences.map((s) => s.length));
    if (this.len > 16) throw new Error('each sentence may have at most 16 words here');
    this.padded = this.sentences.map((s) => [...s, ...Array(this.len - s.length).fill(PAD)]);
    this.lens = this.sentences.map((s) => s.length);
    this.X = lab.randomNormal({ shape: [this.sentences.length, this.len, 4], seed: seedFrom(raw.join('|')) });
    this.st = { forget: false };
    // A batch whose sentences all have the longest length has no pad token: nothing to mask or
    // to forget, so the control is disabled (out of the tab order) with its reason beside it,
    // and no heatmap keys a "masked" colour that none of its cells has.
    this.padless = this.lens.every((n) => n === this.len);
    const id = uid(), reasonId = uid();
    this.forget = h('input', { id, type: 'checkbox', disabled: this.padless, 'aria-describedby': this.padless ? reasonId : null,
      onchange: () => this.guard(() => { this.st.forget = this.forget.checked; this.render(); }) });
    const reason = this.padless ? h('span', { id: reasonId, class: 'al-muted' }, 'nothing to forget: no sentence is padded') : null;
    this.views = this.padded.map((tokens, b) => new HeatmapView({ label: `Sentence ${b + 1} attention weights`,
      caption: () => `Sentence ${b + 1} of ${this.sentences.length}, ${this.padless ? `${this.len} tokens, no padding.` : `padded to ${this.len} tokens, valid length ${this.lens[b]}; padding mask ${this.st.forget ? 'forgotten' : 'on'}.`}`,
      settings: () => ({ validLength: this.lens[b], paddedLength: this.len, paddingMask: !this.st.forget }) }));
    this.report = h('p', { 'aria-live': 'polite', hidden: this.padless });
    const count = this.sentences.length, sentences = count === 1 ? '1 sentence' : `${count} sentences`;
    this.frame.replaceChildren(
      h('p', { class: 'al-muted' }, this.padless
        ? `A batch of ${sentences}, ${count === 1 ? 'it' : 'all'} ${this.len} tokens long, so no padding is needed.`
        : `A batch of ${sentences} padded to ${this.len} tokens. Valid lengths: ${this.lens.join(', ')}.`),
      h('div', { class: 'al-controls', part: 'controls' }, h('label', { for: id }, this.forget, 'forget the padding mask'), reason),
      this.report,
      h('div', { class: 'al-heads' }, this.views.map((v, b) => h('figure', {}, h('figcaption', {}, `sentence ${b + 1} (${this.padless ? `${this.len} tokens` : `valid length ${this.lens[b]}`})`), v.root))));
    this.restore(this.readState(), false);
  }

  viewState() {
    return { ...this.st, padWeight: this.padWeight };
  }

  restore(s, save = true) {
    this.st.forget = urlState.bool(s.forget, this.st.forget) && !this.padless;
    this.render(save);
  }

  render(save = true) {
    this.forget.checked = this.st.forget;
    const r = this.lab.attention(this.X, this.X, this.X, this.st.forget ? {} : { validLens: this.lens });
    const weights = r.weights.toArray(), masked = r.masked.toArray();
    this.padded.forEach((tokens, b) => {
      this.views[b].update({ weights: weights[b], masked: maskedFrom(masked[b]), rowLabels: tokens, colLabels: tokens, showNumbers: this.len <= 6 });
    });
    // The engine's figure: the real token that gives padding the largest share of its
    // attention without the mask (its row, [sentence, token]), and 0 with it.
    const leak = this.lab.mistake('no-padding-mask', { Q: this.X, K: this.X, V: this.X, validLens: this.lens }).figure;
    this.padWeight = this.st.forget ? leak.value : leak.correctValue;
    const [b, i] = this.st.forget && leak.row ? leak.row : [];
    const pads = b === undefined ? 0 : this.len - this.lens[b];
    let report;
    if (this.padless) {
      report = '';
    } else if (b !== undefined) {
      report = `Without the mask, real tokens attend to padding: "${this.padded[b][i]}" in sentence ${b + 1} gives ${num(this.padWeight * 100, 1)}% of its attention to ${pads === 1 ? `the ${PAD} slot` : `its ${pads} ${PAD} slots`}.`;
    } else if (this.st.forget) {
      // Only when every leaked weight underflows to 0 in float32: the engine names no row.
      report = 'Without the mask, no real token gives padding a measurable share here.';
    } else {
      report = 'With the mask, every weight on a padding column is exactly 0: no real token attends to padding. (Rows of padding queries do not matter; their outputs are thrown away.)';
    }
    this.report.textContent = report;
    if (save) this.saveState({ forget: this.st.forget });
  }
}

module.exports = { PaddingMask };
