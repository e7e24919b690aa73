'use strict';
// esbuild plugins shared by the bundle step (scripts/build.js) and the size breakdown
// (scripts/size.js): virtual modules made at build time.

const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');

// Formulas used inside widgets, typeset to MathML now so readers' browsers typeset nothing.
const formulaPlugin = {
  name: 'al-formulas',
  setup(build) {
    build.onResolve({ filter: /^al:formulas$/ }, () => ({ path: 'formulas', namespace: 'al' }));
    build.onLoad({ filter: /.*/, namespace: 'al' }, () => {
      const katex = require('katex');
      const { FORMULAS } = require(path.join(root, 'web', 'src', 'ui', 'formula-tex.js'));
      const rendered = {};
      for (const [id, parts] of Object.entries(FORMULAS)) {
        rendered[id] = parts.map(([tex, role]) => [katex.renderToString(tex, { output: 'mathml', throwOnError: true }), role]);
      }
      return { contents: `module.exports = ${JSON.stringify(rendered)};`, loader: 'js' };
    });
  },
};

// The wasm bytes inside the script, as base64 of their gzip: the script gzips to about
// the size of the gzipped wasm, where base64 of the raw bytes gzips to about 1.4 times that
// (measured in npm run bench). ATTNLAB_EMBED=raw embeds the raw bytes, for comparison.
const wasmPlugin = {
  name: 'al-wasm',
  setup(build) {
    build.onResolve({ filter: /^al:wasm$/ }, () => ({ path: 'wasm', namespace: 'al-wasm' }));
    build.onLoad({ filter: /.*/, namespace: 'al-wasm' }, () => {
      const raw = fs.readFileSync(path.join(root, 'build', 'wasm', 'attention_lab_core.wasm'));
      const encoding = process.env.ATTNLAB_EMBED === 'raw' ? 'raw' : 'gzip';
      const bytes = encoding === 'gzip' ? require('zlib').gzipSync(raw, { level: 9 }) : raw;
      return { contents: `module.exports = ${JSON.stringify({ encoding, base64: bytes.toString('base64') })};`, loader: 'js' };
    });
  },
};

module.exports = { formulaPlugin, wasmPlugin };
