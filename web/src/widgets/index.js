'use strict';
// Registers every widget as a custom element (once per page).

const { setLoader } = require('./engine.js');
const { AttentionStepper } = require('./stepper.js');
const { AttentionHeatmap } = require('./heatmap.js');
const { AttentionWorkedExample } = require('./worked-example.js');
const { ScalingExperiment } = require('./scaling-experiment.js');
const { MultiheadView } = require('./multihead-view.js');
const { ShapeTracer } = require('./shape-tracer.js');
const { PaddingMask } = require('./padding-mask.js');
const { SoftmaxDemo } = require('./softmax-demo.js');

const ELEMENTS = {
  'attention-stepper': AttentionStepper,
  'attention-heatmap': AttentionHeatmap,
  'attention-worked-example': AttentionWorkedExample,
  'scaling-experiment': ScalingExperiment,
  'multihead-view': MultiheadView,
  'shape-tracer': ShapeTracer,
  'padding-mask': PaddingMask,
  'softmax-demo': SoftmaxDemo,
};

function defineWidgets(loadAttentionLab) {
  setLoader(loadAttentionLab);
  for (const [name, cls] of Object.entries(ELEMENTS)) {
    if (!customElements.get(name)) customElements.define(name, cls);
  }
}

module.exports = { defineWidgets, ELEMENTS };
