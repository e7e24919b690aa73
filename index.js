'use strict';
// Node entry: require('attention-lab') from the repository root after the build. The same
// web-only glue and API as in browsers, bundled into one file by the wasm build step with
// V8's code cache for it beside (scripts/node-bundle.js says why), handed the bytes of
// build/wasm/attention_lab_core.wasm.
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const wasmDir = path.join(__dirname, 'build', 'wasm');
const bundle = path.join(wasmDir, 'attention_lab_node.js');

let source;
try {
  source = fs.readFileSync(bundle, 'utf8');
} catch (err) {
  throw new Error(`attention-lab: the wasm module is not built (${err.message}); run "npm run build:wasm" or "npm test" first`);
}
// The cache opens with the build id that ends the bundle (its last line: "// build <16 hex
// digits>"); without a match, V8 compiles the bundle as usual.
const id = source.slice(-17, -1);
let cachedData;
try {
  const cache = fs.readFileSync(path.join(wasmDir, `attention_lab_node.${process.versions.v8}.cache`));
  if (cache.toString('latin1', 0, id.length) === id) cachedData = cache.subarray(id.length);
} catch {
  // No cache for this node: the same engine, compiled at start-up.
}
const engine = { exports: {} };
new vm.Script(source, { filename: bundle, cachedData }).runInThisContext()(require, engine);

// lab.loadModel() with no argument reads the shipped model's script (pages load it with a <script>):
// the package's copy in dist/, or in a checkout not yet bundled, its source in web/model/.
function shippedModel() {
  const built = path.join(__dirname, 'dist', 'attention-lab-model.js');
  return require(fs.existsSync(built) ? built : './web/model/attention-lab-model.js');
}
const hooks = { shippedModel };
module.exports = {
  loadAttentionLab: engine.exports.makeLoader(engine.exports.createCore, () => fs.readFileSync(path.join(wasmDir, 'attention_lab_core.wasm')), hooks),
};
