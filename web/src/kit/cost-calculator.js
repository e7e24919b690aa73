'use strict';
// The calculator of <cost-lab>: bytes of the attention matrix and of the KV cache for a
// published model's shape or the reader's own, each figure from the engine. It owns its DOM
// (a section with the model and dtype pickers and the size boxes) and reads and writes the
// element's state object, so the link and restore code stay in the element.

const { h, uid } = require('./dom.js');
const { FieldNote } = require('./field-note.js');
const { readField } = require('../ui/fields.js');
const { CALC_FIELDS, sizeText, calcMessage } = require('../ui/cost-calc.js');
const { MODEL_SHAPES, DTYPES, modelShape } = require('../ui/model-shapes.js');
const { formatBytes } = require('../ui/bytes.js');
const { grouped } = require('../ui/format.js');

/** The shape fields of a preset (a published model), or the default custom shape. */
function presetFields(id) {
  const m = modelShape(id);
  if (!m) return { batch: 1, heads: 12, n: 1024, layers: 12, kvHeads: 12, dHead: 64, window: 0 };
  return { batch: 1, heads: m.heads, n: m.context, layers: m.layers, kvHeads: m.kvHeads, dHead: m.dHead, window: m.window };
}

class CostCalculator {
  /**
   * @param {object} o
   * @param {object} o.lab the engine
   * @param {object} o.st the element's state (preset, dtype and the CALC_FIELDS sizes)
   * @param {(change: object) => void} o.update applies a change to the state and re-renders
   * @param {(fn: () => void) => void} o.guard runs a handler, showing its error in the element
   */
  constructor({ lab, st, update, guard }) {
    Object.assign(this, { lab, st, update });
    this.presetSelect = h('select', { id: uid(), onchange: () => guard(() => this.choosePreset(this.presetSelect.value)) },
      h('option', { value: 'custom' }, 'your own'), MODEL_SHAPES.map((m) => h('option', { value: m.id }, m.name)));
    this.dtypeSelect = h('select', { id: uid(), onchange: () => guard(() => update({ dtype: this.dtypeSelect.value })) },
      DTYPES.map((t) => h('option', { value: t }, t)));
    this.inputs = {};
    this.note = new FieldNote();
    const fieldLabels = CALC_FIELDS.map(([key, label]) => {
      const input = h('input', { id: uid(), type: 'number', min: '1', step: '1', inputmode: 'numeric',
        onchange: () => guard(() => this.onField(key, input)) });
      this.note.watch(input);
      this.inputs[key] = input;
      return h('label', { for: input.id }, label, input);
    });
    this.out = h('div', { class: 'al-cost-calc-out', 'aria-live': 'polite' });
    this.root = h('section', { class: 'al-cost-calc', part: 'calculator' },
      h('h3', {}, 'Memory for a model\u2019s shape'),
      h('div', { class: 'al-controls', part: 'controls' },
        h('label', { for: this.presetSelect.id }, 'model', this.presetSelect),
        h('label', { for: this.dtypeSelect.id }, 'dtype', this.dtypeSelect)),
      h('div', { class: 'al-controls al-cost-fields' }, fieldLabels),
      this.note.el, this.out);
  }

  choosePreset(id) {
    this.update(id === 'custom' ? { preset: 'custom' } : { preset: id, ...presetFields(id) });
  }

  /** A typed size: a whole number goes to the engine; anything else is refused beside the boxes, and the figures stay. */
  onField(key, input) {
    const [, label, min] = CALC_FIELDS.find(([k]) => k === key);
    const r = readField(input.value, { label, min, max: 2 ** 53, whole: true }, input.validity.badInput);
    if (r.error) {
      this.note.refuse(input, r.error);
      return;
    }
    this.note.accept(input);
    this.update({ [key]: r.value, preset: 'custom' });
  }

  /** The boxes from the state, then the figures. */
  render() {
    this.presetSelect.value = this.st.preset;
    this.dtypeSelect.value = this.st.dtype;
    for (const [key] of CALC_FIELDS) {
      this.inputs[key].value = String(this.st[key]);
      this.note.accept(this.inputs[key]);
    }
    this.renderFigures();
  }

  /** The figures, each from the engine; a size the engine rejects shows why, in the reader's terms. */
  renderFigures() {
    const { batch, heads, n, dtype, layers, kvHeads, dHead, preset } = this.st;
    const win = this.st.window === 0 ? undefined : this.st.window;
    const line = (label, fn) => {
      try {
        return h('tr', {}, h('th', { scope: 'row' }, label), h('td', {}, fn()));
      } catch (err) {
        return h('tr', {}, h('th', { scope: 'row' }, label), h('td', { class: 'al-cost-refused' }, calcMessage(err)));
      }
    };
    const bytes = (b) => `${formatBytes(b)} (${grouped(b)} bytes)`;
    const kv = (kvh, tokens, many) => this.lab.kvCacheBytes({ layers, kvHeads: kvh, dHead, dtype, heads, tokens, batch: many, window: win });
    const keys = win === undefined ? `${sizeText(n)}\u00b2` : `${sizeText(n)} \u00d7 at most ${sizeText(win)} keys`;
    const total = (kvh) => {
      const r = kv(kvh, n, batch);
      return r.tokensCached < n ? `${bytes(r.bytes)}: a rolling buffer of the last ${grouped(r.tokensCached)} tokens` : bytes(r.bytes);
    };
    const rows = [
      line(`attention weights, one layer (${sizeText(batch)} \u00d7 ${sizeText(heads)} heads \u00d7 ${keys})`, () => {
        const r = this.lab.attentionMatrixBytes({ batch, heads, n, dtype, window: win });
        return `${grouped(r.elements)} numbers = ${bytes(r.bytes)}`;
      }),
      line(`KV cache per token, ${sizeText(layers)} layers`, () => bytes(kv(kvHeads, 1, 1).bytesPerToken)),
      line(`KV cache for ${sizeText(batch)} \u00d7 ${sizeText(n)} tokens`, () => total(kvHeads)),
    ];
    if (kvHeads !== heads) rows.push(line(`the same without grouped-query attention (kv heads = ${sizeText(heads)})`, () => total(heads)));
    const shape = modelShape(preset);
    const windowNote = (w) => ` Sliding window of ${grouped(w)} keys: each query weighs at most ${grouped(w)} keys, and the cache keeps only the last ${grouped(w)} tokens (a rolling buffer).`;
    this.out.replaceChildren(
      h('table', { class: 'al-table al-cost-calc-table' }, h('caption', { class: 'al-sr' }, 'Memory figures from the engine'), h('tbody', {}, rows)),
      h('p', { class: 'al-muted' }, shape
        ? `${shape.name}: ${shape.layers} layers, ${shape.heads} heads, ${shape.kvHeads} kv heads, d_head ${shape.dHead}, n = its ${grouped(shape.context)}-token context.${shape.window ? windowNote(shape.window) : ''}`
        : `Your own shape: change any number.${Number.isInteger(win) && win > 0 ? windowNote(win) : ''}`));
  }
}

module.exports = { CostCalculator, presetFields };
