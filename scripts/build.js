#!/usr/bin/env node
'use strict';
// Builds the project. Usage: node scripts/build.js [native] [wasm] [bundle] [site] [types] [bench]
// (default: native wasm bundle site types)
//   native: the C++ library, Catch2 tests and native benchmark (build/native)
//   bench:  the native benchmark built with clang++ when present (build/bench), the same
//           code generator emscripten uses, so native and wasm rows compare kernels, not compilers
//   wasm:   the WebAssembly module with embind (build/wasm/attention_lab_core.js), and the
//           node entry's bundle of it with web/src (build/wasm/attention_lab_node.js)
//   bundle: the classic browser script dist/attention-lab.js (engine, JS API, widgets), the
//           engine module dist/attention-lab.mjs, the elements module dist/attention-lab-elements.mjs,
//           and the shipped model beside them, dist/attention-lab-model.js
//   site:   the example lesson site and the iframe embed page in dist/ (after bundle; alone, around the bundle in dist/)
//   types:  types/elements.d.ts and dist/custom-elements.json from the widget manifest

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { formulaPlugin, wasmPlugin, shrinkPlugin, terse, COMPILE_HINT } = require('./bundle-plugins.js');

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
if (want('wasm')) {
  cmakeBuild('wasm', ['emcmake', 'cmake']);
  require('./node-bundle.js').buildNodeBundle();
}
if (want('bench')) {
  const cxx = onPath('clang++') ? ['-DCMAKE_CXX_COMPILER=clang++'] : [];
  cmakeBuild('bench', ['cmake', '-DATTNLAB_BUILD_TESTS=OFF', ...cxx], ['bench_native', 'bench_native_march']);
}
if (want('bundle')) {
  const esbuild = require('esbuild');
  fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
  // No node built-ins are marked external: the glue is built for web and worker only, so a
  // stray require('fs') fails the bundle here rather than in a reader's browser.
  // ATTENTION_LAB_VERSION: the version a copy on a page names (web/src/kit/copies.js).
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const common = { bundle: true, platform: 'browser', minify: true, logLevel: 'warning', legalComments: 'none',
    define: { ATTENTION_LAB_VERSION: JSON.stringify(version) } };
  // The elements module imports the engine module as it is shipped beside it, so that a
  // bundler that meets both (import 'attention-lab/elements' and the API) keeps one engine.
  const engineModulePlugin = {
    name: 'al-engine-module',
    setup(build) {
      build.onResolve({ filter: /^\.\/module\.mjs$/ }, () => ({ path: './attention-lab.mjs', external: true }));
    },
  };
  // esbuild bundles and minifies, terser minifies once more (scripts/bundle-plugins.js), then
  // the compile hint goes on the first line.
  const bundle = async (options, module) => {
    const r = await esbuild.build({ ...common, ...options, write: false });
    const code = await terse(r.outputFiles[0].text, { module, preamble: COMPILE_HINT.trim() });
    fs.writeFileSync(options.outfile, `${code}\n`);
  };
  const builds = [
    bundle({
      entryPoints: [path.join(root, 'web', 'src', 'browser.js')],
      format: 'iife',
      outfile: path.join(root, 'dist', 'attention-lab.js'),
      plugins: [formulaPlugin, wasmPlugin, shrinkPlugin],
      // A named wrapper lets the script read its own source, to start a Web Worker from a Blob
      // without fetching anything (web/src/kit/cost-runner.js).
      banner: { js: '(function attentionLabScript(){' },
      footer: { js: '})();' },
    }, false),
    // The engine module is the engine inside a function, so that it can also give its own source:
    // the elements module starts a Web Worker from a Blob of it (web/src/kit/engine-worker.js),
    // as the classic script does from attentionLabScript. web/src/module.mjs is its unbuilt twin.
    bundle({
      entryPoints: [path.join(root, 'web', 'src', 'embedded.js')],
      format: 'iife',
      globalName: 'attentionLabEngine',
      outfile: path.join(root, 'dist', 'attention-lab.mjs'),
      plugins: [wasmPlugin],
      banner: { js: 'function attentionLabEngine(){' },
      footer: { js: 'return attentionLabEngine;}\nconst engine = attentionLabEngine();\nexport const { loadAttentionLab } = engine;\nexport const engineSource = attentionLabEngine.toString();' },
    }, true),
    bundle({
      entryPoints: [path.join(root, 'web', 'src', 'elements.mjs')],
      format: 'esm',
      outfile: path.join(root, 'dist', 'attention-lab-elements.mjs'),
      plugins: [engineModulePlugin, formulaPlugin, shrinkPlugin],
    }, true),
  ];
  // The shipped model beside the kit, its own file (the kit does not grow by it): a page adds
  // <script src="attention-lab-model.js"> to use lab.loadModel() (web/src/api/model-file.js).
  // attention-lab-model.mjs, for a site built with a bundler (the package's 'attention-lab/model'), is
  // the same model as an ES module: it registers it where lab.loadModel() and <model-attention model>
  // look, and exports it. A module of its own, not an import of the script: a bundler that does not
  // treat the script as CommonJS (Vite with a linked package) would find no export in it.
  const modelScript = fs.readFileSync(path.join(root, 'web', 'model', 'attention-lab-model.js'), 'utf8');
  fs.writeFileSync(path.join(root, 'dist', 'attention-lab-model.js'), modelScript);
  const notice = modelScript.slice(0, modelScript.indexOf('*/') + 2);
  const model = require('../web/src/api/model-file.js').parseModelText('build', modelScript);
  fs.writeFileSync(path.join(root, 'dist', 'attention-lab-model.mjs'), `${notice}\n// import 'attention-lab/model' registers the model for lab.loadModel() and <model-attention model>.\n`
    + 'const model = ' + JSON.stringify(model) + ';\n'
    + require('../web/src/api/model-script.js').REGISTER
    + 'export default model;\n');
  // The space the widgets hold on a page that loads the script deferred, until it has run.
  fs.writeFileSync(path.join(root, 'dist', 'attention-lab-reserve.css'), require('./reserve-css.js').reserveCss());
  Promise.all(builds).then(() => {
    console.log('build: dist/attention-lab.js, dist/attention-lab.mjs, dist/attention-lab-elements.mjs, dist/attention-lab-model.js and .mjs, dist/attention-lab-reserve.css');
    if (want('site')) require('./build-site.js').buildSite();
  }, (err) => {
    console.error(err.message);
    process.exit(1);
  });
}
// `site` alone: the pages again around the bundle already in dist/ (with `bundle`, after it, above).
if (want('site') && !want('bundle')) {
  if (!fs.existsSync(path.join(root, 'dist', 'attention-lab.js'))) {
    console.error('build: site needs dist/attention-lab.js; run node scripts/build.js bundle site');
    process.exit(1);
  }
  require('./build-site.js').buildSite();
}
