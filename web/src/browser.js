'use strict';
// Entry of the classic-script build: exposes globalThis.AttentionLab.loadAttentionLab and,
// where custom elements exist (a page, not a worker), registers the lesson widgets.
// A page that includes the script twice keeps the first copy: one engine, whose widgets and
// global API are the same.
const { loadAttentionLab } = require('./embedded.js');

const earlier = globalThis.AttentionLab && typeof globalThis.AttentionLab.loadAttentionLab === 'function';
const api = earlier ? { loadAttentionLab: globalThis.AttentionLab.loadAttentionLab } : { loadAttentionLab };
if (!earlier) {
  globalThis.AttentionLab = Object.assign(globalThis.AttentionLab || {}, api);
  if (typeof customElements !== 'undefined') require('./widgets/index.js').defineWidgets(api.loadAttentionLab);
}
module.exports = api;
