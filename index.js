'use strict';
// Node entry: require('attention-lab') from the repository root after the build. The same
// web-only glue and API as in browsers, bundled into one file by the wasm build step
// (scripts/node-bundle.js), handed the bytes of build/wasm/attention_lab_core.wasm.
const fs = require('fs');
const path = require('path');

const wasmDir = path.join(__dirname, 'build', 'wasm');
let engine;
try {
  engine = require('./build/wasm/attention_lab_node.js');
} catch (err) {
  if (err.code !== 'MODULE_NOT_FOUND' || !String(err.message).includes('attention_lab_node.js')) throw err;
  throw new Error(`attention-lab: the wasm module is not built (${err.message.split('\n')[0]}); run "npm run build:wasm" or "npm test" first`);
}

module.exports = {
  loadAttentionLab: engine.makeLoader(engine.createCore, () => fs.readFileSync(path.join(wasmDir, 'attention_lab_core.wasm'))),
};
