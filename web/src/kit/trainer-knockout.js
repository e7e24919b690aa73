'use strict';
// <attention-trainer>'s knock-out mode and composition view. Once the model has trained and
// stands still (paused or stopped), the learner predicts which heads the model cannot do without,
// then knocks heads out (one button a head, several at once, zero or mean) and reads the loss on
// the repeat and the heads' induction scores after, from the engine (Trainer.ablate, run by the
// widget's runner: in its worker or on the page). Below, how the heads compose (composition())
// in the kit's heatmap view, with each head's copying score. The words and rules are in
// ui/trainer-knockout.js.

const { h, uid, setText } = require('./dom.js');
const { HeatmapView } = require('./heatmap-view.js');
const { saveBlob } = require('./export-menu.js');
const { fixed, counted } = require('../ui/format.js');
const ko = require('../ui/trainer-knockout.js');

class TrainerKnockout {
  /** @param w the <attention-trainer> (its st, log, info, runner, running and helpers) */
  constructor(w) {
    this.w = w;
    this.pred = { picked: [], committed: false, skipped: false, shape: null };
    this.history = [];
    this.note = h('p', { class: 'al-muted al-ko-note' });
    this.predictBox = h('div', { class: 'al-predict al-ko-predict', part: 'prompt' });
    this.headsBox = h('div', { class: 'al-ko-heads' });
    const modeId = uid('al-ko'), kindId = uid('al-ko');
    this.modeSelect = h('select', { id: modeId, onchange: (e) => w.guard(() => this.set({ mode: e.target.value })) },
      h('option', { value: 'zero' }, 'zero (its output set to 0)'), h('option', { value: 'mean' }, 'mean (its mean output over the evaluation set)'));
    this.restoreButton = h('button', { type: 'button', onclick: () => w.guard(() => {
      this.set({ knocked: [] });
      // the button is disabled now: the focus goes to the first head, not to the page
      const first = this.headsBox.querySelector('button');
      if (first) first.focus();
    }) }, 'Put every head back');
    this.checkButton = h('button', { type: 'button', class: 'al-primary', onclick: () => w.guard(() => this.check()) }, 'Check my prediction');
    this.result = h('p', { class: 'al-ko-result', 'aria-live': 'polite' });
    this.scores = h('ul', { class: 'al-ko-scores' });
    this.verdict = h('section', { class: 'al-trainer-reveal al-ko-verdict', hidden: true, 'aria-live': 'polite' });
    this.tool = h('div', { class: 'al-ko-tool' },
      h('p', { class: 'al-muted' }, 'Press a head to knock it out, again to put it back; knock out several to see what they do together.'),
      this.headsBox,
      h('div', { class: 'al-controls' }, h('label', { for: modeId }, 'knock out by', this.modeSelect), this.restoreButton, this.checkButton),
      this.result, this.scores, this.verdict);
    // How the heads compose: the kit's heatmap, earlier heads in rows, later heads in columns.
    this.kindSelect = h('select', { id: kindId, onchange: (e) => w.guard(() => this.set({ kind: e.target.value })) },
      ko.KINDS.map((k) => h('option', { value: k.value }, k.label)));
    this.map = new HeatmapView({
      label: 'Composition scores', digits: 2, words: { rowWord: 'earlier head', colWord: 'later head', valueWord: 'score' },
      title: 'How the heads compose', caption: () => this.caption(), settings: () => w.linkState(),
    });
    this.map.setMaskLabel('not an earlier head to a later one');
    this.strongest = h('p', { class: 'al-ko-strongest' });
    this.copying = h('p', { class: 'al-ko-copying' });
    this.composition = h('div', { class: 'al-ko-composition', part: 'composition', hidden: true },
      h('h4', {}, 'How the heads compose'),
      h('p', { class: 'al-muted' }, 'Read from the weights alone (Elhage et al. 2021): how strongly what an earlier head writes is read by a later head\u2019s queries, keys or values, from 0 (not at all) to 1.'),
      h('div', { class: 'al-controls' }, h('label', { for: kindId }, 'show', this.kindSelect)),
      this.map.root, this.strongest, this.copying);
    this.root = h('section', { class: 'al-trainer-knockout', part: 'knockout', hidden: true },
      h('h4', {}, 'Test the circuit: knock heads out'), this.note, this.predictBox, this.tool, this.composition);
    this.saveButton = h('button', { type: 'button', hidden: true, onclick: () => w.guard(() => this.save()) }, 'Knock-outs (CSV)');
    this.reset();
  }

  /** A fresh model: nothing computed is kept; requests still out are ignored when they come back. */
  reset() {
    // a fresh model: its prediction is asked again
    this.pred = { picked: [], committed: false, skipped: false, shape: null };
    delete this.predictBox.dataset.shape;
    this.token = {};
    this.busy = false;
    this.again = false;
    this.resultKey = this.compKey = this.verdictKey = null;
    this.last = this.comp = null;
    this.history = [];
    this.verdict.hidden = true;
    setText(this.result, '');
    this.scores.replaceChildren();
  }

  /** The link's knock-out fields changed (a fresh model was not needed): redraw and recompute. */
  restored() {
    this.render();
  }

  state() {
    const { knocked, mode, kind } = this.w.st;
    const r = this.last;
    return { knockedOut: knocked.map((p) => p.slice()), knockoutMode: mode, composition: kind,
      knockout: r ? { step: r.step, heads: r.heads, mode: r.mode, scoredLoss: r.scoredLoss, loss: r.loss, baselineScoredLoss: r.baseline.scoredLoss } : null };
  }

  set(fields) {
    Object.assign(this.w.st, fields);
    this.render();
    this.w.saveState();
  }

  /** The model the figures are of: this run, at this step. */
  modelKey() {
    return `${this.w.runGeneration}|${this.w.log ? this.w.log.steps : 0}`;
  }

  available() {
    const w = this.w;
    return Boolean(w.info && w.log && w.log.steps > 0 && !w.running && !w.divergence && w.runner);
  }

  render() {
    const w = this.w;
    if (!w.info) return;
    const { layers, heads } = w.info.options;
    const shape = `${layers}x${heads}`;
    if (this.pred.shape !== shape) this.pred = { picked: [], committed: false, skipped: false, shape };
    const ready = this.available();
    // The question is about a trained model: asked once an induction head has formed (on the induction
    // task), never of a model on its plateau, whose knock-outs differ by noise; knock-outs are free before.
    const trained = !w.info.recordsHeads || Boolean(w.log && w.log.formed);
    const asking = w.predictOn && trained && !this.pred.committed && !this.pred.skipped;
    // Nothing to test before the first step: the panel appears then (the widget's first height stays the one reserved for it).
    this.root.hidden = !w.log || w.log.steps === 0;
    setText(this.note, w.running ? 'Pause the training to knock heads out of the model as it is now.'
        : w.divergence ? 'The run diverged: there is no trained model to test. Reset to start again.'
          : `The model after ${counted(w.log.steps, 'step')}.${w.predictOn && !trained && !this.pred.committed ? ' The prediction is about the induction circuit, so it waits for an induction head to form; you can knock heads out now.' : ''}`);
    this.renderPredict(asking && ready, layers, heads);
    this.tool.hidden = !ready || asking;
    this.saveButton.hidden = !this.history.length;
    this.composition.hidden = !ready || asking || layers < 2;
    if (this.tool.hidden) {
      w.headGrid.markKnocked([]);  // training, or not yet asked: every head is in the model
      return;
    }
    this.renderHeads(layers, heads);
    this.modeSelect.value = w.st.mode;
    this.kindSelect.value = w.st.kind;
    this.restoreButton.disabled = !w.st.knocked.length;
    this.checkButton.hidden = !this.pred.committed || this.verdictKey === this.modelKey();
    // a verdict is of the model it was checked on: trained further, the model shown is another
    if (this.verdictKey !== null && this.verdictKey !== this.modelKey()) this.verdict.hidden = true;
    this.update();
    if (this.comp && this.compKey === this.modelKey()) this.drawComposition();
  }

  renderPredict(show, layers, heads) {
    this.predictBox.hidden = !show;
    if (!show || this.predictBox.dataset.shape === this.pred.shape) return;
    this.predictBox.dataset.shape = this.pred.shape;
    const p = this.pred;
    const qid = uid('al-q');
    const boxes = [];
    for (let l = 0; l < layers; l++) {
      for (let k = 0; k < heads; k++) {
        const id = uid('al-ko');
        boxes.push(h('label', { for: id, class: 'al-check' }, h('input', { type: 'checkbox', id, dataset: { layer: String(l), head: String(k) },
          onchange: (e) => { p.picked = e.target.checked ? ko.toggle(p.picked.filter(([a, b]) => a !== l || b !== k), l, k) : p.picked.filter(([a, b]) => a !== l || b !== k); } }),
        ko.headName([l, k])));
      }
    }
    const commit = h('button', { type: 'button', class: 'al-primary', onclick: () => this.w.guard(() => this.answered(true)) }, 'Lock in my prediction');
    this.predictBox.replaceChildren(
      h('fieldset', { class: 'al-trainer-question' }, h('legend', { id: qid }, h('strong', {}, 'Predict: '),
        `which heads can the trained model not do without? Tick each head whose knock-out, on its own, would take the loss on the ${this.w.info.recordsHeads ? 'repeat' : 'answer'} more than half the way back to a uniform guess (none is an answer too).`),
      boxes),
      h('p', {}, commit, ' ', h('button', { type: 'button', class: 'al-skip', onclick: () => this.w.guard(() => this.answered(false)) }, 'Skip the prediction')));
  }

  answered(committed) {
    this.pred.committed = committed;
    this.pred.skipped = !committed;
    this.render();
    const first = this.headsBox.querySelector('button');
    if (first) first.focus();
    this.w.say(committed ? 'Prediction saved. Knock heads out to test it.' : 'Knock heads out to see what each does.');
  }

  renderHeads(layers, heads) {
    const w = this.w;
    if (this.headsBox.dataset.shape !== this.pred.shape) {
      this.headsBox.dataset.shape = this.pred.shape;
      const groups = [];
      for (let l = 0; l < layers; l++) {
        const buttons = [];
        for (let k = 0; k < heads; k++) {
          buttons.push(h('button', { type: 'button', class: 'al-ko-head', 'aria-pressed': 'false', dataset: { layer: String(l), head: String(k) },
            onclick: () => w.guard(() => this.set({ knocked: ko.toggle(w.st.knocked, l, k) })) }, `head ${k}`));
        }
        groups.push(h('div', { class: 'al-ko-layer', role: 'group', 'aria-label': `Knock out a head of layer ${l}` }, h('span', { class: 'al-ko-layer-name' }, `layer ${l}`), buttons));
      }
      this.headsBox.replaceChildren(...groups);
    }
    for (const b of this.headsBox.querySelectorAll('button')) {
      const on = w.st.knocked.some(([l, k]) => l === Number(b.dataset.layer) && k === Number(b.dataset.head));
      b.setAttribute('aria-pressed', on ? 'true' : 'false');
    }
    w.headGrid.markKnocked(w.st.knocked);
  }

  /**
   * Asks the runner for what is out of date (the knock-out shown, then the composition), one
   * request at a time; a click while one is out is answered with the newest choice after it.
   */
  async update() {
    if (this.busy) {
      this.again = true;
      return;
    }
    const token = this.token;
    this.busy = true;
    try {
      for (;;) {
        this.again = false;
        if (token !== this.token || !this.available()) break;
        const w = this.w, model = this.modelKey();
        const want = `${model}|${ko.formatKnocked(w.st.knocked)}|${w.st.mode}`;
        if (want !== this.resultKey) {
          const r = await w.runner.ablate({ heads: w.st.knocked, mode: w.st.mode });
          if (token !== this.token) return;
          this.resultKey = want;
          this.last = r;
          if (r.heads.length) this.history.push(r);
          this.drawResult(r);
          w.emit('al-knockout', this.state().knockout);
          continue;
        }
        if (w.info.options.layers >= 2 && this.compKey !== model) {
          const c = await w.runner.composition();
          if (token !== this.token) return;
          this.comp = c;
          this.compKey = model;
          this.drawComposition();
          continue;
        }
        break;
      }
    } catch (err) {
      if (token === this.token) this.refused(err);
    } finally {
      if (token === this.token) this.busy = false;
    }
    if (token !== this.token) return;
    if (this.again) this.update();
    else if (this.checkAfter) this.check();
  }

  /** The engine's refusal, where the result would be (the widget stays usable). */
  refused(err) {
    setText(this.result, `The engine could not knock those heads out: ${err && err.message ? err.message : err}`);
  }

  drawResult(r) {
    const t = ko.knockoutText(r, this.w.info);
    setText(this.result, t.loss);
    this.saveButton.hidden = !this.history.length;
    if (!t.scores) {
      this.scores.replaceChildren();
      return;
    }
    this.scores.replaceChildren(h('li', { class: 'al-muted' }, 'Induction scores with these heads out:'),
      ...t.scores.map((s) => h('li', { class: s.knocked ? 'al-ko-out' : '' }, `${s.name}: ${fixed(s.induction, 2)}${s.knocked ? ' (knocked out: its own pattern is unchanged)' : ''}`)));
  }

  drawComposition() {
    const c = this.comp, { layers, heads } = this.w.info.options;
    const grid = ko.compositionGrid(c, layers, heads, this.w.st.kind);
    this.map.setScale(ko.compositionScale(grid.weights.map((row, i) => row.filter((_, j) => !grid.masked[i][j]))));
    this.map.update({ ...grid, showNumbers: true });
    setText(this.strongest, ko.strongestText(c, this.w.st.kind) || '');
    setText(this.copying, ko.copyingText(c));
  }

  caption() {
    const kind = ko.KINDS.find((k) => k.value === this.w.st.kind);
    return `${kind.label} of every earlier head (rows) into every later head (columns) after ${counted(this.comp ? this.comp.step : 0, 'step')}; the colours run from 0 to the largest score shown. ${this.comp ? ko.copyingText(this.comp) : ''}`;
  }

  /** Every head alone and each layer's heads together (zero mode), then the verdict on the prediction. */
  async check() {
    const w = this.w, token = this.token, model = this.modelKey();
    if (!this.available()) return;
    // a knock-out still out: checked as soon as it is answered
    this.checkAfter = this.busy;
    if (this.busy) return;
    this.busy = true;
    this.checkButton.disabled = true;
    setText(this.result, 'Knocking out each head in turn\u2026');
    try {
      const { layers, heads } = w.info.options;
      const singles = [], layersOut = [];
      for (let l = 0; l < layers; l++) for (let k = 0; k < heads; k++) singles.push(await w.runner.ablate({ heads: [[l, k]], mode: 'zero' }));
      if (heads > 1) for (let l = 0; l < layers; l++) layersOut.push(await w.runner.ablate({ heads: Array.from({ length: heads }, (_, k) => [l, k]), mode: 'zero' }));
      if (token !== this.token || model !== this.modelKey()) return;
      const v = ko.judgeKnockout(this.pred.picked, singles, layersOut, w.info.uniformLoss);
      this.verdictKey = model;
      const heading = h('h4', { tabindex: '-1' }, `What the knock-outs show (step ${w.log.steps})`);
      this.verdict.replaceChildren(heading,
        ...v.lines.map((line, i) => h('p', { class: i ? '' : v.ok ? 'al-verdict-ok' : 'al-verdict-bad' }, line)),
        ...v.cover.map((line) => h('p', {}, line)));
      this.verdict.hidden = false;
      this.resultKey = null;  // the result line shows the learner's own choice again
      this.focusVerdict = heading;  // the Check button is hidden once answered: the focus goes to the verdict
    } catch (err) {
      if (token === this.token) this.refused(err);
    } finally {
      if (token === this.token) {
        this.busy = false;
        this.checkButton.disabled = false;
        this.render();
        if (this.focusVerdict) this.focusVerdict.focus();
        this.focusVerdict = null;
      }
    }
  }

  save() {
    const { task, layers, heads, seed } = this.w.st;
    saveBlob(this.w.frame, new Blob([ko.knockoutCSV(this.history, heads)], { type: 'text/csv' }), `attention-trainer-${task}-${layers}x${heads}-seed-${seed}-knockouts.csv`);
    this.w.say('Saved the knock-outs.');
  }
}

module.exports = { TrainerKnockout };
