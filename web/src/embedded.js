'use strict';
// The engine for browsers and workers: the glue plus the wasm bytes that the build embeds
// (the virtual module al:wasm, see scripts/build.js). No node built-ins.
const createCore = require('../../build/wasm/attention_lab_core.js');
const payload = require('al:wasm');
const { decodeEmbedded } = require('./wasm-bytes.js');
const { makeLoader } = require('./index.js');

module.exports = { loadAttentionLab: makeLoader(createCore, () => decodeEmbedded(payload)) };
