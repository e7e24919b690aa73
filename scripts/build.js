#!/usr/bin/env node
'use strict';
// Builds the project. Usage: node scripts/build.js [native] [wasm] [bundle] [site] [types] [bench]
// (default: native wasm bundle site types)
//   native: the C++ library, Catch2 tests and native benchmark (build/native)
//   bench:  the native benchmark built with clang++ when present (build/bench), the same
//           code generator emscripten uses, so native and wasm rows compare kernels, not compilers
//   wasm:   the WebAssembly module with embind (build/wasm/attention_lab_core.js)
//   bundle: the classic browser script dist/attention-lab.js (engine, JS API, widgets)
//   site:   the example lesson site and the iframe embed page in dist/ (after bundle)
//   types:  types/elements.d.ts and dist/custom-elements.json from the widget manifest

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const want = (step) => (args.length === 0 && step !== 'bench') || args.includes(step);
const jobs = String(Math.max(1, require('os').cpus().length));

// Debian's emscripten 3.1.6 needs its node modules (acorn) on NODE_PATH; harmless elsewhere.
const env = { ...process.env };
if (fs.existsSync('/usr/share/nodejs')) {
  env.NODE_PATH = ['/usr/share/nodejs', env.NODE_PATH].filter(Boolean).join(path.delimiter);
}

function run(cmd, cmdArgs) {
  execFileSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env });
}

function onPath(cmd) {
  return require('child_process').spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function cmakeBuild(dir, configure, targets = []) {
  const build = path.join(root, 'build', dir);
  if (!fs.existsSync(path.join(build, 'CMakeCache.txt'))) {
    const [cmd, ...rest] = configure;
    run(cmd, [...rest, '-S', root, '-B', build, '-DCMAKE_BUILD_TYPE=Release']);
  }
  run('cmake', ['--build', build, '-j', jobs, ...targets.flatMap((t) => ['--target', t])]);
}

if (want('types')) require('./manifest.js').writeOutputs();
if (want('native')) cmakeBuild('native', ['cmake', '-DATTNLAB_BUILD_BENCH=OFF']);
if (want('wasm')) cmakeBuild('wasm', ['emcmake', 'cmake']);
if (want('bench')) {
  const cxx = onPath('clang++') ? ['-DCMAKE_CXX_COMPILER=clang++'] : [];
  cmakeBuild('bench', ['cmake', '-DATTNLAB_BUILD_TESTS=OFF', ...cxx], ['bench_native', 'bench_native_march']);
}
// Formulas used inside widgets, typeset to MathML now so readers' browsers typeset nothing.
const formulaPlugin = {
  name: 'al-formulas',
  setup(build) {
    build.onResolve({ filter: /^al:formulas$/ }, () => ({ path: 'formulas', namespace: 'al' }));
    build.onLoad({ filter: /.*/, namespace: 'al' }, () => {
      const katex = require('katex');
      const { FORMULAS } = require(path.join(root, 'web', 'src', 'ui', 'formula-tex.js'));
      // KaTeX's MathML node tree as plain arrays [tag, attributes, ...children] (strings are
      // text), so the widgets build the formulas with createElementNS and never parse markup.
      const toTree = (node) => {
        if (typeof node.text === 'string') return node.text;
        if (node.type === 'annotation') return null;
        if (node.type === undefined && typeof node.width === 'number') {  // KaTeX's SpaceNode
          return node.character ? ['mtext', {}, node.character] : ['mspace', { width: `${node.width}em` }];
        }
        const kids = (node.children || []).map(toTree).filter((k) => k !== null);
        return node.type ? [node.type, { ...node.attributes }, ...kids] : kids;
      };
      const rendered = {};
      for (const [id, parts] of Object.entries(FORMULAS)) {
        rendered[id] = parts.map(([tex, role]) => {
          const tree = toTree(katex.__renderToDomTree(tex, { output: 'mathml', throwOnError: true }));
          const math = tree.find((k) => Array.isArray(k) && k[0] === 'math');
          if (!math) throw new Error(`formula ${id}: KaTeX gave no <math> for ${JSON.stringify(tex)}`);
          return [math, role];
        });
      }
      return { contents: `module.exports = ${JSON.stringify(rendered)};`, loader: 'js' };
    });
  },
};

if (want('bundle')) {
  const esbuild = require('esbuild');
  fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
  const result = esbuild.build({
    entryPoints: [path.join(root, 'web', 'src', 'browser.js')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    // The engine glue names these only on its node code path, which never runs in a browser.
    external: ['fs', 'path', 'crypto', 'ws', 'worker_threads'],
    outfile: path.join(root, 'dist', 'attention-lab.js'),
    plugins: [formulaPlugin],
    minify: true,
    logLevel: 'warning',
  });
  result.then(() => {
    console.log('build: dist/attention-lab.js');
    if (want('site')) require('./build-site.js').buildSite();
  }, (err) => {
    console.error(err.message);
    process.exit(1);
  });
}
