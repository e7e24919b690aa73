'use strict';
// The engine for node as one file, build/wasm/attention_lab_node.js: the emscripten glue and
// the JavaScript API (web/src/index.js and what it requires) bundled by esbuild, so that
// require('attention-lab') reads two files (index.js, which runs this one through vm.Script)
// instead of a dozen modules. Each module node loads costs a resolve, a read and a compile:
// about 0.4 ms apiece here, most of the JS part of the start-up (node scripts/bench-startup.js).
//
// Beside it, build/wasm/attention_lab_node.<V8 version>.cache: V8's code cache for the bundle,
// taken after a load and one call, so the node that built it compiles no JavaScript of ours
// at start-up (about 5 ms here). Another node looks for its own version's file and finds
// none; other V8 flags make V8 reject it; either way the bundle compiles as usual. The cache
// opens with the build id that ends the bundle, so it never meets a bundle it was not made
// from (V8 itself checks only the source's length).
//
// Built by the wasm step of scripts/build.js; tests/node/loading.test.js checks both.

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const root = path.resolve(__dirname, '..');
const nodeBundleFile = path.join(root, 'build', 'wasm', 'attention_lab_node.js');
const codeCacheFile = path.join(root, 'build', 'wasm', `attention_lab_node.${process.versions.v8}.cache`);
const ID_LENGTH = 16;

/** The bundle's text: an expression, (function (require, module) { ... }), then its build id. */
function nodeBundleText() {
  const [out] = require('esbuild').buildSync({
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
    banner: { js: '(function (require, module) {' },
    footer: { js: '})' },
    write: false,
  }).outputFiles;
  const id = crypto.createHash('sha256').update(out.text).digest('hex').slice(0, ID_LENGTH);
  return `${out.text}\n// build ${id}\n`;
}

/** The build id at the end of a bundle's text (index.js reads it the same way). */
function bundleId(text) {
  return text.slice(-(ID_LENGTH + 1), -1);
}

// Runs in a fresh node: loads the bundle as index.js does, starts the engine, makes one call
// (so the functions of a first lab.attention are in the cache too), writes the cache.
function makeCache(bundle, cacheFile, wasm, id) {
  const fs = require('fs');
  const vm = require('vm');
  const text = fs.readFileSync(bundle, 'utf8');
  const script = new vm.Script(text, { filename: bundle });
  const mod = { exports: {} };
  script.runInThisContext()(require, mod);
  mod.exports.makeLoader(mod.exports.createCore, () => fs.readFileSync(wasm))().then((lab) => {
    const x = { shape: [5, 64], data: new Float32Array(320) };
    lab.attention(x, x, x);
    fs.writeFileSync(cacheFile, Buffer.concat([Buffer.from(id, 'latin1'), script.createCachedData()]));
  });
}

function buildNodeBundle() {
  const text = nodeBundleText();
  fs.writeFileSync(nodeBundleFile, text);
  const dir = path.dirname(nodeBundleFile);
  for (const f of fs.readdirSync(dir)) if (/^attention_lab_node\..+\.cache$/.test(f)) fs.rmSync(path.join(dir, f));
  const wasm = path.join(root, 'build', 'wasm', 'attention_lab_core.wasm');
  execFileSync(process.execPath, ['-e', `(${makeCache})(...${JSON.stringify([nodeBundleFile, codeCacheFile, wasm, bundleId(text)])})`], { stdio: 'inherit' });
}

module.exports = { nodeBundleText, bundleId, buildNodeBundle, nodeBundleFile, codeCacheFile };
