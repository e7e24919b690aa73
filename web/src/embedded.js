'use strict';
// The engine for browsers and workers: the glue plus the wasm bytes that the build embeds
// (the virtual module al:wasm, see scripts/build.js). No node built-ins.
// The wasm first: its base64 then opens the bundle, and gzip -9 meets it and the code in two
// runs instead of base64 in the middle of code (396 B less gzip, node scripts/size.js).
const payload = require('al:wasm');
const createCore = require('../../build/wasm/attention_lab_core.js');
const { decodeEmbedded } = require('./wasm-bytes.js');
const { makeLoader } = require('./index.js');

module.exports = { loadAttentionLab: makeLoader(createCore, () => decodeEmbedded(payload)) };
