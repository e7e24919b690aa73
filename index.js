'use strict';
// Node entry: require('attention-lab') from the repository root after the build. The same
// web-only glue as in browsers, handed the bytes of build/wasm/attention_lab_core.wasm.
const fs = require('fs');
const path = require('path');

const wasmDir = path.join(__dirname, 'build', 'wasm');
let createCore;
try {
  createCore = require(path.join(wasmDir, 'attention_lab_core.js'));
} catch (err) {
  throw new Error(`attention-lab: the wasm module is not built (${err.message}); run "npm run build:wasm" or "npm test" first`);
}
const { makeLoader } = require('./web/src/index.js');

module.exports = {
  loadAttentionLab: makeLoader(createCore, () => fs.readFileSync(path.join(wasmDir, 'attention_lab_core.wasm'))),
};
