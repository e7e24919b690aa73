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

test('the node entry is one bundle of the current web/src and glue, with a code cache this node accepts (else: node scripts/build.js wasm)', () => {
  const vm = require('vm');
  const { nodeBundleText, bundleId, nodeBundleFile, codeCacheFile } = require('../../scripts/node-bundle.js');
  const text = fs.readFileSync(nodeBundleFile, 'utf8');
  assert.ok(nodeBundleText() === text, `${path.relative(root, nodeBundleFile)} is stale: run "node scripts/build.js wasm"`);
  const cache = fs.readFileSync(codeCacheFile);
  assert.equal(cache.toString('latin1', 0, 16), bundleId(text), 'the cache was made from this bundle');
  const script = `const vm = require('vm'), fs = require('fs');
    const before = new Set(Object.keys(require.cache));
    require(${JSON.stringify(path.join(root, 'index.js'))});
    const s = new vm.Script(fs.readFileSync(${JSON.stringify(nodeBundleFile)}, 'utf8'), { filename: ${JSON.stringify(nodeBundleFile)}, cachedData: fs.readFileSync(${JSON.stringify(codeCacheFile)}).subarray(16) });
    console.log(JSON.stringify({ loaded: Object.keys(require.cache).filter((f) => !before.has(f)), rejected: s.cachedDataRejected }));`;
  const got = JSON.parse(require('child_process').execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
  assert.deepEqual(got.loaded.map((f) => path.relative(root, f)), ['index.js'], 'no web/src module is loaded on its own');
  assert.equal(got.rejected, false, 'V8 takes the code cache');
});

test('without its code cache, or with one V8 rejects or another build made, the node entry compiles and works', () => {
  const { nodeBundleFile, codeCacheFile } = require('../../scripts/node-bundle.js');
  const good = fs.readFileSync(codeCacheFile);
  const caches = {
    none: null,
    'another node': null,
    'rejected by V8': Buffer.concat([good.subarray(0, 16), Buffer.alloc(4096, 7)]),
    'another build': Buffer.concat([Buffer.from('0123456789abcdef'), good.subarray(16)]),
  };
  for (const [what, cache] of Object.entries(caches)) {
    const tmp = fs.mkdtempSync(path.join(require('os').tmpdir(), 'al-cache-'));
    try {
      fs.mkdirSync(path.join(tmp, 'build', 'wasm'), { recursive: true });
      fs.copyFileSync(path.join(root, 'index.js'), path.join(tmp, 'index.js'));
      fs.copyFileSync(nodeBundleFile, path.join(tmp, 'build', 'wasm', path.basename(nodeBundleFile)));
      fs.copyFileSync(path.join(root, 'build', 'wasm', 'attention_lab_core.wasm'), path.join(tmp, 'build', 'wasm', 'attention_lab_core.wasm'));
      if (cache) fs.writeFileSync(path.join(tmp, 'build', 'wasm', path.basename(codeCacheFile)), cache);
      if (what === 'another node') fs.writeFileSync(path.join(tmp, 'build', 'wasm', 'attention_lab_node.1.2.3.4.cache'), good);
      const out = require('child_process').execFileSync(process.execPath, ['-e',
        `require(${JSON.stringify(path.join(tmp, 'index.js'))}).loadAttentionLab().then((lab) => console.log(lab.softmax([0, Math.log(3)]).data.join(',')))`], { encoding: 'utf8' });
      const [a, b] = out.trim().split(',').map(Number);
      assert.ok(Math.abs(a - 0.25) < 1e-6 && Math.abs(b - 0.75) < 1e-6, `${what}: softmax [0.25, 0.75] (${out.trim()})`);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
});

test('with the bytes in hand (node) the engine is ready before the event loop turns', async () => {
  let turned = false;
  setImmediate(() => { turned = true; });
  const lab = await makeLoader(createCore, () => wasm)();
  assert.equal(turned, false, 'a setImmediate callback ran before the engine was ready');
  assert.equal(lab.attention([[1, 0]], [[1, 0], [0, 1]], [[1], [3]]).output.data.length, 1);
});

test('starting the engine leaves the optimising compiler idle: no glue function gets hot enough for TurboFan', () => {
  // V8 optimises a function that a start-up runs hot on a worker thread, CPU the start-up needs
  // on a small machine (embind's readLatin1String did: cpp/bindings/library_embind_names.js).
  const out = require('child_process').execFileSync(process.execPath, ['--trace-opt', '-e',
    `require(${JSON.stringify(path.join(root, 'index.js'))}).loadAttentionLab().then(() => console.log('ready'))`], { encoding: 'utf8' });
  assert.match(out, /^ready$/m);
  const marked = out.split('\n').filter((line) => line.includes('for optimization'));
  assert.deepEqual(marked, [], 'functions V8 marked for optimisation during the start-up');
});

test('starting the engine builds no TextDecoder (the glue decodes its short strings itself)', () => {
  const out = require('child_process').execFileSync(process.execPath, ['-e',
    `const T = globalThis.TextDecoder; let built = 0;
    globalThis.TextDecoder = class extends T { constructor(...args) { super(...args); built++; } };
    require(${JSON.stringify(path.join(root, 'index.js'))}).loadAttentionLab().then((lab) => {
      console.log(JSON.stringify({ built, message: (() => { try { lab.softmax([1], { axis: 3 }); } catch (e) { return e.message; } })() }));
    });`], { encoding: 'utf8' });
  const got = JSON.parse(out);
  assert.equal(got.built, 0, 'TextDecoders built while the engine started');
  assert.match(got.message, /^softmax: /, 'an engine message still reaches JavaScript whole');
});
