'use strict';
// Entry of the classic-script build: exposes globalThis.AttentionLab.loadAttentionLab and,
// where custom elements exist (a page, not a worker), registers the lesson widgets.
// A page that includes the script twice keeps the first copy: one engine, whose widgets and
// global API are the same.
const { loadAttentionLab } = require('./embedded.js');

// window.AttentionLab may also be the page's own element or frame of that id or name (named
// access on window): only a plain object, the page's or an earlier copy's, is ours to read and
// extend. A frame of another origin would throw on the first property read.
const existing = globalThis.AttentionLab;
const plain = existing !== null && typeof existing === 'object' && Object.getPrototypeOf(existing) === Object.prototype;
const earlier = plain && typeof existing.loadAttentionLab === 'function';
const api = earlier ? { loadAttentionLab: existing.loadAttentionLab } : { loadAttentionLab };
if (!earlier) {
  globalThis.AttentionLab = Object.assign(plain ? existing : {}, api);
  if (typeof customElements !== 'undefined') require('./widgets/index.js').defineWidgets(api.loadAttentionLab);
}
module.exports = api;
