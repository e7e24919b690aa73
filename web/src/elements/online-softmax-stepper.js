'use strict';
// <online-softmax-stepper>: one query row processed block by block, the way a tiled
// (FlashAttention-style) kernel does it: per block the scores, the block max, the running
// max, the rescale factor, the running sum and output; at the end o / l beside ordinary
// attention. Every number comes from the engine's explainOnlineSoftmax.

const { h, uid, scrollBox } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { PredictView } = require('../kit/predict-view.js');
const { resolveInputs } = require('../kit/inputs.js');
const steps = require('../ui/online-softmax.js');
const { num, vector, MINUS } = require('../ui/format.js');

const BLOCKS = [1, 2, 3, 4, 6, 8];
const WINDOWS = [2, 3, 4, 6, 8];

class OnlineSoftmaxStepper extends LabElement {
  static get jsonKeys() { return []; }

  async setup(lab, data) {
    const tokens = data.tokens || steps.DEFAULT_TOKENS;
    this.inputs = resolveInputs(lab, { tokens }, this.localName);
    this.words = this.inputs.tokens;
    const n = this.words.length;
    const q = this.words.indexOf(this.attr('query', ''));
    const it = this.words.lastIndexOf('it');
    this.st = { query: q >= 0 ? q : it >= 0 ? it : n - 1, block: Math.min(4, n), causal: false, window: 0, step: 0 };
    this.fromAttributes();
    this.answered = new Map();
    const ids = { query: uid(), block: uid(), causal: uid(), window: uid() };
    this.querySelect = h('select', { id: ids.query, onchange: () => this.guard(() => this.set({ query: Number(this.querySelect.value) })) },
      this.words.map((t, i) => h('option', { value: String(i) }, `${i + 1}. ${t}`)));
    this.blockSelect = h('select', { id: ids.block, onchange: () => this.guard(() => this.set({ block: Number(this.blockSelect.value) })) },
      BLOCKS.filter((b) => b <= n).map((b) => h('option', { value: String(b) }, String(b))));
    this.causalBox = h('input', { id: ids.causal, type: 'checkbox', onchange: () => this.guard(() => this.set({ causal: this.causalBox.checked })) });
    this.windowSelect = h('select', { id: ids.window, onchange: () => this.guard(() => this.set({ window: Number(this.windowSelect.value) })) },
      h('option', { value: '0' }, 'off'), WINDOWS.filter((w) => w < n).map((w) => h('option', { value: String(w) }, `last ${w} keys`)));
    this.back = h('button', { type: 'button', onclick: () => this.guard(() => this.go(this.st.step - 1)) }, '\u25c0 Back');
    this.next = h('button', { type: 'button', class: 'al-primary', onclick: () => this.guard(() => this.go(this.st.step + 1)) }, 'Next \u25b6');
    this.stepList = h('ol', { class: 'al-steps', part: 'steps', tabindex: '-1', 'aria-label': 'The blocks of keys, one step each' });
    this.stepTitle = h('h3', {});  // the narration (live) announces each step once
    this.strip = h('div', { class: 'al-os-strip' });
    this.prompt = h('div', { part: 'prompt' });
    this.panel = h('div', { class: 'al-panel', part: 'table' });
    this.narration = h('p', { class: 'al-narration', part: 'narration', 'aria-live': 'polite' });
    this.frame.replaceChildren(
      h('div', { class: 'al-controls', part: 'controls' },
        h('label', { for: ids.query }, 'query', this.querySelect),
        h('label', { for: ids.block }, 'block size', this.blockSelect),
        h('label', { for: ids.causal }, this.causalBox, 'causal mask'),
        h('label', { for: ids.window }, 'window', this.windowSelect)),
      h('div', { class: 'al-controls', part: 'controls' }, this.back, this.next, h('span', { class: 'al-muted' }, 'or use \u2190 \u2192 keys')),
      this.stepList, this.stepTitle, this.strip, this.prompt, this.panel, this.narration);
    // Two tasks: the view, then the engine's blocks drawn into it.
    const state = this.readState();
    await this.pause();
    this.restore(state, false);
  }

  /** The state attributes (query, block, causal, window) over the current state. */
  fromAttributes() {
    const q = this.words.indexOf(this.attr('query', ''));
    if (q >= 0) this.st.query = q;
    const block = this.attr('block');
    if (block !== undefined) this.st.block = Math.min(block, this.words.length);
    const causal = this.attr('causal');
    if (causal !== undefined) this.st.causal = causal;
    const w = this.attr('window');
    if (w !== undefined) this.st.window = Math.min(w, this.words.length);
  }

  applyAttribute() {
    this.fromAttributes();
    this.st.step = 0;
    this.answered = new Map();
    this.render();
  }

  viewState() {
    const e = this.explain;
    return { query: this.words[this.st.query], queryIndex: this.st.query, block: this.st.block, causal: this.st.causal, window: this.st.window || null,
      step: this.stepsList[this.st.step].id, stepIndex: this.st.step, blocks: e ? e.blocks.length : 0 };
  }

  restore(s, save = true) {
    const n = this.words.length;
    this.st.query = urlState.int(s.query, this.st.query, 0, n - 1);
    this.st.block = urlState.int(s.block, this.st.block, 1, n);
    this.st.causal = urlState.bool(s.causal, this.st.causal);
    this.st.window = urlState.int(s.window, this.st.window, 0, n);
    this.compute();
    this.st.step = urlState.int(s.step, this.st.step, 0, this.stepsList.length - 1);
    this.render(save);
  }

  set(change) {
    Object.assign(this.st, change, { step: 0 });
    this.answered = new Map();
    this.render();
  }

  onKey(e) {
    const tag = e.target && e.target.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
    if (e.key === 'ArrowRight') { e.preventDefault(); this.go(this.st.step + 1); }
    if (e.key === 'ArrowLeft') { e.preventDefault(); this.go(this.st.step - 1); }
  }

  go(step) {
    const active = this.shadowRoot.activeElement;
    this.st.step = Math.max(0, Math.min(this.stepsList.length - 1, step));
    this.render();
    // A disabled button drops focus to <body>: hand it to the other button, which is enabled.
    if (active === this.next && this.next.disabled) this.back.focus();
    else if (active === this.back && this.back.disabled) this.next.focus();
  }

  /** The engine's explanation for the current query and options. */
  compute() {
    const { query, block, causal, window } = this.st;
    const opts = { block, causal };
    if (window) opts.window = window;
    this.explain = this.lab.explainOnlineSoftmax(this.inputs.Q, this.inputs.K, this.inputs.V, query, opts);
    this.stepsList = steps.stepsOf(this.explain);
  }

  /**
   * With a mask on, the first question is how many blocks the kernel will skip: until it is
   * answered (or skipped) nothing marks a block as skipped and the steps stay at the start.
   */
  skipsPending() {
    return Boolean(this.st.causal || this.st.window) && !this.answered.has('skips');
  }

  render(save = true) {
    this.compute();
    const { st, explain: e, words: tokens } = this;
    const pending = this.skipsPending();
    st.step = pending ? 0 : Math.min(st.step, this.stepsList.length - 1);
    const step = this.stepsList[st.step];
    this.querySelect.value = String(st.query);
    this.blockSelect.value = String(st.block);
    this.causalBox.checked = st.causal;
    this.windowSelect.value = String(st.window);
    this.back.disabled = st.step === 0;
    this.next.disabled = pending || st.step === this.stepsList.length - 1;
    const marked = (s) => !pending && s.kind === 'block' && s.block.skipped;
    this.stepList.replaceChildren(...this.stepsList.map((s, i) => h('li', { 'aria-current': i === st.step ? 'step' : null,
      class: marked(s) ? 'al-skipped' : null }, marked(s) ? `${s.title} (skipped)` : s.title)));
    this.stepTitle.textContent = `Step ${st.step + 1} of ${this.stepsList.length}: ${step.kind === 'block' ? `${step.title}, ${steps.keysOf(tokens, step.block)}` : step.kind === 'start' ? 'start with nothing' : 'divide by the running sum'}`;
    this.frame.dataset.step = step.id;
    const revealed = step.kind !== 'block' || !steps.asksAbout(step.block) || this.answered.has(step.index);
    this.renderStrip(step, pending);
    this.renderPrompt(step, revealed);
    this.panel.replaceChildren(this[`panel_${step.kind}`](step, revealed));
    this.narration.textContent = step.kind === 'start' ? steps.narrateStart(tokens, e)
      : step.kind === 'block' ? steps.narrateBlock(tokens, e, step.index, revealed)
        : steps.narrateFinish(tokens, e, this.finishDiff());
    if (save) this.saveState({ query: st.query, block: st.block, causal: st.causal, window: st.window || undefined, step: st.step });
  }

  /** The engine's largest difference between the online output and ordinary attention. */
  finishDiff() {
    return this.lab.maxAbsDiff(this.lab.tensor([this.explain.output]), this.lab.tensor([this.explain.fullOutput]));
  }

  /** Every key's scaled score in one strip, blocks side by side, the current block marked. */
  renderStrip(step, pending) {
    const { explain: e, words: tokens } = this;
    // While the skip question is open the scores stay hidden: the masked ones would answer it.
    const groups = e.blocks.map((b, i) => {
      const current = step.kind === 'block' && step.index === i;
      const skipped = !pending && b.skipped;
      return h('div', { class: `al-os-block${current ? ' al-current' : ''}${skipped ? ' al-skipped' : ''}`, role: 'group',
        'aria-label': `block ${i + 1}${skipped ? ', skipped' : ''}${current ? ', current' : ''}` },
      b.scores.map((s, k) => h('span', { class: `al-os-key${!pending && s === -Infinity ? ' al-masked-key' : ''}`, title: tokens[b.start + k] },
        h('span', { class: 'al-os-token' }, tokens[b.start + k]),
        h('span', { class: 'al-os-score' }, pending ? '?' : s === -Infinity ? `${MINUS}\u221e` : num(s, 2)))));
    });
    const what = pending ? 'the scores appear once you answer' : `scale ${num(e.scale, 4)}; ${MINUS}\u221e = masked`;
    this.strip.replaceChildren(h('p', { class: 'al-muted' }, `Scaled scores of "${tokens[e.row]}" against every key (${what}), in blocks of ${this.st.block}:`),
      scrollBox(`Scores of "${tokens[e.row]}" by block`, h('div', { class: 'al-os-blocks' }, groups)));
  }

  renderPrompt(step, revealed) {
    if (step.kind === 'start' && (this.st.causal || this.st.window)) {
      this.renderSkipPrompt();
      return;
    }
    if (step.kind !== 'block' || !steps.asksAbout(step.block)) {
      this.prompt.replaceChildren();
      return;
    }
    const block = step.block, index = step.index;
    const view = new PredictView({
      question: `after block ${index + 1}, does the running max m (now ${num(block.maxBefore, 3)}) change?`,
      choices: steps.MAX_CHOICES,
      judge: (choice) => steps.judgeMaxChange(choice, block),
      onReveal: (choice) => this.guard(() => {
        this.answered.set(index, steps.judgeMaxChange(choice, block).message);
        this.render();
      }),
      printAnswer: () => steps.judgeMaxChange(steps.raisesMax(block) ? 'up' : 'same', block).message.replace(/^Right: /, ''),
    });
    if (revealed) {
      view.revealed = true;
      view.root.querySelector('.al-group').remove();
      view.verdict.replaceChildren(h('span', { class: this.answered.get(index).startsWith('Right') ? 'al-verdict-ok' : 'al-verdict-bad' }, this.answered.get(index)));
    }
    const focusInPrompt = this.prompt.contains(this.shadowRoot.activeElement);
    this.prompt.replaceChildren(view.root);
    if (focusInPrompt) (revealed ? this.next : view.root.querySelector('button') || this.next).focus();
  }

  /** The start step's question under a mask: how many blocks will the kernel skip? */
  renderSkipPrompt() {
    const { explain: e, words: tokens } = this;
    const seen = this.st.window ? `a window of the last ${this.st.window} keys${this.st.causal ? ' and the causal mask' : ''}` : 'the causal mask';
    const view = new PredictView({
      question: `with ${seen}, how many of the ${e.blocks.length} blocks will the kernel skip for "${tokens[e.row]}" without reading them?`,
      choices: steps.skipChoices(e),
      judge: (choice) => steps.judgeSkips(choice, tokens, e),
      skip: 'Show me without predicting',
      onReveal: (choice) => this.guard(() => {
        this.answered.set('skips', choice === null ? null : steps.judgeSkips(choice, tokens, e));
        this.render();
        this.next.focus();
      }),
      printAnswer: () => steps.judgeSkips(steps.skippedBlocks(e).length, tokens, e).message.replace(/^Right: /, ''),
    });
    if (this.answered.has('skips')) {
      const verdict = this.answered.get('skips');
      view.revealed = true;
      view.root.querySelector('.al-group').remove();
      view.root.querySelector('.al-skip').parentElement.remove();
      view.verdict.replaceChildren(verdict ? h('span', { class: verdict.close ? 'al-verdict-ok' : 'al-verdict-bad' }, verdict.message)
        : h('span', {}, steps.judgeSkips(steps.skippedBlocks(e).length, tokens, e).message.replace(/^Right: /, '')));
    }
    const focusInPrompt = this.prompt.contains(this.shadowRoot.activeElement);
    this.prompt.replaceChildren(view.root);
    if (focusInPrompt) (this.answered.has('skips') ? this.next : view.root.querySelector('button')).focus();
  }

  /** A table of the running state: rows m, rescale, l, o; columns before and after. */
  stateTable(before, after, caption) {
    const row = (name, b, a) => h('tr', {}, h('th', { scope: 'row' }, name), h('td', { 'data-label': 'before' }, b), h('td', { class: 'al-after', 'data-label': 'after' }, a));
    return scrollBox(caption, h('table', { class: 'al-table al-stack al-os-state' }, h('caption', { class: 'al-sr' }, caption),
      h('thead', {}, h('tr', {}, h('th', {}, 'running value'), h('th', {}, 'before'), h('th', {}, 'after'))),
      h('tbody', {}, row('max m', before.m, after.m), row('rescale factor', '', after.rescale), row('sum l', before.l, after.l), row('output o', before.o, after.o))));
  }

  panel_start() {
    const d = this.explain.blocks.length ? this.explain.blocks[0].outputBefore.length : 0;
    const zeros = vector(new Array(d).fill(0), 0);
    return this.stateTable({ m: `${MINUS}\u221e`, l: '0', o: zeros }, { m: '', rescale: '', l: '', o: '' }, `Running values of "${this.words[this.st.query]}" before any block`);
  }

  panel_block(step, revealed) {
    const b = step.block;
    const hide = (x) => (revealed ? x : '?');
    return h('div', {},
      h('p', {}, 'Block max: ', h('strong', {}, b.skipped ? 'none (every key masked)' : hide(num(b.blockMax, 4)))),
      this.stateTable(
        { m: num(b.maxBefore, 4), l: num(b.sumBefore, 4), o: vector(b.outputBefore, 3) },
        b.skipped ? { m: num(b.maxAfter, 4), rescale: 'skipped', l: num(b.sumAfter, 4), o: vector(b.outputAfter, 3) }
          : { m: hide(num(b.maxAfter, 4)), rescale: hide(num(b.rescale, 4)), l: hide(num(b.sumAfter, 4)), o: hide(vector(b.outputAfter, 3)) },
        `Running values of "${this.words[this.st.query]}" around block ${step.index + 1}`));
  }

  panel_finish() {
    const e = this.explain;
    const last = e.blocks[e.blocks.length - 1];
    const diff = this.finishDiff();
    const row = (name, v) => h('tr', {}, h('th', { scope: 'row' }, name), h('td', {}, v));
    const label = `The result for "${this.words[this.st.query]}"`;
    return scrollBox(label, h('table', { class: 'al-table al-os-result' }, h('caption', { class: 'al-sr' }, label),
      h('tbody', {},
        row('running sum l', num(last ? last.sumAfter : 0, 4)),
        row('output o / l', vector(e.output, 4)),
        row('ordinary attention', vector(e.fullOutput, 4)),
        row('largest difference', h('strong', { class: diff <= 1e-5 ? 'al-verdict-ok' : 'al-verdict-bad' }, num(diff, 3))),
        row('log-sum-exp m + log l', num(e.lse, 4)))));
  }
}

module.exports = { OnlineSoftmaxStepper };
