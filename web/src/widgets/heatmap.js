'use strict';
// <attention-heatmap>: the whole weight matrix with controls for the causal mask, the
// scaling rule, temperature, and learned projections versus Q = K = V = X.

const { h, uid, setText } = require('./dom.js');
const { LabElement, urlState } = require('./base.js');
const { HeatmapView } = require('./heatmap-view.js');
const { PredictView } = require('./predict-view.js');
const { resolveInputs, resolveCrossInputs, authorOptions } = require('./inputs.js');
const { SentenceInput } = require('./sentence-input.js');
const { maskedFrom, prefixOnes, renormalisation } = require('../ui/heatmap-model.js');
const { rowPrompt } = require('./row-prompt.js');
const { num } = require('../ui/format.js');

const SCALINGS = [['sqrt', '1/\u221ad\u2096'], ['none', 'none'], ['dk', '1/d\u2096 (mistake)']];
const TEMPERATURES = [0.25, 0.5, 1, 2, 4];

class AttentionHeatmap extends LabElement {
  setup(lab, data) {
    const queryTokens = this.attr('query-tokens');
    this.cross = queryTokens !== undefined;
    this.inputs = this.cross ? resolveCrossInputs(lab, data, queryTokens, this.localName) : resolveInputs(lab, data, this.localName);
    this.rowLabels = this.cross ? this.inputs.queryTokens : this.inputs.tokens;
    const opts = authorOptions(data, ['causal', 'scaling', 'temperature']);
    if (opts.temperature !== undefined && !TEMPERATURES.includes(opts.temperature)) {
      throw new Error(`<${this.localName}>: options.temperature is ${opts.temperature}; expected one of ${TEMPERATURES.join(', ')}`);
    }
    this.defaults = {
      causal: Boolean(opts.causal),
      scaling: opts.scaling || 'sqrt',
      temp: TEMPERATURES.indexOf(opts.temperature === undefined ? 1 : opts.temperature),
      numbers: this.inputs.tokens.length <= 8,
    };
    this.st = { ...this.defaults, self: false };
    for (const name of ['causal', 'numbers', 'scaling', 'temperature']) Object.assign(this.st, this.fromAttribute(name, this.attr(name)));
    if (this.cross) this.defaults.causal = this.st.causal = false;  // a decoder's mask means nothing between two sentences
    const ids = { causal: uid(), scaling: uid(), temp: uid(), mode: uid(), numbers: uid() };
    this.causalBox = h('input', { id: ids.causal, type: 'checkbox', onchange: () => this.guard(() => this.set({ causal: this.causalBox.checked })) });
    this.scalingSelect = h('select', { id: ids.scaling, onchange: () => this.guard(() => this.set({ scaling: this.scalingSelect.value })) },
      SCALINGS.map(([v, label]) => h('option', { value: v }, label)));
    this.temp = h('input', { id: ids.temp, type: 'range', min: '0', max: String(TEMPERATURES.length - 1), step: '1',
      oninput: () => this.guard(() => this.set({ temp: Number(this.temp.value) })) });
    this.tempText = h('output', { for: ids.temp });
    this.mode = h('select', { id: ids.mode, onchange: () => this.guard(() => this.set({ self: this.mode.value === 'self' })) },
      h('option', { value: 'learned' }, 'learned projections'), h('option', { value: 'self' }, 'Q = K = V = X'));
    this.numbersBox = h('input', { id: ids.numbers, type: 'checkbox', onchange: () => this.guard(() => this.set({ numbers: this.numbersBox.checked })) });
    this.view = new HeatmapView({
      label: 'Attention weights: one row per query token, one column per key token',
      title: 'Attention weights',
      caption: () => this.exportCaption(),
      settings: () => ({ causal: this.st.causal, scaling: this.st.scaling, scale: this.last.scale, temperature: TEMPERATURES[this.st.temp],
        inputs: this.st.self ? 'Q = K = V = X' : 'learned projections' }),
      onPick: (cell) => this.guard(() => this.onPick(cell)),
      onCell: (cell) => this.guard(() => this.showRenorm(cell.row)),
    });
    this.caption = h('p', { class: 'al-muted', part: 'caption', 'aria-live': 'polite' });
    this.renorm = h('p', { class: 'al-renorm', 'aria-live': 'polite', hidden: true });
    this.authorTokens = this.inputs.tokens;
    if (!this.cross) {
      this.sentence = new SentenceInput({ lab, tag: this.localName, authorData: data, tokens: this.authorTokens,
        onChange: (inputs) => {
          this.inputs = inputs;
          this.rowLabels = inputs.tokens;
          this.picked = null;
          this.renormRow = null;
          if (this.causalPrompt) this.causalPrompt.verdict.replaceChildren();
          if (this.row0) this.row0.setQuestion(this.row0Question());
          if (this.rowPrompt) this.rowPrompt.root.hidden = this.sentence.own;
          if (this._status === 'ready') this.render();
        },
        onError: (err) => this.showError(err) });
    }

    const controls = h('div', { class: 'al-controls', part: 'controls' },
      this.cross ? null : h('label', { for: ids.causal }, this.causalBox, 'causal mask'),
      h('label', { for: ids.scaling }, 'scaling', this.scalingSelect),
      h('label', { for: ids.temp }, 'temperature', this.temp, this.tempText),
      this.inputs.X ? h('label', { for: ids.mode }, 'inputs', this.mode) : null,
      h('label', { for: ids.numbers }, this.numbersBox, 'numbers'));
    const prompts = this.cross ? [] : this.attr('prompt', '').split(/\s+/);
    if (prompts.includes('row0')) {
      this.row0 = new PredictView({
        question: this.row0Question(),
        choices: [
          { label: 'all weight on itself: [1, 0, 0, …]', value: 'self' },
          { label: 'spread evenly', value: 'even' },
          { label: 'it depends on the vectors', value: 'depends' },
        ],
        printAnswer: () => `all weight on itself: the engine gives [${this.lab.attention(this.inputs.Q, this.inputs.K, this.inputs.V, { causal: true }).weights.toArray()[0].map((w) => num(w, 2)).join(', ')}].`,
        judge: (choice) => {
          const r = this.lab.attention(this.inputs.Q, this.inputs.K, this.inputs.V, { causal: true });
          const row = r.weights.toArray()[0];
          const shown = `[${row.map((w) => num(w, 2)).join(', ')}]`;
          return choice === 'self'
            ? { ok: true, close: true, message: `Right: ${shown}. The first token may only see itself, and a softmax over one entry is 1.` }
            : { ok: true, close: false, message: `Not quite: the engine gives ${shown}. The first token may only see itself, and a softmax over one entry is 1.` };
        },
        onReveal: () => { this.row0Answered = true; this.render(); },
      });
    }
    if (prompts.includes('causal')) {
      this.causalPrompt = new PredictView({
        question: 'before turning the causal mask on, click a cell you expect it to set to 0, then tick "causal mask".',
        hint: 'Pick with a click, or with the arrow keys and Enter.',
        judge: () => ({ ok: false, close: false, message: '' }),
        printAnswer: () => 'every cell above the diagonal (a query looking at a later key) becomes 0.',
      });
    }
    // predict="flies": as in the stepper, that row is the reader's to work out. It stays out of
    // the page (colour, numbers, readout, exports) until they type its weights or ask to see it.
    const predictToken = this.cross ? '' : this.attr('predict', '');
    if (predictToken) {
      const i = this.authorTokens.indexOf(predictToken);
      if (i < 0) throw new Error(`<${this.localName}>: predict is "${predictToken}"; expected one of the tokens (${this.authorTokens.join(' ')})`);
      this.predictRow = i;
      // The row as the controls set it when the reader answers, which is the row shown afterwards.
      const current = () => {
        const { tokens, Q, K, V, X } = this.inputs;
        return this.st.self ? { tokens, Q: X, K: X, V: X } : { tokens, Q, K, V };
      };
      const explain = (extra) => {
        const { Q, K, V } = current();
        return this.lab.explainRow(Q, K, V, i, { causal: this.st.causal, scaling: this.st.scaling, temperature: TEMPERATURES[this.st.temp], ...extra });
      };
      this.rowPrompt = rowPrompt({ kind: 'softmax', i, token: predictToken, inputs: current, explain,
        plain: () => (this.st.scaling === 'none' ? null : explain({ scaling: 'none' })),
        skip: `Show the row of "${predictToken}"`, announceSkip: true, onReveal: () => { this.rowAnswered = true; this.render(); } });
    }
    for (const p of [this.row0, this.causalPrompt]) if (p) p.refreshPrint();
    this.frame.replaceChildren(...[this.sentence && this.sentence.controls, this.sentence && this.sentence.message, controls,
      this.causalPrompt && this.causalPrompt.root, this.rowPrompt && this.rowPrompt.root, this.view.root, this.renorm, this.caption, this.row0 && this.row0.root].filter(Boolean));
    this.restore(this.readState(), false);
  }

  /** Rows whose question is still open: they stay out of the page until it is answered. */
  hiddenRows() {
    const rows = [];
    // Row 0 under the mask is the row-0 question's answer.
    if (this.row0 && !this.row0Answered && this.st.causal) rows.push(0);
    if (this.rowPrompt && !this.rowAnswered && !(this.sentence && this.sentence.own)) rows.push(this.predictRow);
    return rows;
  }

  row0Question() {
    return `with the causal mask on, what is the first row of the weights ("${this.inputs.tokens[0]}" attending), whatever the inputs?`;
  }

  /**
   * Under the causal mask, what the mask did to row i: the engine's weights over the keys the
   * row may see, their sum, and the share those keys had without the mask. The sums are the
   * engine's weighted sums W U with U[j][c] = 1 for j <= c (prefixOnes): [i][i] adds keys 0..i.
   */
  showRenorm(i) {
    const hidden = this.hiddenRows().includes(i);
    if (!this.st.causal || this.cross || hidden || i === undefined) {
      this.renorm.hidden = true;
      this.renormRow = hidden ? null : this.renormRow;
      return;
    }
    this.renormRow = i;
    const { tokens } = this.inputs;
    if (!this.renormSums) {
      // Once per drawn view, not per cell hovered: [n, n] outputs whose diagonals are the sums.
      const [q, k] = this.st.self ? [this.inputs.X, this.inputs.X] : [this.inputs.Q, this.inputs.K];
      const opts = { scaling: this.st.scaling, temperature: TEMPERATURES[this.st.temp], stages: ['output'] };
      const ones = prefixOnes(tokens.length);
      this.renormSums = {
        sum: this.lab.attention(q, k, ones, { ...opts, causal: true }).output,
        share: this.lab.attention(q, k, ones, { ...opts, causal: false }).output,
        weights: this.last.weights.toArray(),
        masked: maskedFrom(this.last.masked.toArray()),
      };
    }
    const r = this.renormSums;
    setText(this.renorm, renormalisation({ label: this.rowLabels[i], keys: tokens, weights: r.weights[i], masked: r.masked[i],
      sum: r.sum.get(i, i), share: r.share.get(i, i) }));
    this.renorm.hidden = false;
  }

  /** The state change an attribute asks for (its default when the attribute is removed). */
  fromAttribute(name, value) {
    switch (name) {
      case 'causal': return { causal: value === undefined ? this.defaults.causal : value };
      case 'numbers': return { numbers: value === undefined ? this.defaults.numbers : value };
      case 'scaling': return { scaling: value === undefined ? this.defaults.scaling : value };
      case 'temperature': return { temp: value === undefined ? this.defaults.temp : TEMPERATURES.indexOf(Number(value)) };
      default: return {};
    }
  }

  applyAttribute(property, value) {
    this.set(this.fromAttribute(property, value));
  }

  viewState() {
    return { ...this.st, temperature: TEMPERATURES[this.st.temp], tokens: this.inputs.tokens.slice(), ownSentence: Boolean(this.sentence && this.sentence.own) };
  }

  restore(s, save = true) {
    if (this.sentence && typeof s.words === 'string' && s.words !== this.inputs.tokens.join(' ')) this.sentence.set(s.words, { announce: false });
    const st = this.st;
    st.causal = urlState.bool(s.causal, st.causal) && !this.cross;
    st.scaling = urlState.choice(s.scaling, SCALINGS.map((x) => x[0]), st.scaling);
    // The link holds the temperature itself (`temperature=2`); older links held its position (`temp=3`).
    const temp = s.temperature !== undefined ? TEMPERATURES.map(String).indexOf(s.temperature) : urlState.int(s.temp, -1, 0, TEMPERATURES.length - 1);
    if (temp >= 0) st.temp = temp;
    st.self = urlState.bool(s.self, st.self) && Boolean(this.inputs.X);
    st.numbers = urlState.bool(s.numbers, st.numbers);
    this.render(save);
  }

  set(change) {
    if (this.cross) change = { ...change, causal: false };
    const turningOnCausal = change.causal === true && !this.st.causal;
    Object.assign(this.st, change);
    this.render();
    if (turningOnCausal && this.causalPrompt && this.picked) this.judgePick();
  }

  onPick(cell) {
    if (!this.causalPrompt || this.st.causal) return;
    this.picked = [cell.row, cell.col];
    this.causalPrompt.verdict.textContent = `You picked query "${this.inputs.tokens[cell.row]}", key "${this.inputs.tokens[cell.col]}". Now tick "causal mask".`;
    this.render();
  }

  judgePick() {
    const [i, j] = this.picked;
    const masked = this.last.masked.get(i, j) === -Infinity;
    const tokens = this.inputs.tokens;
    this.causalPrompt.verdict.replaceChildren(h('span', { class: masked ? 'al-verdict-ok' : 'al-verdict-bad' },
      masked ? `Right: "${tokens[i]}" may not look ahead at "${tokens[j]}", so that weight is now 0. Every cell above the diagonal is masked.`
        : `Not this one: "${tokens[j]}" comes at or before "${tokens[i]}", so "${tokens[i]}" may still see it. Only cells above the diagonal (later keys) are masked.`));
  }

  exportCaption() {
    const st = this.st, label = SCALINGS.find((x) => x[0] === st.scaling)[1];
    return `Rows: query tokens; columns: key tokens; each row sums to 1. Scaling ${label} (scale ${num(this.last.scale, 4)}), temperature ${TEMPERATURES[st.temp]}, `
      + `causal mask ${st.causal ? 'on' : 'off'}, ${st.self ? 'Q = K = V = X' : 'learned projections'}.`;
  }

  render(save = true) {
    const st = this.st;
    const { tokens, Q, K, V, X } = this.inputs;
    this.causalBox.checked = st.causal;
    this.scalingSelect.value = st.scaling;
    this.temp.value = String(st.temp);
    setText(this.tempText, String(TEMPERATURES[st.temp]));
    // The slider's value is a position in TEMPERATURES: a screen reader says the temperature.
    this.temp.setAttribute('aria-valuetext', String(TEMPERATURES[st.temp]));
    this.mode.value = st.self ? 'self' : 'learned';
    this.numbersBox.checked = st.numbers;
    const [q, k, v] = st.self ? [X, X, X] : [Q, K, V];
    const r = this.lab.attention(q, k, v, { causal: st.causal, scaling: st.scaling, temperature: TEMPERATURES[st.temp] });
    this.last = r;
    this.renormSums = null;
    this.view.update({ weights: r.weights.toArray(), masked: maskedFrom(r.masked.toArray()), rowLabels: this.rowLabels, colLabels: tokens,
      showNumbers: st.numbers, picked: this.picked || null, hiddenRows: this.hiddenRows() });
    setText(this.caption, `Scale ${num(r.scale, 4)}${st.causal ? ', causal mask on' : ''}${st.self ? ', Q = K = V = X' : ''}. Each row sums to 1.`);
    this.frame.dataset.causal = String(st.causal);
    this.showRenorm(this.renormRow === null || this.renormRow === undefined || this.renormRow >= tokens.length ? undefined : this.renormRow);
    if (this.row0) this.row0.refreshPrint();
    if (save) this.saveState({ causal: st.causal, scaling: st.scaling, temperature: TEMPERATURES[st.temp], self: st.self, numbers: st.numbers, words: this.sentence ? this.sentence.linkWords(tokens) : undefined });
  }
}

module.exports = { AttentionHeatmap };
