'use strict';
// Node entry: require('attention-lab') from the repository root after the build.
const path = require('path');

let createCore;
try {
  createCore = require(path.join(__dirname, 'build', 'wasm', 'attention_lab_core.js'));
} catch (err) {
  throw new Error(`attention-lab: the wasm module is not built (${err.message}); run "npm run build:wasm" or "npm test" first`);
}
const { makeLoader } = require('./web/src/index.js');

module.exports = { loadAttentionLab: makeLoader(createCore) };
