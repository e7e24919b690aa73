'use strict';
// Entry of the classic-script build: exposes globalThis.AttentionLab ({ loadAttentionLab,
// version }) and, where custom elements exist (a page, not a worker), registers the lesson
// widgets. A page that includes the script twice keeps the first copy's engine, API and
// widgets; a newer copy adds the elements an older first copy lacks (kit/copies.js).
const { loadAttentionLab } = require('./embedded.js');
const { takePlace } = require('./kit/copies.js');

module.exports = takePlace(loadAttentionLab);
