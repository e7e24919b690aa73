'use strict';
// The loader's contract: one attempt per loader, errors with a code and a cause, an engine
// that never writes to the console, and the package entry points.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { makeLoader } = require('../../web/src/index.js');
const { loadErrorCode } = require('../../web/src/load-error.js');
const { decodeEmbedded } = require('../../web/src/wasm-bytes.js');
const zlib = require('zlib');

const root = path.resolve(__dirname, '..', '..');
const createCore = require(path.join(root, 'build', 'wasm', 'attention_lab_core.js'));
const wasm = fs.readFileSync(path.join(root, 'build', 'wasm', 'attention_lab_core.wasm'));

function watchConsole() {
  const calls = [];
  const saved = {};
  for (const name of ['log', 'warn', 'error', 'info', 'debug']) {
    saved[name] = console[name];
    console[name] = (...args) => calls.push(`${name}: ${args.join(' ')}`);
  }
  return { calls, restore: () => Object.assign(console, saved) };
}

test('a load that fails is attempted once: later calls return the same rejected promise', async () => {
  let reads = 0;
  const load = makeLoader(createCore, () => {
    reads += 1;
    return new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 99]);  // a wasm header, then garbage
  });
  const watch = watchConsole();
  const first = load();
  const second = load();
  await assert.rejects(first, (err) => {
    assert.ok(err instanceof Error);
    assert.equal(err.code, 'wasm-unsupported');
    assert.equal(err.cause.name, 'CompileError');
    assert.match(err.message, /^attention-lab: this browser cannot run the engine/);
    return true;
  });
  assert.equal(second, first);
  assert.equal(load(), first);
  watch.restore();
  assert.equal(reads, 1);
  assert.deepEqual(watch.calls, [], 'the glue printed nothing');
});

test('a factory that throws gives engine-failed with the original error as cause', async () => {
  const boom = new TypeError('no such thing');
  const load = makeLoader(() => { throw boom; }, () => wasm);
  await assert.rejects(load(), (err) => err.code === 'engine-failed' && err.cause === boom && /no such thing/.test(err.message));
});

test('without WebAssembly the load rejects with wasm-unsupported', async () => {
  const saved = globalThis.WebAssembly;
  delete globalThis.WebAssembly;
  try {
    await assert.rejects(makeLoader(createCore, () => wasm)(), (err) => err.code === 'wasm-unsupported');
  } finally {
    globalThis.WebAssembly = saved;
  }
});

test('load errors are classified by what the browser threw', () => {
  const named = (name, message) => Object.assign(new Error(message), { name });
  assert.equal(loadErrorCode(named('CompileError', "WebAssembly.instantiate(): Refused to compile or instantiate WebAssembly module because 'unsafe-eval' is not an allowed source of script")), 'wasm-blocked');
  assert.equal(loadErrorCode(named('CompileError', 'call to WebAssembly.instantiate() blocked by CSP')), 'wasm-blocked');
  assert.equal(loadErrorCode(named('EvalError', 'Refused to evaluate')), 'wasm-blocked');
  assert.equal(loadErrorCode(named('CompileError', 'invalid simd opcode')), 'wasm-unsupported');
  assert.equal(loadErrorCode(new RangeError('out of memory')), 'engine-failed');
  assert.equal(loadErrorCode(undefined), 'engine-failed');
});

test('the embedded gzip payload decodes to the module bytes, as does the raw one', async () => {
  const gz = { encoding: 'gzip', base64: zlib.gzipSync(wasm).toString('base64') };
  assert.deepEqual(Buffer.from(await decodeEmbedded(gz)), wasm);
  assert.deepEqual(Buffer.from(await decodeEmbedded({ encoding: 'raw', base64: wasm.toString('base64') })), wasm);
});

test('the engine itself never writes to the console, even for bad input', async () => {
  const watch = watchConsole();
  try {
    const lab = await makeLoader(createCore, () => wasm)();
    assert.throws(() => lab.attention([[1, 2, 3]], [[1, 2]], [[1]]), /attention: /);
    assert.throws(() => lab.randomNormal({ shape: [1e9, 1e9] }), /randomNormal/);
  } finally {
    watch.restore();
  }
  assert.deepEqual(watch.calls, []);
});

test("require('attention-lab') and import('attention-lab') resolve to the node entry", async () => {
  const viaRequire = require('attention-lab');
  const viaImport = await import('attention-lab');
  assert.equal(typeof viaRequire.loadAttentionLab, 'function');
  assert.equal(viaImport.loadAttentionLab, viaRequire.loadAttentionLab);
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const entry = pkg.exports['.'];
  assert.equal(entry.browser, './dist/attention-lab.mjs');
  assert.equal(entry.default, './dist/attention-lab.mjs');
  assert.ok(fs.existsSync(path.join(root, entry.browser)), 'the browser entry is built');
  assert.doesNotMatch(fs.readFileSync(path.join(root, entry.browser), 'utf8'), /node:|require\(["'](fs|path|module)["']\)/);
});

test('the node entry loads one bundle built from the current web/src and glue (else: node scripts/build.js wasm)', async () => {
  const esbuild = require('esbuild');
  const { nodeBundleOptions, nodeBundleFile } = require('../../scripts/node-bundle.js');
  const [fresh] = esbuild.buildSync(nodeBundleOptions({ write: false })).outputFiles;
  assert.ok(fresh.text === fs.readFileSync(nodeBundleFile, 'utf8'), `${path.relative(root, nodeBundleFile)} is stale: run "node scripts/build.js wasm"`);
  const script = `const before = new Set(Object.keys(require.cache));
    require(${JSON.stringify(path.join(root, 'index.js'))});
    console.log(JSON.stringify(Object.keys(require.cache).filter((f) => !before.has(f))));`;
  const loaded = JSON.parse(require('child_process').execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
  assert.deepEqual(loaded.map((f) => path.relative(root, f)).sort(), ['build/wasm/attention_lab_node.js', 'index.js']);
});

test('with the bytes in hand (node) the engine is ready before the event loop turns', async () => {
  let turned = false;
  setImmediate(() => { turned = true; });
  const lab = await makeLoader(createCore, () => wasm)();
  assert.equal(turned, false, 'a setImmediate callback ran before the engine was ready');
  assert.equal(lab.attention([[1, 0]], [[1, 0], [0, 1]], [[1], [3]]).output.data.length, 1);
});
