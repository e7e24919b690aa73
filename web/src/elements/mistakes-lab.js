'use strict';
// <mistakes-lab>: pick a classic attention mistake; predict which weights it changes; then
// the correct and the mistaken weights side by side, their difference on a diverging scale,
// the engine's figure for the symptom, and the buggy and fixed line of code.

const { h, uid, scrollBox } = require('../kit/dom.js');
const { LabElement, urlState } = require('../kit/base.js');
const { HeatmapView } = require('../kit/heatmap-view.js');
const { PredictView } = require('../kit/predict-view.js');
const { maskedFrom } = require('../ui/heatmap-model.js');
const { divergingScale } = require('../ui/diverging.js');
const lesson = require('../ui/mistake-lab.js');

class MistakesLab extends LabElement {
  static get jsonKeys() { return []; }

  async setup(lab) {
    this.example = lab.examples().timeFlies;
    this.square = lesson.squareExample(lab);
    this.names = lab.MISTAKES.map((m) => m.name);
    this.st = { mistake: this.attr('mistake', this.names[0]), pads: lesson.DEFAULT_PADS, dk: lesson.DEFAULT_DK };
    this.wide = new Map();  // d_k -> seeded vectors, made once
    this.answered = new Set();
    // Each answered mistake's choice: its verdict stays above the results, judged again on the
    // inputs shown (the padding mistake's pad count may change after the answer).
    this.picks = new Map();
    const id = uid();
    this.select = h('select', { id, onchange: () => this.guard(() => this.choose(this.select.value)) },
      lab.MISTAKES.map((m) => h('option', { value: m.name }, m.title)));
    const padId = uid();
    this.padSelect = h('select', { id: padId, onchange: () => this.guard(() => { this.st.pads = Number(this.padSelect.value); this.render(); }) },
      lesson.PAD_COUNTS.map((n) => h('option', { value: String(n) }, String(n))));
    this.padControl = h('label', { for: padId }, 'pad tokens', this.padSelect);
    const dkId = uid();
    this.dkSelect = h('select', { id: dkId, onchange: () => this.guard(() => { this.st.dk = Number(this.dkSelect.value); this.render(); }) },
      lesson.DK_CHOICES.map((n) => h('option', { value: String(n) }, n === lesson.DEFAULT_DK ? `${n} (the lesson's vectors)` : `${n} (seeded)`)));
    this.dkControl = h('label', { for: dkId }, 'd\u2096', this.dkSelect);
    this.setupLine = h('p', { class: 'al-muted' });
    this.loudLine = h('p', {});
    this.code = h('div', {});
    this.promptBox = h('div', { part: 'prompt' });
    const words = { rowWord: 'query', colWord: 'key' };
    this.correctView = new HeatmapView({ label: 'Correct weights: one row per query token, one column per key token', title: 'Correct weights', words,
      caption: () => this.caption('correct'), settings: () => this.settings() });
    this.mistakenView = new HeatmapView({ label: 'Mistaken weights', title: 'Mistaken weights', words,
      caption: () => this.caption('mistaken'), settings: () => this.settings() });
    this.diffView = new HeatmapView({ label: 'Difference, mistaken minus correct', title: 'Difference (mistaken \u2212 correct)',
      words: { ...words, valueWord: 'difference' }, scale: divergingScale(1), caption: () => this.caption('difference'), settings: () => this.settings() });
    this.mistakenFigure = h('figure', {}, h('figcaption', {}, 'With the mistake'), this.mistakenView.root);
    this.failure = h('p', { class: 'al-error-message', role: 'note' });
    this.diffFigure = h('figure', {}, h('figcaption', {}, 'Difference (mistaken \u2212 correct)'), this.diffView.root);
    // These results, the mistaken map and the difference map answer the question: they stay
    // hidden (so also out of the accessibility tree) until the learner answers or skips.
    this.results = h('div', { class: 'al-mistake-results' },
      // Focus lands here when the question is skipped, so it stays in the widget as the buttons go.
      this.symptomLine = h('p', { tabindex: '-1' }, h('strong', {}, 'What you would see: '), this.symptom = h('span', {})),
      this.figures = h('ul', { class: 'al-figures' }),
      this.fix = h('p', {}));
    this.maps = h('div', { class: 'al-mistake-maps' },
      h('figure', {}, h('figcaption', {}, 'Correct'), this.correctView.root), this.mistakenFigure, this.failure, this.diffFigure);
    this.frame.replaceChildren(
      h('div', { class: 'al-controls', part: 'controls' }, h('label', { for: id }, 'mistake', this.select), this.padControl, this.dkControl),
      this.setupLine, this.loudLine, this.code, this.promptBox, this.maps, this.results);
    // Two tasks: the view, then the engine's results drawn into it.
    const state = this.readState();
    await this.pause();
    this.restore(state, false);
  }

  /** Built off the page, the difference map guessed the background from the theme: now it can read it. */
  shown() {
    this.repaintDifference();
  }

  viewState() {
    return { mistake: this.st.mistake, pads: this.st.pads, dk: this.st.dk, revealed: this.revealed() };
  }

  applyAttribute(property, value) {
    if (property === 'mistake') this.choose(value === undefined ? this.names[0] : value);
  }

  restore(s, save = true) {
    this.st.mistake = urlState.choice(s.mistake, this.names, this.st.mistake);
    this.st.pads = urlState.int(s.pads, this.st.pads, lesson.PAD_COUNTS[0], lesson.PAD_COUNTS[lesson.PAD_COUNTS.length - 1]);
    const dk = urlState.int(s.dk, this.st.dk, 1, Infinity);
    this.st.dk = lesson.DK_CHOICES.includes(dk) ? dk : this.st.dk;
    this.render(save);
  }

  choose(name) {
    this.st.mistake = name;
    this.render();
  }

  revealed() {
    return this.answered.has(this.st.mistake) || this.attr('predict', true) === false;
  }

  settings() {
    const sc = this.sc;
    return { mistake: this.st.mistake, tokens: sc.tokens.join(' '), causal: Boolean(sc.spec.causal), validLens: sc.spec.validLens === undefined ? null : sc.spec.validLens };
  }

  caption(which) {
    const info = this.info;
    const what = { correct: 'the correct computation', mistaken: `with the mistake "${info.title}"`, difference: `mistaken minus correct weights for "${info.title}"` }[which];
    return `Rows: query tokens; columns: key tokens. Attention weights, ${what}. ${this.sc.setup}`;
  }

  render(save = true) {
    const lab = this.lab, name = this.st.mistake;
    this.select.value = name;
    this.info = lab.MISTAKES.find((m) => m.name === name);
    const padding = name === 'no-padding-mask';
    this.padSelect.value = String(this.st.pads);
    this.padControl.hidden = !padding;
    const scaling = name === 'no-scaling' || name === 'scale-by-dk';
    this.dkSelect.value = String(this.st.dk);
    this.dkControl.hidden = !scaling;
    const widened = scaling && this.st.dk !== lesson.DEFAULT_DK;
    if (widened && !this.wide.has(this.st.dk)) this.wide.set(this.st.dk, lesson.wideExample(lab, this.example.tokens, this.st.dk));
    const sc = this.sc = lesson.scenario(name, this.example, this.square, { pads: this.st.pads, wide: widened ? this.wide.get(this.st.dk) : null });
    const r = this.result = lab.mistake(name, sc.spec);
    const { Q, K, V, causal, validLens, mask } = sc.spec;
    const correct = lab.attention(Q, K, V, { causal, validLens, mask });
    const hidden = maskedFrom(correct.masked.toArray());
    const weights = r.correct.weights.toArray();
    this.ctx = { m: weights.length, n: weights[0].length, hidden, weights, tokens: sc.tokens };
    const l = lesson.LESSONS[name];

    this.setupLine.textContent = sc.setup;
    if (sc.loud) {
      const loud = lab.mistake(name, sc.loud.spec);
      this.loudLine.textContent = `With all ${sc.loud.tokens.length} tokens of "${sc.loud.tokens.join(' ')}" the mistake fails loudly: ${loud.mistaken.error}.`;
    }
    this.loudLine.hidden = !sc.loud;
    const labels = { rowLabels: sc.tokens, colLabels: sc.tokens, showNumbers: true };
    this.correctView.update({ ...labels, weights, masked: hidden });
    const open = this.revealed();
    // The buggy line is the question; the fixed one answers it, so it waits for the answer.
    // Code wraps at spaces only, never inside a name; a name longer than the line scrolls.
    const code = (label, cls, text) => {
      const box = scrollBox(label, h('pre', { class: cls }, text));
      box.classList.add('al-code-box');
      return box;
    };
    this.code.replaceChildren(
      h('p', { class: 'al-code-label' }, `${l.code.lang}, with the mistake:`), code(`${l.code.lang} with the mistake`, 'al-code', l.code.buggy),
      ...(open ? [h('p', { class: 'al-code-label' }, 'Fixed:'), code(`${l.code.lang}, fixed`, 'al-code al-code-fixed', l.code.fixed)] : []));
    if (!open) this.ask(name);
    else this.promptBox.replaceChildren(...(this.picks.has(name) ? [this.note(name, this.picks.get(name))] : []));
    this.maps.querySelectorAll('figure:not(:first-child)').forEach((f) => { f.hidden = !open; });
    this.results.hidden = !open;
    this.failure.hidden = !open || !r.mistaken.error;
    if (open) this.showResults(r, labels);
    if (save) this.saveState({ mistake: name, pads: padding ? this.st.pads : undefined, dk: scaling ? this.st.dk : undefined });
  }

  ask(name) {
    const l = lesson.LESSONS[name];
    this.question = new PredictView({
      question: 'which weights does this mistake change? The mistaken weights and their difference from the correct ones appear once you answer.',
      choices: l.choices.map((c, i) => ({ label: c.label, value: i })),
      judge: (i) => lesson.judge(name, i, this.result.cells, this.ctx),
      skip: 'Show me without predicting',
      printAnswer: () => {
        const right = lesson.rightChoice(name, this.result.cells, this.ctx);
        return `${right >= 0 ? l.choices[right].label : 'see the difference map'}. ${lesson.countSentence(this.result.cells)}`;
      },
      onReveal: (value) => this.guard(() => {
        this.answered.add(name);
        if (value !== null) this.picks.set(name, value);
        this.render();
        // Focus stays in the widget when the buttons go: on the verdict, or (skipped) the symptom.
        const note = this.promptBox.firstChild;
        if (note) note.tabIndex = -1;
        (note || this.symptomLine).focus();
      }),
    });
    this.promptBox.replaceChildren(this.question.root);
  }

  note(name, pick) {
    const v = lesson.judge(name, pick, this.result.cells, this.ctx);
    return h('p', { class: 'al-mistake-note' }, h('span', { class: v.close ? 'al-verdict-ok' : 'al-verdict-bad' }, v.message));
  }

  showResults(r, labels) {
    this.symptom.textContent = this.info.symptom;
    this.figures.replaceChildren(...r.figures.map((f) => h('li', {}, lesson.figureLine(f))));
    this.fix.replaceChildren(h('strong', {}, 'The fix: '), this.info.fix);
    if (r.mistaken.error) {
      this.failure.textContent = `The mistaken computation fails: ${r.mistaken.error}.`;
      this.mistakenFigure.hidden = true;
      this.diffFigure.hidden = true;
      return;
    }
    // Masked cells are drawn the same way in all three pictures: hatched wherever the
    // computation pictured masked them (the mistaken one keeps the masks it does not forget).
    const { Q, K, V } = this.sc.spec;
    const mistakenWeights = r.mistaken.weights.toArray(), difference = r.difference.weights.toArray();
    const masked = maskedFrom(this.lab.attention(Q, K, V, lesson.mistakenMasks(this.st.mistake, this.sc.spec)).masked.toArray());
    const keys = lesson.maskLabels(this.st.mistake);
    this.mistakenView.setMaskLabel(keys.mistaken);
    this.diffView.setMaskLabel(keys.difference);
    this.mistakenView.update({ ...labels, weights: mistakenWeights, masked: lesson.drawnMasked(masked, mistakenWeights) });
    this.diff = { ...labels, weights: difference, masked: lesson.drawnMasked(masked, difference) };
    this.paintDifference();
  }

  paintDifference() {
    this.diffView.setScale(divergingScale(lesson.differenceRange(this.diff.weights), { dark: this.darkBackground() }));
    this.diffView.update(this.diff);
  }

  applyTheme(hostTheme) {
    super.applyTheme(hostTheme);
    this.repaintDifference();
  }

  /** The difference map's colours are inline styles: they follow a new background only when repainted. */
  repaintDifference() {
    if (this.diff && this.revealed() && !this.result.mistaken.error) this.paintDifference();
  }
}

module.exports = { MistakesLab };
