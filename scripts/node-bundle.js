'use strict';
// The engine for node as one file, build/wasm/attention_lab_node.js: the emscripten glue and
// the JavaScript API (web/src/index.js and what it requires) bundled by esbuild, so that
// require('attention-lab') loads two files (index.js and this) instead of a dozen. Each file
// node loads costs a resolve, a read and a compile: about 0.4 ms apiece here, most of the JS
// part of the engine's start-up (node scripts/bench-startup.js). Built by the wasm step of
// scripts/build.js; tests/node/loading.test.js checks that it matches web/src.

const path = require('path');

const root = path.resolve(__dirname, '..');
const outfile = path.join(root, 'build', 'wasm', 'attention_lab_node.js');

/** esbuild options for the bundle; `write: false` gives its text instead of writing it. */
function nodeBundleOptions(extra = {}) {
  return {
    stdin: {
      contents: "module.exports = { createCore: require('./build/wasm/attention_lab_core.js'), makeLoader: require('./web/src/index.js').makeLoader };",
      resolveDir: root,
      sourcefile: 'attention_lab_node.js',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    // Whitespace only: names stay readable in stack traces, and renaming saved nothing
    // measurable at start-up.
    minifyWhitespace: true,
    legalComments: 'none',
    logLevel: 'warning',
    outfile,
    ...extra,
  };
}

function buildNodeBundle() {
  require('esbuild').buildSync(nodeBundleOptions());
}

module.exports = { nodeBundleOptions, buildNodeBundle, nodeBundleFile: outfile };
