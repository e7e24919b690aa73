'use strict';
// Entry of the classic-script build: exposes window.AttentionLab.loadAttentionLab.
const createCore = require('../../build/wasm/attention_lab_core.js');
const { makeLoader } = require('./index.js');

const api = { loadAttentionLab: makeLoader(createCore) };
if (typeof globalThis !== 'undefined') globalThis.AttentionLab = Object.assign(globalThis.AttentionLab || {}, api);
module.exports = api;
