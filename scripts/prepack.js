#!/usr/bin/env node
'use strict';
// Runs before `npm pack` / `npm publish`: regenerates the manifest outputs, then refuses to
// pack when a file that package.json points to is missing (an unbuilt tree would otherwise
// pack silently without the engine or the script).

const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');

/** Every file package.json names as an entry point: main, types, exports targets, customElements. */
function entryFiles(pkg) {
  const files = new Set([pkg.main, pkg.types, pkg.customElements].filter(Boolean));
  const walk = (target) => {
    if (typeof target === 'string') files.add(target);
    else if (target && typeof target === 'object') Object.values(target).forEach(walk);
  };
  walk(pkg.exports);
  return [...new Set([...files].map((f) => path.posix.normalize(f)))];
}

/** The files the node entry loads at run time that the build makes. */
const BUILT_RUNTIME_FILES = ['build/wasm/attention_lab_node.js', 'build/wasm/attention_lab_core.wasm'];

function check() {
  // stderr: npm pack --json prints the file list on stdout.
  require('./manifest.js').writeOutputs(console.error);
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const missing = [...entryFiles(pkg), ...BUILT_RUNTIME_FILES].filter((f) => !fs.existsSync(path.join(root, f)));
  if (missing.length) {
    console.error(`prepack: missing ${missing.join(', ')}; run "npm run build" first`);
    process.exit(1);
  }
}

module.exports = { entryFiles, BUILT_RUNTIME_FILES };

if (require.main === module) check();
