'use strict';
// <kv-cache-stepper>: a decoder generating token by token with a KV cache. Each step
// appends the new token's key and value (the cache grows a row), attends the new query over
// the cache, counts multiply-adds with and without the cache, and checks the row against
// full causal attention over the same tokens. A switch shares key/value heads (GQA, MQA)
// and the cache's bytes shrink. Every number comes from the engine (createKVCache,
// attention, maxAbsDiff, kvCacheBytes).

const { h, uid, scrollBox } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { HeatmapView } = require('../kit/heatmap-view.js');
const { PredictView } = require('../kit/predict-view.js');
const { seedFrom } = require('../ui/author-data.js');
const kv = require('../ui/kv-cache.js');
const { range, pictureCells } = require('../ui/matrix-picture.js');
const { pictureReadout } = require('../kit/picture-readout.js');
const { num, grouped, counted } = require('../ui/format.js');

const { HEADS, D_HEAD, MAX_TOKENS, DEFAULT_TOKENS } = kv;
// The doubling question compares one step at these prefix lengths.
const DOUBLE = [4, 8];

class KvCacheStepper extends LabElement {
  static get jsonKeys() { return []; }

  async setup(lab, data) {
    const tokens = data.tokens || DEFAULT_TOKENS;
    if (tokens.length < DOUBLE[1] || tokens.length > MAX_TOKENS) {
      throw new Error(`<${this.localName}>: tokens has ${tokens.length} words; expected ${DOUBLE[1]} to ${MAX_TOKENS}`);
    }
    this.words = tokens;
    Object.assign(this, kv.seededInputs(lab, seedFrom(tokens.join(' ')), tokens.length));
    this.choices = kv.kvChoices(HEADS);
    this.st = { step: 0, kvHeads: HEADS };
    const attrKv = this.attr('kv-heads');
    if (attrKv !== undefined) this.st.kvHeads = Number(attrKv);
    this.doublingAnswered = null;

    const ids = { kv: uid() };
    this.kvSelect = h('select', { id: ids.kv, onchange: () => this.guard(() => this.set({ kvHeads: Number(this.kvSelect.value) })) },
      this.choices.map((c) => h('option', { value: String(c.kvHeads) }, c.label)));
    this.back = h('button', { type: 'button', onclick: () => this.guard(() => this.go(this.st.step - 1)) }, '\u25c0 Back');
    this.next = h('button', { type: 'button', class: 'al-primary', onclick: () => this.guard(() => this.go(this.st.step + 1)) }, 'Next token \u25b6');
    this.chips = h('ol', { class: 'al-steps al-kv-tokens', part: 'steps', tabindex: '-1', 'aria-label': 'Tokens generated so far' });
    this.stepTitle = h('h3', {});  // the narration (live) announces each step once
    this.pictures = h('div', { class: 'al-row al-kv-cache', part: 'cache' });
    this.picturesReadout = pictureReadout(this.pictures);
    this.view = new HeatmapView({
      label: 'Weights of the newest query over the cache: one row per query head, one column per cached token',
      title: 'New query weights over the KV cache',
      words: { rowWord: 'head', colWord: 'key' },
      caption: () => `Step ${this.st.step + 1}: the query of "${this.words[this.st.step]}" over ${this.st.step + 1} cached tokens; ${HEADS} query heads, ${this.st.kvHeads} key/value heads, d_head = ${D_HEAD}.`,
      settings: () => ({ step: this.st.step + 1, heads: HEADS, kvHeads: this.st.kvHeads, dHead: D_HEAD }),
    });
    this.figures = h('div', { part: 'table' });
    this.bytesBox = h('div', { class: 'al-kv-bytes' });
    this.narration = h('p', { class: 'al-narration', part: 'narration', 'aria-live': 'polite' });
    this.predict = new PredictView({
      question: `without a cache, every new token recomputes causal attention over the whole prefix. When the prefix doubles from ${DOUBLE[0]} to ${DOUBLE[1]} tokens, ` +
        'how many times more multiply-adds does one step take?',
      choices: kv.DOUBLING_CHOICES.map((c) => ({ label: `about ${c}\u00d7`, value: c })),
      judge: (choice) => kv.judgeDoubling(choice, this.doubling()),
      onReveal: (choice) => this.guard(() => {
        this.doublingAnswered = kv.judgeDoubling(choice, this.doubling());
        const focused = this.predict.root.contains(this.shadowRoot.activeElement);
        this.render();
        if (focused) this.next.focus();
      }),
      printAnswer: () => kv.judgeDoubling(kv.nearestChoice(this.doubling().large / this.doubling().small), this.doubling()).message.replace(/^Right: /, ''),
    });
    this.predict.root.setAttribute('part', 'prompt');
    this.frame.replaceChildren(
      // The options name the sharing in words: on a phone the menu takes a line of its own.
      h('div', { class: 'al-controls', part: 'controls' }, h('label', { for: ids.kv, class: 'al-wrap' }, 'key/value heads', this.kvSelect)),
      h('div', { class: 'al-controls', part: 'controls' }, this.back, this.next, h('span', { class: 'al-muted' }, 'or use \u2190 \u2192 keys')),
      this.chips, this.stepTitle, this.predict.root, this.pictures, this.picturesReadout.line,
      h('p', { class: 'al-muted' }, `The newest query's weights over the cache, one row per query head (h1 to h${HEADS}):`), this.view.root,
      this.figures, this.bytesBox, this.narration);
    // Three tasks: the view, the engine's run, the drawing.
    this.takeState(this.readState());
    await this.pause();
    this.generate();
    await this.pause();
    this.render(false);
  }

  viewState() {
    const s = this.run[this.st.step];
    return { step: this.st.step + 1, token: this.words[this.st.step], kvHeads: this.st.kvHeads, heads: HEADS, length: s.length, bytes: s.bytes,
      multiplyAdds: s.multiplyAdds, diff: s.diff, answered: Boolean(this.doublingAnswered) };
  }

  restore(s, save = true) {
    this.takeState(s);
    this.generate();
    this.render(save);
  }

  takeState(s) {
    this.st.kvHeads = Number(urlState.choice(s.kv, this.choices.map((c) => String(c.kvHeads)), String(this.st.kvHeads)));
    this.st.step = urlState.int(s.step, this.st.step, 0, this.words.length - 1);
  }

  applyAttribute(property, value) {
    if (property === 'kvHeads') this.set({ kvHeads: value === undefined ? HEADS : Number(value) });
  }

  set(change) {
    const kvChanged = change.kvHeads !== undefined && change.kvHeads !== this.st.kvHeads;
    Object.assign(this.st, change);
    if (kvChanged) this.generate();
    this.render();
  }

  onKey(e) {
    const tag = e.target && e.target.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
    if (e.target && e.target.getAttribute && e.target.getAttribute('role') === 'gridcell') return;
    if (e.key === 'ArrowRight') { e.preventDefault(); this.go(this.st.step + 1); }
    if (e.key === 'ArrowLeft') { e.preventDefault(); this.go(this.st.step - 1); }
  }

  go(step) {
    const active = this.shadowRoot.activeElement;
    this.st.step = Math.max(0, Math.min(this.words.length - 1, step));
    this.render();
    if (active === this.next && this.next.disabled) this.back.focus();
    else if (active === this.back && this.back.disabled) this.next.focus();
  }

  /**
   * Generates the whole sentence once with a cache of the chosen key/value heads, keeping each
   * step's engine figures, and checks every step against row t of full causal attention.
   */
  generate() {
    const lab = this.lab, n = this.words.length, kvHeads = this.st.kvHeads;
    const Kh = kv.prefix(this.K, n, kvHeads), Vh = kv.prefix(this.V, n, kvHeads);
    const Kshared = kv.shareHeads(Kh, HEADS), Vshared = kv.shareHeads(Vh, HEADS);
    // Under the causal mask row t of attention over all n tokens sees only tokens 0..t: it is
    // the recomputation over the t + 1 token prefix, so one call serves every step.
    const full = lab.attention(this.Q, Kshared, Vshared, { causal: true, stages: ['output'] });
    const cache = lab.createKVCache({ heads: HEADS, kvHeads, dHead: D_HEAD, maxLength: n });
    try {
      this.run = [];
      for (let t = 0; t < n; t++) {
        cache.append(kv.tokenRows(Kh, t), kv.tokenRows(Vh, t));
        const r = cache.attend(kv.tokenRows(this.Q, t));
        const fullRow = kv.tokenRows(full.output, t);
        this.run.push({
          length: cache.length, bytes: cache.bytes, bytesPerToken: cache.bytesPerToken,
          multiplyAdds: r.multiplyAdds, withoutCache: r.multiplyAddsWithoutCache,
          decodeTotal: r.decodeMultiplyAdds, decodeTotalWithout: r.decodeMultiplyAddsWithoutCache,
          weights: kv.rowsOf(r.weights), output: kv.rowsOf(r.output), diff: lab.maxAbsDiff(r.output, lab.tensor(fullRow)),
        });
      }
    } finally {
      cache.dispose();
    }
    this.Kh = Kh;
    this.Vh = Vh;
    this.range = range(kv.cacheRows(kv.perHeadRows(Kh)), kv.cacheRows(kv.perHeadRows(Vh)));
  }

  /** The engine's figures for the doubling question. */
  doubling() {
    const [a, b] = DOUBLE.map((len) => this.run[len - 1]);
    return { from: DOUBLE[0], to: DOUBLE[1], small: a.withoutCache, large: b.withoutCache, withSmall: a.multiplyAdds, withLarge: b.multiplyAdds };
  }

  render(save = true) {
    const { st, words: tokens } = this;
    const t = st.step, s = this.run[t];
    const hidden = !this.doublingAnswered;
    this.kvSelect.value = String(st.kvHeads);
    this.back.disabled = t === 0;
    this.next.disabled = t === tokens.length - 1;
    this.frame.dataset.step = String(t + 1);
    this.chips.replaceChildren(...tokens.map((w, i) => h('li', { 'aria-current': i === t ? 'step' : null, class: i > t ? 'al-future' : null, title: w },
      i > t ? h('span', {}, h('span', { class: 'al-sr' }, 'not yet generated: '), w) : w)));
    this.stepTitle.textContent = `Step ${t + 1} of ${tokens.length}: "${tokens[t]}" joins the cache`;
    if (hidden) this.predict.root.hidden = false;
    this.renderPictures(t);
    this.view.update({ weights: s.weights, masked: null, rowLabels: Array.from({ length: HEADS }, (_, i) => `h${i + 1}`),
      colLabels: tokens.slice(0, t + 1), showNumbers: t < 8 });
    this.renderFigures(t, hidden);
    this.renderBytes(t);
    this.narration.textContent = kv.narrateStep({ tokens, t, heads: HEADS, kvHeads: st.kvHeads, multiplyAdds: s.multiplyAdds,
      withoutCache: hidden ? null : s.withoutCache, bytes: s.bytes, bytesPerToken: s.bytesPerToken, diff: s.diff });
    if (save) this.saveState({ step: t, kv: st.kvHeads });
  }

  /** The K and V caches as pictures: one row per cached token, the key/value heads side by side. */
  renderPictures(t) {
    const picture = (title, tensor) => {
      const rows = kv.cacheRows(kv.perHeadRows(kv.prefix(tensor, t + 1)));
      const cells = pictureCells(rows, this.range);
      return h('div', { class: 'al-matrix', role: 'group', 'aria-label': title }, h('p', { class: 'al-matrix-title' }, title),
        h('table', { class: 'al-matrix-table' },
          h('caption', { class: 'al-sr' }, `${title}: ${counted(rows.length, 'row')} (tokens) by ${rows[0].length} columns (${counted(this.st.kvHeads, 'head')} of ${D_HEAD})`),
          h('tbody', {}, cells.map((row, i) => h('tr', { class: i === t ? 'al-new' : null },
            h('th', { scope: 'row', title: this.words[i] }, this.words[i]),
            row.map((c, j) => h('td', { title: c.text, class: j > 0 && j % D_HEAD === 0 ? 'al-head-edge' : null,
              style: { backgroundColor: c.background, color: c.foreground } }, h('span', { class: 'al-sr' }, c.text))))))));
    };
    this.picturesReadout.reset();
    this.pictures.replaceChildren(picture(`K cache [${t + 1} \u00d7 ${this.st.kvHeads * D_HEAD}]`, this.Kh), picture(`V cache [${t + 1} \u00d7 ${this.st.kvHeads * D_HEAD}]`, this.Vh));
  }

  renderFigures(t, hidden) {
    const s = this.run[t];
    const withTotal = s.decodeTotal, withoutTotal = s.decodeTotalWithout;
    const secret = (x) => (hidden ? '?' : grouped(x));
    const row = (name, ...cells) => h('tr', {}, h('th', { scope: 'row' }, name), cells.map((c) => h('td', {}, c)));
    this.figures.replaceChildren(scrollBox('Cost of this step', h('table', { class: 'al-table al-kv-figures' },
      h('caption', { class: 'al-sr' }, 'Attention\u2019s multiply-adds in one layer, with and without the cache'),
      h('thead', {}, h('tr', {}, h('th', {}, 'attention multiply-adds'), h('th', {}, 'with the cache'), h('th', {}, 'without'))),
      h('tbody', {},
        row('this token', grouped(s.multiplyAdds), secret(s.withoutCache)),
        // The total with the cache equals this step without it (both count every earlier
        // score once), so it stays hidden with the answer.
        row(t === 0 ? 'the first token' : `all ${t + 1} tokens so far`, secret(withTotal), secret(withoutTotal))))),
    // (replaceChildren would write a null as the text "null")
    ...(!hidden && t > 0 && withTotal === s.withoutCache
      ? [h('p', {}, `Generating all ${t + 1} tokens with the cache took ${grouped(withTotal)} multiply-adds: as many as this one step without it. ` +
        'Without the cache each step redoes the work of every step before it.')]
      : []),
    h('p', { class: 'al-muted al-kv-scope' }, kv.SCOPE_NOTE),
    h('p', {}, `New row vs row ${t + 1} of full causal attention: largest difference `,
      h('strong', { class: s.diff <= 1e-5 ? 'al-verdict-ok' : 'al-verdict-bad', dataset: { diff: String(s.diff) } }, num(s.diff, 3)),
      s.diff <= 1e-5 ? ' (the same row)' : ' (they differ!)'));
  }

  /** Cache bytes now for each choice of key/value heads (engine: kvCacheBytes), the current one marked. */
  renderBytes(t) {
    const sizes = this.choices.map((c) => ({ ...c, bytes: this.lab.kvCacheBytes({ kvHeads: c.kvHeads, dHead: D_HEAD, dtype: 'float32', tokens: t + 1 }).bytes }));
    const most = Math.max(...sizes.map((x) => x.bytes));
    this.bytesBox.replaceChildren(h('p', { class: 'al-muted' }, `Cache size after ${counted(t + 1, 'token')} (float32, one layer):`),
      h('table', { class: 'al-table al-kv-bytes-table' }, h('caption', { class: 'al-sr' }, 'Cache bytes for each number of key/value heads'),
        h('tbody', {}, sizes.map((x) => h('tr', { class: x.kvHeads === this.st.kvHeads ? 'al-current' : null },
          h('th', { scope: 'row' }, `${x.name}, ${x.kvHeads} kv ${x.kvHeads === 1 ? 'head' : 'heads'}`),
          h('td', {}, kv.bytesText(x.bytes)),
          h('td', { class: 'al-bar-cell' }, h('span', { class: 'al-bar', style: { width: `${Math.round((x.bytes / most) * 120)}px` }, 'aria-hidden': 'true' })))))));
  }
}

module.exports = { KvCacheStepper };
