'use strict';
// Entry of the classic-script build: exposes window.AttentionLab.loadAttentionLab and
// registers the lesson widgets as custom elements.
const createCore = require('../../build/wasm/attention_lab_core.js');
const { makeLoader } = require('./index.js');

const api = { loadAttentionLab: makeLoader(createCore) };
if (typeof globalThis !== 'undefined') globalThis.AttentionLab = Object.assign(globalThis.AttentionLab || {}, api);
if (typeof customElements !== 'undefined') require('./widgets/index.js').defineWidgets(api.loadAttentionLab);
module.exports = api;
