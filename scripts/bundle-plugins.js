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
      // KaTeX's MathML node tree as plain arrays [tag, attributes?, ...children] (strings are
      // text; the attributes object only when there are any), so the widgets build the formulas
      // with createElementNS and never parse markup. A node is a list: a fragment (no type)
      // gives its children to its parent.
      const toNodes = (node) => {
        if (typeof node.text === 'string') return [node.text];
        if (node.type === 'annotation') return [];
        if (node.type === undefined && typeof node.width === 'number') {  // KaTeX's SpaceNode
          return [node.character ? ['mtext', node.character] : ['mspace', { width: `${node.width}em` }]];
        }
        const kids = (node.children || []).flatMap(toNodes);
        if (!node.type) return kids;
        const { xmlns, ...attributes } = node.attributes || {};
        return [[node.type, ...(Object.keys(attributes).length ? [attributes] : []), ...kids]];
      };
      // Every part is <math><semantics>...</semantics></math>: the bundle carries what is inside
      // <semantics>, and web/src/kit/formulas.js puts the two around it.
      const rendered = {};
      for (const [id, parts] of Object.entries(FORMULAS)) {
        rendered[id] = parts.map(([tex, role]) => {
          const math = toNodes(katex.__renderToDomTree(tex, { output: 'mathml', throwOnError: true })).find((k) => Array.isArray(k) && k[0] === 'math');
          if (!math || math.length !== 2 || math[1][0] !== 'semantics' || !Array.isArray(math[1][1])) {
            throw new Error(`formula ${id}: KaTeX gave no <math><semantics> for ${JSON.stringify(tex)}`);
          }
          return [math[1].slice(1), role];
        });
      }
      return { contents: `module.exports = ${JSON.stringify(rendered)};`, loader: 'js' };
    });
  },
};

// The wasm bytes inside the script, as base64 of their gzip: the script gzips to about
// the size of the gzipped wasm, where base64 of the raw bytes gzips to about 1.4 times that
// (measured in npm run bench). The gzip is made with zopfli (@gfx/zopfli, build time only),
// about 5% smaller than zlib -9 and still plain gzip for DecompressionStream; it takes
// seconds, so it is cached beside the wasm under the module's hash. ATTNLAB_EMBED=raw embeds
// the raw bytes, for comparison.
const wasmFile = path.join(root, 'build', 'wasm', 'attention_lab_core.wasm');

async function zopfliGzip(raw) {
  const hash = require('crypto').createHash('sha256').update(raw).digest('hex').slice(0, 16);
  const cache = path.join(path.dirname(wasmFile), `attention_lab_core.${hash}.wasm.gz`);
  if (fs.existsSync(cache)) return fs.readFileSync(cache);
  const { gzip } = require('@gfx/zopfli');
  const out = await new Promise((resolve, reject) => gzip(raw, { numiterations: 15 }, (err, r) => (err ? reject(err) : resolve(Buffer.from(r)))));
  if (!require('zlib').gunzipSync(out).equals(raw)) throw new Error('zopfli: the gzip of the wasm does not read back');
  for (const f of fs.readdirSync(path.dirname(wasmFile))) {
    if (/^attention_lab_core\.[0-9a-f]{16}\.wasm\.gz$/.test(f)) fs.rmSync(path.join(path.dirname(wasmFile), f));
  }
  fs.writeFileSync(cache, out);
  return out;
}

/** { encoding, base64 } of the wasm as the script embeds it. */
async function embeddedWasm(encoding = process.env.ATTNLAB_EMBED === 'raw' ? 'raw' : 'gzip') {
  const raw = fs.readFileSync(wasmFile);
  const bytes = encoding === 'gzip' ? await zopfliGzip(raw) : raw;
  return { encoding, base64: bytes.toString('base64') };
}

const wasmPlugin = {
  name: 'al-wasm',
  setup(build) {
    build.onResolve({ filter: /^al:wasm$/ }, () => ({ path: 'wasm', namespace: 'al-wasm' }));
    build.onLoad({ filter: /.*/, namespace: 'al-wasm' }, async () => ({ contents: `module.exports = ${JSON.stringify(await embeddedWasm())};`, loader: 'js' }));
  },
};

// Size rules for the shipped script (the budget is checked in tests/node/size.test.js):
// - CSS lives in template literals assigned to a name ending in CSS (`const FOO_CSS = \`...\``)
//   with no ${} inside; the bundle minifies them with esbuild's CSS minifier, so the sources
//   keep readable CSS and readers download none of its spacing.
// - The widget manifest (web/src/kit/manifest.js) feeds the README, the TypeScript
//   declarations and custom-elements.json; at run time the elements need only the attribute
//   rules, so the bundle carries those without descriptions, summaries, parts or events.
const CSS_LITERAL = /(\b[A-Z_]*CSS\s*=\s*)`([^`]*)`/g;

async function minifyCss(source, file, drop) {
  const esbuild = require('esbuild');
  const pieces = [];
  let last = 0;
  for (const m of source.matchAll(CSS_LITERAL)) {
    if (m[2].includes('${')) throw new Error(`${file}: a CSS literal may not interpolate (\${...}); join strings instead`);
    const css = drop ? '' : (await esbuild.transform(m[2], { loader: 'css', minify: true, logLevel: 'error' })).code.trim();
    pieces.push(source.slice(last, m.index), m[1], JSON.stringify(css));
    last = m.index + m[0].length;
  }
  pieces.push(source.slice(last));
  return pieces.join('');
}

// dropCss: CSS literals become empty strings (for the size breakdown's "widgets without CSS").
const makeShrinkPlugin = ({ dropCss = false } = {}) => ({
  name: 'al-shrink',
  setup(build) {
    build.onLoad({ filter: /[\\/]web[\\/]src[\\/](kit|elements)[\\/][^\\/]+\.js$/ }, async (args) => {
      if (path.basename(args.path) === 'manifest.js') {
        delete require.cache[require.resolve(args.path)];
        const { WIDGETS, COMMON_ATTRIBUTES, attributesOf } = require(args.path);
        const strip = (attrs) => attrs.map(({ description, ...rule }) => rule);
        const widgets = Object.fromEntries(Object.entries(WIDGETS).map(([tag, w]) => [tag, { attributes: strip(w.attributes) }]));
        return {
          contents: `const WIDGETS = ${JSON.stringify(widgets)}, COMMON_ATTRIBUTES = ${JSON.stringify(strip(COMMON_ATTRIBUTES))};\n` +
            `${attributesOf}\nmodule.exports = { WIDGETS, attributesOf };`,
          loader: 'js',
        };
      }
      const source = await fs.promises.readFile(args.path, 'utf8');
      if (!/\b[A-Z_]*CSS\s*=\s*`/.test(source)) return undefined;
      return { contents: await minifyCss(source, args.path, dropCss), loader: 'js' };
    });
  },
});
const shrinkPlugin = makeShrinkPlugin();

// V8's explicit compile hint, on the script's first line: compile every function while the
// script streams in, off the main thread, instead of lazily on first call inside each widget's
// first setup (measured in scripts/profile-load.js: that lazy compilation was 6-14 ms of CPU in
// each widget's first setup task). Browsers without the hint read a comment.
const COMPILE_HINT = '//# allFunctionsCalledOnLoad\n';

// A second pass over esbuild's minified output. terser picks the short local names by how
// often each letter already occurs in the script, which gzip rewards: dist/attention-lab.js
// measured 5.5 KB gzip smaller (157.2 -> 151.7 KB, scripts/size.js), of which 4.3 KB is the
// names alone. ascii_only keeps \u escapes escaped: a page without a charset still reads
// every symbol right. Two compress passes: 134 B gzip less than one (a third: 7 B, for twice the time).
// Measured and left out (scripts/size.js, the whole script): unsafe_methods (-83 B more) and
// unsafe_arrows (-159 B) would make functions that a caller may construct non-constructible,
// pure_getters (-97 B) may drop a read kept for its side effect, property mangling of _names
// (-209 B) would rename what a page or the glue can reach; esbuild without its own minifier
// before terser was 274-1251 B larger.
async function terse(code, { module = false, preamble } = {}) {
  const { minify } = require('terser');
  const r = await minify(code, { ecma: 2020, module, compress: { passes: 2 }, format: { ascii_only: true, comments: false, preamble } });
  return r.code;
}

module.exports = { formulaPlugin, wasmPlugin, shrinkPlugin, makeShrinkPlugin, embeddedWasm, terse, COMPILE_HINT };
