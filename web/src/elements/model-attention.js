'use strict';
// <model-attention>: what a model attends to, every layer and head of it, from attention an
// author pasted ({ tokens, attentions }: a child JSON script, the data property, or a src
// file on the page's own origin), through setAttention() from a model that runs in the page,
// or, with the model attribute, from the trained model shipped beside the kit reading the
// learner's own text (a text box above the views, with the model's five likeliest next tokens). Three views of one attention set, in tabs: the model view (a thumbnail per head; one
// opens as a full heatmap with its readout and export), the head view (tokens in two columns,
// lines as strong as the weights) and the head summary (the engine's scores per head, sorted
// and filtered). Large sets are decoded, checked, scored and painted a layer per task.

const { h, uid, setText } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { HeatmapView } = require('../kit/heatmap-view.js');
const { ModelView } = require('../kit/model-view.js');
const { HeadView } = require('../kit/head-view.js');
const { HeadSummary } = require('../kit/head-summary.js');
const schedule = require('../kit/schedule.js');
const { readAttentionData, pattern, layerName, headName, metaLine, MAX_JSON_LENGTH, KEYS } = require('../ui/attention-data.js');
const { readAuthorData } = require('../ui/author-data.js');
const { SCORES, SORTS } = require('../ui/head-table.js');
const { patternProblemText } = require('../api/heads.js');
const { fixed, counted } = require('../ui/format.js');
const { modelText } = require('../kit/model-text-box.js');
const { modelKnockout } = require('../kit/model-knockout.js');
const { shippedModel } = require('../kit/shipped-model.js');
const { MAX_TEXT, tokenLabel } = require('../ui/model-text.js');

// The knock-out's tab shows only with a model in the page (kit/model-knockout.js).
const VIEWS = [['model', 'Model view'], ['heads', 'Head view'], ['summary', 'Summary'], ['knockout', 'Knock out']];
const STEP_MS = 8;  // work per task while a large set is decoded, scored and painted

class ModelAttention extends LabElement {
  // Its own keys only; any other key is the file's metadata (model, sentence, source, licence), kept.
  static get jsonKeys() { return { keys: KEYS, keepUnknown: true }; }

  static get maxJsonLength() { return MAX_JSON_LENGTH; }

  async setup(lab, data) {
    this.buildFrame();
    const modelName = this.attr('model');
    // The model's script: the page's own (deferred after the kit, registered once the page's
    // deferred scripts have run), or the shipped one fetched now that the element is near.
    if (modelName !== undefined) {
      await shippedModel(modelName).catch((err) => { throw new Error(`<${this.localName}>: model="${modelName}" cannot be loaded: ${err.message}`); });
      await this.pause();  // the model is read in a task of its own, not in the one that ran the page's scripts
    }
    const raw = modelName === undefined ? await this.authorData(data) : this.startModel(lab, modelName);
    if (modelName === undefined && raw.attentions === undefined && raw.tokens === undefined) {
      // Nothing given yet: the data comes later from a script (setAttention, the data property) or a fetch.
      this.wait();
      return;
    }
    const { set, rows } = await this.decode(lab, raw);
    await this.present(set, rows);
    this.ask(this.attr('predict', false));
    const open = this.attr('open');
    if (open !== undefined && !parseOpen(open)) throw new Error(`<${this.localName}>: open is "${open}"; expected a layer and a head such as "5.1" (counted from 0)`);
    if (open !== undefined) this.openHead(...parseOpen(open), { save: false });
    this.restore(this.readState(), false);
  }

  /** The state of an element given no data yet: a line in place of the views until data arrives. */
  wait() {
    this.tablist.hidden = true;
    setText(this.about, 'Waiting for the attention data.');
    this.about.setAttribute('role', 'status');
  }

  buildFrame() {
    this.st = { view: 'model', open: null };
    this.ko = null;
    // Room for a row of inputs above the views (a model's sentence box): empty for pasted data.
    this.inputRow = h('div', { class: 'al-model-input', part: 'input', hidden: true });
    this.about = h('p', { class: 'al-muted' });
    this.tablist = h('div', { class: 'al-tabs', role: 'tablist', 'aria-label': 'Views of the attention' });
    this.tabs = {};
    this.panels = {};
    for (const [id, label] of VIEWS) {
      const tabId = uid(), panelId = uid();
      this.tabs[id] = h('button', { type: 'button', role: 'tab', id: tabId, 'aria-controls': panelId, 'aria-selected': 'false', tabindex: '-1',
        onclick: () => this.guard(() => this.setView(id)) }, label);
      this.panels[id] = h('div', { role: 'tabpanel', id: panelId, 'aria-labelledby': tabId, class: 'al-view', hidden: true });
      this.tablist.append(this.tabs[id]);
    }
    this.tabs.knockout.hidden = true;
    this.tablist.addEventListener('keydown', (e) => this.guard(() => this.onTabKey(e)));

    this.modelView = new ModelView({ onOpen: (l, hd) => this.guard(() => this.openHead(l, hd)), describe: (l, hd) => this.scoreWords(l, hd) });
    this.headTitle = h('h3', { class: 'al-open-title' });
    this.headScores = h('p', { class: 'al-muted al-open-scores' });
    this.heatmap = new HeatmapView({
      label: 'Weights of the open head: one row per query token, one column per key token', digits: 3,
      caption: () => this.headCaption(),
      settings: () => ({ layer: this.st.open[0], head: this.st.open[1], layerName: layerName(this.set, this.st.open[0]),
        headName: headName(this.set, this.st.open[1]), causal: this.set.causal, tokens: this.set.tokens.length }),
    });
    this.headPanel = h('div', { class: 'al-open-head', hidden: true }, this.headTitle, this.headScores, this.heatmap.root);
    this.openHint = h('p', { class: 'al-muted' }, 'Brighter is more weight. Click, tap or press Enter on a head to open it below; the arrow keys move between heads.');
    this.panels.model.append(this.openHint, this.modelView.root, this.headPanel);

    this.headView = new HeadView({ onChange: () => this.saveState() });
    this.panels.heads.append(this.headView.root);
    this.summary = new HeadSummary({ onOpen: (l, hd) => this.guard(() => this.openHead(l, hd, { show: true })), onChange: () => this.saveState() });
    this.panels.summary.append(this.summary.root);
    this.announce = h('p', { class: 'al-sr', 'aria-live': 'polite' });
    this.metaText = h('p', { class: 'al-muted al-model-meta', translate: 'no', hidden: true });
    this.frame.replaceChildren(this.inputRow, this.about, this.metaText, this.tablist, ...Object.values(this.panels), this.announce);
  }

  /** The author's data; with a src attribute and no data of its own, the file at src (same origin only). */
  async authorData(data) {
    const src = this.getAttribute('src');
    if (src === null || data.attentions !== undefined) return data;
    const tag = this.localName;
    const view = this.ownerDocument.defaultView;
    const url = new URL(src, this.ownerDocument.baseURI);
    if (view.location.protocol === 'file:') {
      throw new Error(`<${tag}>: src cannot be read on a page opened from disk (file://), which browsers do not allow; put the data in a child <script type="application/json"> instead`);
    }
    if (url.origin !== view.location.origin) {
      throw new Error(`<${tag}>: src is on another origin (${url.origin}); expected a file on this page's own origin (${view.location.origin})`);
    }
    let text;
    try {
      const response = await view.fetch(url.href, { credentials: 'same-origin' });
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      text = await response.text();
    } catch (err) {
      throw new Error(`<${tag}>: src (${src}) could not be read: ${err.message}. A Content-Security-Policy whose connect-src leaves out this origin also stops it; the data can go in a child <script type="application/json"> instead`);
    }
    return readAuthorData(tag, { tokens: null }, text, this.constructor.jsonKeys, MAX_JSON_LENGTH);
  }

  /**
   * Reads and decodes the data, and has the engine check and score it, a layer at a time.
   * @returns { set, rows }: the decoded set (ui/attention-data.js) and lab.headSummary's rows
   */
  async decode(lab, raw) {
    const { set, steps } = readAttentionData(this.localName, raw);
    const rows = [];
    let start = schedule.now();
    for (const l of steps) {
      rows.push(...this.scoreLayer(lab, set, l));
      if (schedule.now() - start > STEP_MS) {
        await this.pause();
        start = schedule.now();
      }
    }
    return { set, rows };
  }

  /** lab.headSummary of layer l: the engine's check of the weights and its scores. */
  scoreLayer(lab, set, l) {
    const { heads, m, n } = set;
    const size = heads * m * n;
    try {
      return lab.headSummary({ shape: [1, heads, m, n], data: set.weights.subarray(l * size, (l + 1) * size) },
        { tokens: set.tokens, queryTokens: set.queryTokens || undefined, causal: set.causal, decimals: set.decimals })
        .map((r) => ({ ...r, layer: l }));
    } catch (err) {
      if (!err.problem) throw err;
      const p = err.problem;
      const where = `${layerName(set, l)}, ${headName(set, p.head)}, row ${p.row} (query \u201c${(set.queryTokens || set.tokens)[p.row]}\u201d)`;
      const hint = p.fault === 'row-sum' && set.decimals === undefined ? '. If the weights were rounded, say to how many decimals ("decimals": 3)' : '';
      throw new Error(`<${this.localName}>: ${patternProblemText(p, { row: where, entry: `${where}, column ${p.column} (key \u201c${set.tokens[p.column]}\u201d)` })}${hint}`);
    }
  }

  /** Draws a decoded set into every view (the model view's thumbnails a layer per task). */
  async present(set, rows) {
    this.set = set;
    this.rows = rows;
    this.tablist.hidden = false;
    this.about.removeAttribute('role');
    const { layers, heads, m, n } = set;
    setText(this.about, `${counted(layers, 'layer')} \u00d7 ${counted(heads, 'head')}, ${set.queryTokens ? `${counted(m, 'query token')} over ${counted(n, 'key token')} (cross-attention)` : counted(n, 'token')}`
      + `${set.causal ? ', causal' : ''}. Layers, heads and positions are counted from 0, as in Python.`);
    const meta = metaLine(set);
    setText(this.metaText, meta);
    this.metaText.hidden = !meta;
    this.masked = set.causal ? this.causalCells(set) : null;
    this.maskedRows = null;
    this.modelView.show(set, this.masked);
    let start = schedule.now();
    for (const _ of this.modelView.paint()) {  // eslint-disable-line no-unused-vars
      if (schedule.now() - start > STEP_MS) {
        await this.pause();
        start = schedule.now();
      }
    }
    this.headView.set = null;
    this.summaryDrawn = false;
    this.headViewDrawn = false;
    if (this.st.open && (this.st.open[0] >= layers || this.st.open[1] >= heads)) this.st.open = null;
  }

  /** Which cells a causal mask hides, from the engine's own mask (a masked stage of -infinity), row-major. */
  causalCells(set) {
    const zeros = { shape: [set.n, 1], data: new Float32Array(set.n) };
    const masked = this.lab.attention(zeros, zeros, zeros, { causal: true, stages: ['masked'] }).masked.data;
    return Uint8Array.from(masked, (x) => (x === -Infinity ? 1 : 0));
  }

  /** One head's scores in words, for its thumbnail's accessible name and the open head's line. */
  scoreWords(l, hd) {
    const r = this.rows[l * this.set.heads + hd];
    return SCORES.filter((s) => r[s.key] !== null).map((s) => `${s.label} ${fixed(r[s.key], 2)}`).join(', ');
  }

  headCaption() {
    const [l, hd] = this.st.open;
    const set = this.set;
    return `${layerName(set, l)}, ${headName(set, hd)}. Rows: query tokens; columns: key tokens; each row sums to 1${set.causal ? '; causal, later keys masked' : ''}.`;
  }

  /**
   * Opens a head as a full heatmap under the model view.
   * @param opts { show: switch to the model view, save: record the state (default true) }
   */
  openHead(l, hd, { show = false, save = true } = {}) {
    const set = this.set;
    if (!(l >= 0 && l < set.layers && hd >= 0 && hd < set.heads)) {
      throw new Error(`<${this.localName}>: there is no head ${hd} in layer ${l}; expected a layer from 0 to ${set.layers - 1} and a head from 0 to ${set.heads - 1}`);
    }
    this.st.open = [l, hd];
    this.modelView.markOpen([l, hd]);
    const { m, n } = set;
    const p = pattern(set, l, hd);
    const weights = Array.from({ length: m }, (_, i) => Array.from(p.subarray(i * n, (i + 1) * n)));
    if (this.masked && !this.maskedRows) this.maskedRows = Array.from({ length: m }, (_, i) => Array.from(this.masked.subarray(i * n, (i + 1) * n), Boolean));
    const name = `${layerName(set, l)}, ${headName(set, hd)}`;
    this.heatmap.opts.title = `Attention weights, ${name}`;
    setText(this.headTitle, name);
    setText(this.headScores, `Engine's scores: ${this.scoreWords(l, hd)}.`);
    const bare = (tokens) => tokens.map((t) => tokenLabel(t, true));
    this.heatmap.update({ weights, masked: this.maskedRows, rowLabels: bare(set.queryTokens || set.tokens), colLabels: bare(set.tokens), showNumbers: false });
    this.headPanel.hidden = false;
    if (show) this.setView('model', { save: false });
    setText(this.announce, `Opened ${name} below the heads.`);
    if (save) this.saveState();
  }

  /** The views this element has: the knock-out only with a model in the page. */
  viewIds() {
    return VIEWS.map(([id]) => id).filter((id) => id !== 'knockout' || this.ko);
  }

  setView(view, { save = true, focus = false } = {}) {
    if (!this.viewIds().includes(view)) view = 'model';
    this.st.view = view;
    for (const [id] of VIEWS) {
      const on = id === view;
      this.tabs[id].setAttribute('aria-selected', String(on));
      this.tabs[id].tabIndex = on ? 0 : -1;
      this.panels[id].hidden = !on;
    }
    if (focus) this.tabs[view].focus();
    // The other views are drawn when first shown: a large set costs nothing until then.
    if (view === 'heads' && !this.headViewDrawn) {
      this.headViewDrawn = true;
      this.headView.show(this.set, this.pendingHeads || {});
      this.pendingHeads = null;
    } else if (view === 'heads') this.headView.draw();
    if (view === 'summary' && !this.summaryDrawn) {
      this.summaryDrawn = true;
      this.summary.show(this.set, this.rows);
    }
    if (save) this.saveState();
  }

  onTabKey(e) {
    const ids = this.viewIds();
    const at = ids.indexOf(this.st.view);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: ids.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    this.setView(ids[(to + ids.length) % ids.length], { focus: true });
  }

  /**
   * Replaces the attention shown and redraws every view, keeping the view, layer and heads the
   * reader chose where they still exist: for a model that runs in the page (the reader's own
   * sentence). Takes what the data takes ({ tokens, attentions, ... }). Resolves once drawn;
   * rejects with the widget's message (the views stay as they were) when the data is wrong.
   */
  async setAttention(value) {
    // Called before the widget was drawn (a script that fetched its data early): wait for it.
    while (this._status === 'loading' && this.isConnected) await new Promise((resolve) => setTimeout(resolve, 50));
    if (this._status !== 'ready') throw new Error(`<${this.localName}>: setAttention needs the widget on the page, drawn without an error`);
    const first = !this.set;
    const { set, rows } = await this.decode(this.lab, readAuthorData(this.localName, { tokens: null }, value, this.constructor.jsonKeys, MAX_JSON_LENGTH));
    await this.redraw(set, rows);
    if (!first) return;
    // The first data of an element that waited: its open and view attributes, and the URL's state, apply now.
    const open = parseOpen(this.attr('open'));
    if (open && open[0] < set.layers && open[1] < set.heads) this.openHead(open[0], open[1], { save: false });
    this.restore(this.readState(), false);
  }

  /** Shows a new set in every view, keeping the view, the open head and the head view's choice where they still exist. */
  async redraw(set, rows) {
    const view = this.st.view;
    const open = this.st.open;
    const heads = this.headView.set ? { layer: this.headView.layer, heads: this.headView.heads, pair: this.headView.pair } : this.pendingHeads;
    await this.present(set, rows);
    this.pendingHeads = heads;
    this.setView(view, { save: false });
    if (open && this.st.open) this.openHead(open[0], open[1], { save: false });
    else this.headPanel.hidden = true;
    this.saveState();
  }

  viewState() {
    // Waiting for data (no set): the usual fields, nothing chosen yet.
    const hv = this.headView.set ? this.headView : this.pendingHeads || {};
    const sm = this.summary.st;
    return { ...(this.languageModel ? { text: this.shownText } : {}), view: this.st.view, layer: this.st.open ? this.st.open[0] : null, head: this.st.open ? this.st.open[1] : null,
      headViewLayer: hv.layer || 0, heads: (hv.heads || Array.from({ length: this.set ? this.set.heads : 0 }, (_, k) => k)).slice(),
      sort: sm.sort, dir: sm.dir, filter: sm.filter, min: sm.min, pair: hv.pair || 'all', waiting: !this.set,
      ...(this.ko ? { knockout: this.ko.heads.map((p) => p.slice()), knockoutMode: this.ko.mode } : {}) };
  }

  linkState() {
    if (!this.set) return {};
    const s = this.viewState();
    return { view: s.view, open: s.layer === null ? undefined : `${s.layer}.${s.head}`, hl: s.headViewLayer, hs: s.heads.join('.'),
      sort: s.sort, dir: s.dir, filter: s.filter || undefined, min: s.min, text: this.languageModel ? this.shownText : undefined, pair: s.pair === 'all' ? undefined : s.pair, ...this.knockoutLink() };
  }

  restore(s, save = true) {
    if (this.languageModel && typeof s.text === 'string' && s.text.trim() && s.text !== this.shownText) {
      this.textInput.value = s.text.slice(0, MAX_TEXT);
      this.showText(this.textInput.value).then(() => this.restore({ ...s, text: undefined }, save), (err) => this.guard(() => { throw err; }));
      return;
    }
    if (!this.set) return;
    const set = this.set;
    const open = parseOpen(s.open);
    const heads = typeof s.hs === 'string' && /^(\d+(\.\d+)*)?$/.test(s.hs) ? (s.hs ? s.hs.split('.').map(Number).filter((k) => k < set.heads) : []) : undefined;
    this.pendingHeads = { layer: urlState.int(s.hl, 0, 0, set.layers - 1), heads, pair: s.pair };
    if (this.headViewDrawn) this.headView.show(set, this.pendingHeads);
    const min = Number(s.min);
    this.summary.change({
      sort: urlState.choice(s.sort, SORTS, this.summary.st.sort),
      dir: urlState.choice(s.dir, ['ascending', 'descending'], this.summary.st.dir),
      filter: urlState.choice(s.filter, ['', ...SCORES.map((x) => x.key)], this.summary.st.filter),
      min: typeof s.min === 'string' && s.min !== '' && Number.isFinite(min) ? min : this.summary.st.min,
    }, false);
    if (open && open[0] < set.layers && open[1] < set.heads) this.openHead(open[0], open[1], { save: false });
    this.knockoutRestore(s);
    this.setView(urlState.choice(s.view, this.viewIds(), this.attr('view', 'model')), { save: false });
    if (save) this.saveState();
  }

  applyAttribute(property, value) {
    if (!this.set) return;  // waiting for data: setAttention applies the attributes
    if (property === 'text' && this.languageModel && value !== undefined) {
      this.textInput.value = value.slice(0, MAX_TEXT);
      this.showText(this.textInput.value).catch((err) => this.guard(() => { throw err; }));
    }
    if (property === 'view') this.setView(value || 'model');
    if (property === 'open') {
      const open = parseOpen(value);
      if (open) this.openHead(open[0], open[1]);
      else if (value !== undefined) throw new Error(`<${this.localName}>: open is "${value}"; expected a layer and a head such as "5.1" (counted from 0)`);
    }
  }
}

/** "5.1" (layer 5, head 1) as [5, 1]; null for anything else. */
function parseOpen(text) {
  const m = typeof text === 'string' ? /^\s*(\d{1,3})\.(\d{1,3})\s*$/.exec(text) : null;
  return m ? [Number(m[1]), Number(m[2])] : null;
}

// The shipped model's side (the model attribute): the text box, the guesses, the question.
Object.assign(ModelAttention.prototype, modelText, modelKnockout);

module.exports = { ModelAttention };
