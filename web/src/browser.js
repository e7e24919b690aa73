'use strict';
// Entry of the classic-script build: exposes globalThis.AttentionLab.loadAttentionLab and,
// where custom elements exist (a page, not a worker), registers the lesson widgets.
const { loadAttentionLab } = require('./embedded.js');

const api = { loadAttentionLab };
globalThis.AttentionLab = Object.assign(globalThis.AttentionLab || {}, api);
if (typeof customElements !== 'undefined') require('./widgets/index.js').defineWidgets(api.loadAttentionLab);
module.exports = api;
