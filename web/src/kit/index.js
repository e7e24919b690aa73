'use strict';
// Registers every widget as a custom element (once per page).

const { setLoader } = require('./engine.js');
const { attributesOf } = require('./manifest.js');
const { formatAttribute } = require('../ui/attributes.js');
const { logOnce, connectedWidgets } = require('./host-page.js');
const { watchPrinting } = require('./print.js');
// Required in this order so that widgets with similar code sit near each other in the bundle,
// within gzip's 32 KB window (heatmaps together, steppers together): 823 B less gzip than the
// order of ELEMENTS below, measured with node scripts/size.js.
const { AttentionHeatmap } = require('../elements/attention-heatmap.js');
const { SoftmaxDemo } = require('../elements/softmax-demo.js');
const { MultiheadView } = require('../elements/multihead-view.js');
const { ModelAttention } = require('../elements/model-attention.js');
const { PaddingMask } = require('../elements/padding-mask.js');
const { AttentionWorkedExample } = require('../elements/attention-worked-example.js');
const { ShapeTracer } = require('../elements/shape-tracer.js');
const { MistakesLab } = require('../elements/mistakes-lab.js');
const { PositionLab } = require('../elements/position-lab.js');
const { AttentionStepper } = require('../elements/attention-stepper.js');
const { OnlineSoftmaxStepper } = require('../elements/online-softmax-stepper.js');
const { KvCacheStepper } = require('../elements/kv-cache-stepper.js');
const { ScalingExperiment } = require('../elements/scaling-experiment.js');
const { CostLab } = require('../elements/cost-lab.js');
const { AttentionTrainer } = require('../elements/attention-trainer.js');
const { PositionRace } = require('../elements/position-race.js');

const ELEMENTS = {
  'attention-stepper': AttentionStepper,
  'attention-heatmap': AttentionHeatmap,
  'attention-worked-example': AttentionWorkedExample,
  'scaling-experiment': ScalingExperiment,
  'multihead-view': MultiheadView,
  'shape-tracer': ShapeTracer,
  'padding-mask': PaddingMask,
  'softmax-demo': SoftmaxDemo,
  'mistakes-lab': MistakesLab,
  'position-lab': PositionLab,
  'online-softmax-stepper': OnlineSoftmaxStepper,
  'kv-cache-stepper': KvCacheStepper,
  'cost-lab': CostLab,
  'attention-trainer': AttentionTrainer,
  'position-race': PositionRace,
  'model-attention': ModelAttention,
};

/** Properties that mirror the declared attributes: reading parses, writing reflects. */
function defineProperties(cls, tag) {
  for (const spec of attributesOf(tag)) {
    if (!spec.property || Object.prototype.hasOwnProperty.call(cls.prototype, spec.property)) continue;
    Object.defineProperty(cls.prototype, spec.property, {
      configurable: true,
      enumerable: true,
      get() {
        try {
          return this.attr(spec.name, spec.default);
        } catch (_) {
          return undefined;
        }
      },
      set(value) {
        const text = formatAttribute(spec, value);
        if (text === null) this.removeAttribute(spec.name);
        else this.setAttribute(spec.name, text);
      },
    });
  }
}

/**
 * Defines the elements, their widgets' engine coming from `loadAttentionLab`. A name the page
 * already defined stays the page's (one console line says so); with `onlyMissing` (a later
 * copy of attention-lab, see copies.js) that is expected and said by the caller.
 * @returns the names defined here
 */
function defineWidgets(loadAttentionLab, { onlyMissing = false } = {}) {
  setLoader(loadAttentionLab);
  // Printing lists the predict-first answers at the end of the page (print.js).
  if (typeof window !== 'undefined') watchPrinting(window, connectedWidgets);
  const defined = [];
  for (const [name, cls] of Object.entries(ELEMENTS)) {
    if (customElements.get(name)) {
      if (!onlyMissing) logOnce(`attention-lab: the page already defines <${name}>, so those elements are not attention-lab widgets`);
      continue;
    }
    cls.tag = name;
    defineProperties(cls, name);
    customElements.define(name, cls);
    defined.push(name);
  }
  return defined;
}

module.exports = { defineWidgets, ELEMENTS };
