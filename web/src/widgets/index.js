'use strict';
// Registers every widget as a custom element (once per page).

const { setLoader } = require('./engine.js');
const { attributesOf } = require('./manifest.js');
const { formatAttribute } = require('../ui/attributes.js');
const { logOnce } = require('./host-page.js');
// Required in this order so that widgets with similar code sit near each other in the bundle,
// within gzip's 32 KB window (heatmaps together, steppers together): 823 B less gzip than the
// order of ELEMENTS below, measured with node scripts/size.js.
const { AttentionHeatmap } = require('./heatmap.js');
const { SoftmaxDemo } = require('./softmax-demo.js');
const { MultiheadView } = require('./multihead-view.js');
const { PaddingMask } = require('./padding-mask.js');
const { AttentionWorkedExample } = require('./worked-example.js');
const { ShapeTracer } = require('./shape-tracer.js');
const { MistakesLab } = require('./mistakes-lab.js');
const { AttentionStepper } = require('./stepper.js');
const { OnlineSoftmaxStepper } = require('./online-softmax-stepper.js');
const { KvCacheStepper } = require('./kv-cache-stepper.js');
const { ScalingExperiment } = require('./scaling-experiment.js');
const { CostLab } = require('./cost-lab.js');
const { AttentionTrainer } = require('./attention-trainer.js');

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
  'online-softmax-stepper': OnlineSoftmaxStepper,
  'kv-cache-stepper': KvCacheStepper,
  'cost-lab': CostLab,
  'attention-trainer': AttentionTrainer,
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

function defineWidgets(loadAttentionLab) {
  setLoader(loadAttentionLab);
  for (const [name, cls] of Object.entries(ELEMENTS)) {
    if (customElements.get(name)) {
      logOnce(`attention-lab: the page already defines <${name}>, so those elements are not attention-lab widgets`);
      continue;
    }
    cls.tag = name;
    defineProperties(cls, name);
    customElements.define(name, cls);
  }
}

module.exports = { defineWidgets, ELEMENTS };
