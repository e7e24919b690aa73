'use strict';
// <multihead-view>: per-head heatmaps of multi-head self-attention as small multiples, the
// loop and batched implementations compared, and the "forget the head transpose" bug shown
// as a picture of the merged heads, correct beside scrambled.

const { h, uid } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { HeatmapView } = require('../kit/heatmap-view.js');
const { PredictView } = require('../kit/predict-view.js');
const { judgeNumber } = require('../ui/predict.js');
const { num, shape } = require('../ui/format.js');
const { range, pictureCells } = require('../ui/matrix-picture.js');
const { pictureReadout } = require('../kit/picture-readout.js');

const D_MODEL = 8;
const HEADS = [1, 2, 4, 8];
const TRANSPOSE_HEADS = 2;  // the transpose question's heads: with one, there is nothing to transpose

class MultiheadView extends LabElement {
  static get jsonKeys() { return []; }

  async setup(lab, data) {
    const tokens = data.tokens || ['the', 'cat', 'sat', 'on', 'the', 'mat'];
    this.words = tokens;
    const n = tokens.length, seed = this.attr('seed', 7);
    this.X = lab.randomNormal({ shape: [n, D_MODEL], seed });
    this.W = ['Wq', 'Wk', 'Wv', 'Wo'].map((_, i) => lab.randomNormal({ shape: [D_MODEL, D_MODEL], seed: seed + 1 + i, stddev: 0.6 }));
    this.st = { heads: Number(this.attr('heads', '2')), forget: false };
    const ids = { heads: uid(), forget: uid() };
    this.headsSelect = h('select', { id: ids.heads, onchange: () => this.guard(() => this.update({ heads: Number(this.headsSelect.value) })) },
      HEADS.map((x) => h('option', { value: String(x) }, String(x))));
    this.forget = h('input', { id: ids.forget, type: 'checkbox', onchange: () => this.guard(() => this.update({ forget: this.forget.checked })) });
    this.headsBox = h('div', { class: 'al-heads' });
    this.report = h('div', { 'aria-live': 'polite' });
    this.predict = new PredictView({
      question: `with d_model = ${D_MODEL} and h = 8 heads, what is each head's d\u2096?`,
      input: { label: 'd\u2096 =', placeholder: 'a whole number' },
      judge: (text) => {
        const r = this.lab.multiHeadAttention({ ...this.spec(), heads: 8 });
        const res = judgeNumber(text, r.q.shape[2], 0, {
          hint: `The ${8} heads share the model width d_model = ${D_MODEL} equally.`,
          why: `Each head gets an equal slice of the model width: d\u2096 = d_model / h = ${D_MODEL} / 8 = ${r.q.shape[2]}.`,
        });
        return { ...res, message: `${res.message} The scale 1/\u221ad\u2096 becomes ${num(r.scale, 4)}: nothing is scaled down at all.` };
      },
      printAnswer: () => `d\u2096 = ${this.lab.multiHeadAttention({ ...this.spec(), heads: 8 }).q.shape[2]} (d_model / h), so the scale 1/\u221ad\u2096 is 1.`,
      onReveal: () => { this.dkAnswered = true; this.transposePrompt.root.hidden = false; this.render(); },
    });
    this.predict.root.setAttribute('part', 'prompt');
    this.transposePrompt = new PredictView({
      question: `the batched version merges its ${TRANSPOSE_HEADS} heads by reshaping [h, n, d\u2096] straight to [n, h\u00b7d\u2096], without moving the head axis back first. What happens? Answer, then tick "forget the head transpose".`,
      choices: [
        { label: 'an error: the shapes do not fit', value: 'error' },
        { label: 'the same output: a reshape only relabels', value: 'same' },
        { label: 'a different output, and no error', value: 'wrong' },
      ],
      judge: (choice) => this.judgeTranspose(choice),
      printAnswer: () => this.judgeTranspose(this.forgotten().kind).message.replace(/^Right: /, ''),
      onReveal: () => { this.transposeAnswered = true; this.saveState(); },
    });
    this.transposePrompt.root.setAttribute('part', 'prompt');
    // One question at a time: the transpose comes after d\u2096.
    this.transposePrompt.root.hidden = true;
    this.merged = h('div', { class: 'al-merged' });
    this.headsNote = h('p', { class: 'al-muted' });
    this.readout = h('p', { class: 'al-readout', 'aria-live': 'polite' }, 'Tap, hover or focus a cell to read its value.');
    // The merged pictures read out into the heads' line: one more line would lengthen the widget.
    this.mergedReadout = pictureReadout(this.merged, this.readout);
    this.frame.replaceChildren(
      h('div', { class: 'al-controls' },
        h('label', { for: ids.heads }, 'heads h', this.headsSelect),
        h('label', { for: ids.forget }, this.forget, 'forget the head transpose when merging')),
      this.predict.root, this.transposePrompt.root, this.report, this.headsNote, this.headsBox, this.readout, this.merged);
    // Two tasks: the view, then the engine's heads drawn into it.
    const state = this.readState();
    await this.pause();
    this.restore(state, false);
  }

  /** The engine's batched multi-head attention with the merge transpose forgotten, against the loop: { kind, diff, error }. */
  forgotten() {
    const opts = { ...this.spec(), heads: TRANSPOSE_HEADS };
    try {
      const wrong = this.lab.multiHeadAttention({ ...opts, method: 'batched', forgetMergeTranspose: true });
      const diff = this.lab.maxAbsDiff(this.lab.multiHeadAttention({ ...opts, method: 'loop' }).output, wrong.output);
      return { kind: diff === 0 ? 'same' : 'wrong', diff };
    } catch (err) {
      return { kind: 'error', error: err.message };
    }
  }

  judgeTranspose(choice) {
    const f = this.forgotten();
    const right = choice === f.kind;
    const what = f.kind === 'error' ? `the engine refuses it: ${f.error}`
      : f.kind === 'same' ? 'the output is the same as the loop\'s'
        : `no error, and a different output: the largest difference from the loop over heads is ${num(f.diff, 4)}. `
          + 'The reshape reads the numbers in memory order, head by head, so each row of the merged matrix takes numbers of several tokens from one head';
    return {
      ok: true,
      close: right,
      message: `${right ? 'Right' : 'Not quite'}: ${what}. Tick the box to see the scrambled matrix.`,
      hint: choice === 'error' ? `Count the numbers: [h, n, d\u2096] and [n, h\u00b7d\u2096] hold the same number of entries. Does a reshape check what they mean?`
        : 'A reshape reads the numbers in memory order. With the head axis in front, which token and which head do the numbers of the first merged row come from?',
    };
  }

  spec() {
    const [Wq, Wk, Wv, Wo] = this.W;
    return { X: this.X, Wq, Wk, Wv, Wo };
  }

  restore(s, save = true) {
    this.st.heads = urlState.int(s.heads, this.st.heads, 1, 8);
    if (!HEADS.includes(this.st.heads)) this.st.heads = 2;
    this.st.forget = urlState.bool(s.forget, this.st.forget);
    this.render(save);
  }

  viewState() {
    return { ...this.st, diff: this.diff, dkAnswered: Boolean(this.dkAnswered), transposeAnswered: Boolean(this.transposeAnswered) };
  }

  applyAttribute(property, value) {
    if (property === 'heads') this.update({ heads: Number(value === undefined ? '2' : value) });
  }

  update(change) {
    Object.assign(this.st, change);
    this.render();
  }

  render(save = true) {
    const { heads, forget } = this.st;
    this.headsSelect.value = String(heads);
    this.forget.checked = forget;
    const loop = this.lab.multiHeadAttention({ ...this.spec(), heads, method: 'loop' });
    const batched = this.lab.multiHeadAttention({ ...this.spec(), heads, method: 'batched', forgetMergeTranspose: forget });
    const diff = this.lab.maxAbsDiff(loop.output, batched.output);
    this.diff = diff;
    const weights = loop.weights.toArray();
    const compact = heads > 2;
    this.views = weights.map((w, i) => {
      const view = new HeatmapView({ label: `Head ${i + 1} attention weights`, readout: this.readout, readoutPrefix: `head ${i + 1}: `,
        caption: () => `Head ${i + 1} of ${heads}, d_model = ${D_MODEL}, d\u2096 = ${loop.q.shape[2]}, scale ${num(loop.scale, 4)}; rows: query tokens, columns: key tokens.`,
        settings: () => ({ heads, head: i + 1, dModel: D_MODEL, dk: loop.q.shape[2], scale: loop.scale, seed: this.attr('seed', 7) }) });
      view.update({ weights: w, masked: null, rowLabels: this.words, colLabels: this.words, showNumbers: !compact });
      return h('figure', { class: 'al-head' }, h('figcaption', {}, `head ${i + 1}`), view.root);
    });
    this.headsBox.classList.toggle('al-compact', compact);
    this.headsBox.style.setProperty('--al-cols', String(this.words.length));
    this.headsBox.replaceChildren(...this.views);
    this.headsNote.textContent = compact ? `${heads} heads, numbers off: rows are queries (\u2193), columns keys (\u2192); brighter is more weight (dark 0, bright 1). Hover a cell or use the arrow keys to read it below.` : '';
    // The question asks for d_k at h = 8: until it is answered, the report does not give it away.
    const secret = heads === 8 && !this.dkAnswered;
    this.report.replaceChildren(
      h('p', {}, secret ? 'Each head: d\u2096 and its scale are hidden until you answer the question above; '
        : `Each head: d\u2096 = ${loop.q.shape[2]}, scale ${num(loop.scale, 4)}; `,
      `per-head weights ${shape(loop.weights.shape)}, output ${shape(batched.output.shape)}.`),
      h('p', {}, 'Largest difference between the loop over heads and the batched version: ',
        h('strong', { class: diff === 0 ? 'al-verdict-ok' : 'al-verdict-bad' }, num(diff, 6)),
        diff > 0 ? ' \u2014 the shapes still fit, but the values are scrambled: rows of different heads and tokens got mixed.'
          : forget ? ' \u2014 with one head there is nothing to transpose, so this bug stays hidden until h > 1.' : ' \u2014 the same numbers, two ways.'));
    // The merged matrices come a task later (their size never changes with h): at h = 8, the
    // heads and the matrices laid out in one task took 45-73 ms of CPU.
    const right = loop.concat.toArray(), got = batched.concat.toArray();
    this.soon(() => this.renderMerged(right, got, heads, forget));
    if (save) this.saveState({ heads, forget });
  }

  /** The merged heads [n, d_model] before W_O: the loop's beside the batched one, same colours. */
  renderMerged(right, got, heads, forget) {
    const lo_hi = range(right, got);
    const width = right[0].length / heads;
    const picture = (title, cells) => h('div', { class: 'al-matrix', role: 'group', 'aria-label': title }, h('p', { class: 'al-matrix-title' }, title),
        h('table', { class: 'al-matrix-table' },
          h('caption', { class: 'al-sr' }, `${title}: ${cells.length} rows (tokens) by ${cells[0].length} columns, heads side by side`),
          h('tbody', {}, cells.map((row, i) => h('tr', {},
            h('th', { scope: 'row', title: this.words[i] }, this.words[i]),
            row.map((c, j) => h('td', {
              title: c.text,
              class: `${c.differs ? 'al-differs' : ''}${j > 0 && j % width === 0 ? ' al-head-edge' : ''}`.trim() || null,
              style: { backgroundColor: c.background, color: c.foreground },
            }, h('span', { class: 'al-sr' }, c.differs ? `${c.text} (wrong)` : c.text))))))));
    // The sentence under the pictures says whether any cell is outlined: pictureCells decides both.
    const gotCells = pictureCells(got, lo_hi, right);
    const wrong = gotCells.some((row) => row.some((c) => c.differs));
    this.mergedReadout.reset();
    this.merged.replaceChildren(
      h('p', { class: 'al-muted' }, `The heads merged back into one [${right.length}, ${right[0].length}] matrix before W_O, one colour per number on a shared scale` +
        `${heads > 1 ? '; each head fills a block of columns' : ''}.`),
      h('div', { class: 'al-row' },
        picture('loop over heads (correct)', pictureCells(right, lo_hi)),
        picture(forget ? 'batched, transpose forgotten' : 'batched', gotCells)),
      h('p', { class: 'al-muted' }, wrong ? 'Outlined cells differ from the loop: the forgotten transpose moved numbers between tokens and heads.'
        : forget ? 'With one head the forgotten transpose changes nothing.' : 'Both pictures are the same.'));
  }
}

module.exports = { MultiheadView };
