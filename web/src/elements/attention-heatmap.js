'use strict';
// <attention-heatmap>: the whole weight matrix with controls for the causal mask, the
// scaling rule, temperature, and learned projections versus Q = K = V = X.

const { h, uid, setText } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { HeatmapView } = require('../kit/heatmap-view.js');
const { PredictView } = require('../kit/predict-view.js');
const { resolveInputs, resolveCrossInputs, authorOptions } = require('../kit/inputs.js');
const { SentenceInput } = require('../kit/sentence-input.js');
const { maskedFrom, prefixOnes, renormalisation } = require('../ui/heatmap-model.js');
const { rowPrompt } = require('../kit/row-prompt.js');
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
          if (this.causalPrompt) this.causalPrompt.reset();
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
            : { ok: true, close: false, message: `Not quite: the engine gives ${shown}. The first token may only see itself, and a softmax over one entry is 1.`,
              hint: 'Under the mask a token sees only itself and the tokens before it. How many keys does the first token see, and what is a softmax over that many numbers?' };
        },
        onReveal: () => { this.row0Answered = true; this.render(); },
      });
    }
    if (prompts.includes('causal')) {
      this.causalPrompt = new PredictView({
        question: 'before turning the causal mask on, click a cell you expect it to set to 0.',
        help: 'Pick with a click, or with the arrow keys and Enter; then tick "causal mask" to see every cell it sets to 0.',
        judge: (cell) => this.judgePick(cell),
        onReveal: () => {},
        printAnswer: () => 'every cell above the diagonal (a query looking at a later key) becomes 0.',
      });
    }
    const tempPrompt = prompts.find((p) => p.startsWith('temperature:'));
    if (tempPrompt) this.askTemperature(tempPrompt.slice('temperature:'.length));
    // hide-rows="flies": rows another question asks about (a stepper's on the same page, named by
    // reveal-with, or a lesson's elsewhere) stay out of the page like an asked row.
    this.held = new Set();
    for (const t of this.cross ? [] : this.attr('hide-rows', [])) {
      if (!this.authorTokens.includes(t)) throw new Error(`<${this.localName}>: hide-rows names "${t}"; expected tokens of the sentence (${this.authorTokens.join(' ')})`);
      this.held.add(t);
    }
    this.revealWith = this.attr('reveal-with', '');
    this.listenForAnswers();
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
    this.frame.replaceChildren(...[this.sentence && this.sentence.controls, this.sentence && this.sentence.message, controls,
      this.causalPrompt && this.causalPrompt.root, this.rowPrompt && this.rowPrompt.root, this.temperaturePrompt && this.temperaturePrompt.root, this.view.root, this.renorm, this.caption, this.row0 && this.row0.root].filter(Boolean));
    this.restore(this.readState(), false);
  }

  /** Rows whose question is still open: they stay out of the page until it is answered. */
  hiddenRows() {
    const rows = [];
    // Row 0 under the mask is the row-0 question's answer.
    if (this.row0 && !this.row0Answered && this.st.causal) rows.push(0);
    const own = this.sentence && this.sentence.own;
    if (this.rowPrompt && !this.rowAnswered && !own) rows.push(this.predictRow);
    if (!own) for (const t of this.held) rows.push(this.inputs.tokens.indexOf(t));
    return rows;
  }

  /** Why row i is hidden, for its cells' names and the readout. */
  hiddenNote(i) {
    const t = this.inputs.tokens[i];
    if (!this.held.has(t) || (this.rowPrompt && i === this.predictRow)) return 'hidden until you answer the question';
    return this.revealWith ? `hidden until you answer the question about "${t}" elsewhere on this page` : 'kept back: a lesson asks you to work this row out';
  }

  /**
   * reveal-with="lab": the rows of hide-rows appear once the widget with that id (a stepper
   * with predict) says, in its state's \`answered\`, that the reader committed them.
   */
  listenForAnswers() {
    if (this._answers) this._answers.abort();
    this._answers = null;
    if (!this.revealWith || !this.held.size) return;
    this._answers = new AbortController();
    const doc = this.ownerDocument;
    const release = (el) => {
      const answered = el && el.id === this.revealWith && el.state && Array.isArray(el.state.answered) ? el.state.answered : [];
      if (!answered.some((t) => this.held.delete(t)) || this._status !== 'ready') return;
      this.render(false);
    };
    doc.addEventListener('al-change', (e) => release(e.target), { signal: this._answers.signal });
    release(doc.getElementById(this.revealWith));
  }

  /**
   * prompt="temperature:flies": at the largest temperature, does the row's favourite key keep
   * more than half of the row? Asked once the row itself is on the page.
   */
  askTemperature(token) {
    const i = this.authorTokens.indexOf(token);
    if (i < 0) throw new Error(`<${this.localName}>: prompt asks about the temperature of "${token}"; expected one of the tokens (${this.authorTokens.join(' ')})`);
    const at = (temperature) => {
      const { Q, K, V, X } = this.inputs;
      const [q, k, v] = this.st.self ? [X, X, X] : [Q, K, V];
      return this.lab.attention(q, k, v, { causal: this.st.causal, scaling: this.st.scaling, temperature }).weights.toArray()[i];
    };
    const base = at(1);
    const top = base.indexOf(Math.max(...base));
    const hottest = TEMPERATURES[TEMPERATURES.length - 1], coldest = TEMPERATURES[0];
    const key = this.authorTokens[top];
    this.tempRow = i;
    const judge = (choice) => {
      const hot = at(hottest)[top], now = at(1)[top], cold = at(coldest)[top];
      const right = (choice === 'more') === (hot > 0.5);
      return {
        ok: true,
        close: right,
        message: `${right ? 'Right' : 'Not quite'}: at T = ${hottest}, "${key}" gets ${num(hot, 2)} of the row of "${token}" (${num(now, 2)} at T = 1), `
          + `and at T = ${coldest} it gets ${num(cold, 2)}. Dividing by a larger T pulls the scores of a row together, and a softmax of nearly equal numbers is nearly even; `
          + 'a smaller T pushes them apart, towards all the weight on one key.',
        hint: 'Dividing every score of the row by a larger T shrinks the gaps between them. What does a softmax make of numbers that are close together?',
      };
    };
    this.temperaturePrompt = new PredictView({
      question: `at the largest temperature (T = ${hottest}), will "${key}" still get more than half of the weight of "${token}"? Decide, then move the temperature control.`,
      choices: [{ label: 'yes, more than half', value: 'more' }, { label: 'no, less than half', value: 'less' }],
      judge,
      onReveal: () => {},
      printAnswer: () => judge(at(hottest)[top] > 0.5 ? 'more' : 'less').message.replace(/^Right: /, ''),
    });
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
    // The mask itself answers the pick question: ticked before a pick, it shows the answer.
    if (turningOnCausal && this.causalPrompt && !this.causalPrompt.revealed) {
      this.causalPrompt.skip();
      this.causalPrompt.verdict.textContent = 'The mask is on: every hatched cell, each above the diagonal (a query looking at a later key), is set to 0.';
    }
  }

  onPick(cell) {
    if (!this.causalPrompt || this.st.causal || this.causalPrompt.revealed) return;
    this.picked = [cell.row, cell.col];
    this.render();
    this.causalPrompt.answer(this.picked);
  }

  /** Judges a picked cell [i, j] against the engine's causal mask, before the mask is shown. */
  judgePick([i, j]) {
    const { Q, K, V, X } = this.inputs;
    const [q, k, v] = this.st.self ? [X, X, X] : [Q, K, V];
    const masked = this.lab.attention(q, k, v, { causal: true, stages: ['masked'] }).masked.get(i, j) === -Infinity;
    const tokens = this.inputs.tokens;
    return masked
      ? { ok: true, close: true, message: `Right: "${tokens[i]}" may not look ahead at "${tokens[j]}", so the mask sets that weight to 0. Tick "causal mask" to see every cell it hides.` }
      : { ok: true, close: false, message: `Not this one: "${tokens[j]}" comes at or before "${tokens[i]}", so "${tokens[i]}" may still see it. Only cells above the diagonal (later keys) are masked: tick "causal mask" to see them.`,
        hint: `"${tokens[j]}" comes at or before "${tokens[i]}". May a token look at a word it has already read? Pick another cell.` };
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
      showNumbers: st.numbers, picked: this.picked || null, hiddenRows: this.hiddenRows(), hiddenNote: (i) => this.hiddenNote(i) });
    // The temperature question names the row's favourite key: it waits until that row is shown.
    if (this.temperaturePrompt) this.temperaturePrompt.root.hidden = this.hiddenRows().includes(this.tempRow) || Boolean(this.sentence && this.sentence.own);
    setText(this.caption, `Scale ${num(r.scale, 4)}${st.causal ? ', causal mask on' : ''}${st.self ? ', Q = K = V = X' : ''}. Each row sums to 1.`);
    this.frame.dataset.causal = String(st.causal);
    this.showRenorm(this.renormRow === null || this.renormRow === undefined || this.renormRow >= tokens.length ? undefined : this.renormRow);
    if (save) this.saveState({ causal: st.causal, scaling: st.scaling, temperature: TEMPERATURES[st.temp], self: st.self, numbers: st.numbers, words: this.sentence ? this.sentence.linkWords(tokens) : undefined });
  }
}

module.exports = { AttentionHeatmap };
