'use strict';
// The engine's life: lab.reset() gives back the memory a large call grew (wasm memory only
// grows), and a JavaScript exception that crosses the engine (the stack running out inside a
// caller's deep recursion) restarts it rather than leaving what its frames held allocated.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { spawnSync } = require('child_process');
const { loadAttentionLab } = require('./lab.js');

const MiB = 2 ** 20;
const k = [[1, 0], [0, 1], [1, 1]];
const v = [[1, 2], [3, 4], [5, 6]];

test('after a large call, lab.reset() brings the engine back to its starting 16 MiB and it answers as before', async (t) => {
  const lab = await loadAttentionLab();
  lab.reset();
  const start = lab.memory();
  const want = lab.attention(k, k, v, { causal: true });
  const n = 3000;  // four n x n stages: 144 MB
  const big = { shape: [n, 2], data: new Float32Array(2 * n).fill(0.5) };
  lab.attention(big, big, big, { stages: ['output'] });
  const grown = lab.memory();
  lab.reset();
  const after = lab.memory();
  t.diagnostic(`wasm memory: ${start.heapSize / MiB} MiB at the start, ${grown.heapSize / MiB} MiB after n = ${n}, ${after.heapSize / MiB} MiB after reset()`);
  assert.equal(start.heapSize, 16 * MiB);
  assert.ok(grown.heapSize > 128 * MiB);
  assert.equal(after.heapSize, start.heapSize);
  assert.equal(after.heapInUse, start.heapInUse);
  assert.equal(after.handles, 0);
  assert.deepEqual(lab.attention(k, k, v, { causal: true }).weights.toArray(), want.weights.toArray());
});

test('lab.reset() leaves objects made before it working on the engine they were made on', async () => {
  const lab = await loadAttentionLab();
  const cache = lab.createKVCache({ heads: 1, dHead: 2, maxLength: 4 });
  cache.append([[1, 0]], [[1, 2]]);
  const ws = lab.createWorkspace({ m: 1, n: 1, dk: 1, dv: 1 });
  lab.reset();
  cache.append([[0, 1]], [[3, 4]]);
  assert.equal(cache.attend([[0, 1]]).weights.shape[1], 2);
  ws.Q.set([1]); ws.K.set([1]); ws.V.set([7]);
  assert.deepEqual(Array.from(ws.run().output), [7]);
  cache.dispose();
  ws.dispose();
  assert.equal(lab.memory().handles, 0);
});

test('the memory of the engine before reset() is returned to the system once collected (measured in a child process)', () => {
  const child = spawnSync(process.execPath, ['--expose-gc', path.join(__dirname, 'fixtures', 'reset-child.js')], { encoding: 'utf8', timeout: 120000 });
  assert.equal(child.status, 0, child.stderr);
  const r = JSON.parse(child.stdout);
  // The child reads its resident memory before the large call, after it, and after reset() and a collection.
  assert.ok(r.grownMiB - r.startMiB > 100, `the large call grew the process by ${r.grownMiB - r.startMiB} MiB`);
  assert.ok(r.afterMiB - r.startMiB < 40, `after reset() and a collection the process is ${r.afterMiB - r.startMiB} MiB above its start (${JSON.stringify(r)})`);
});

test('the stack running out inside the engine (a getter recursing through the API) leaves nothing allocated, and every error names its call', async () => {
  const lab = await loadAttentionLab();
  const calls = {
    attention: () => lab.attention(k, k, v, { get causal() { return deeper('attention'); } }),
    mistake: () => lab.mistake('no-scaling', { Q: k, K: k, V: v, get causal() { return deeper('mistake'); } }),
    tiledAttention: () => lab.tiledAttention(k, k, v, { get causal() { return deeper('tiledAttention'); } }),
  };
  const plain = () => {
    lab.attention(k, k, v);
    lab.mistake('no-scaling', { Q: k, K: k, V: v });
    lab.tiledAttention(k, k, v);
  };
  lab.reset();
  plain();
  const fresh = lab.memory();
  const messages = new Set();
  // A getter that calls the API again, recursing until the stack runs out: the innermost calls
  // find almost no stack left, and may run out of it in their own JavaScript or in the engine.
  function deeper(name) {
    try {
      calls[name]();
    } catch (err) {
      if (!(err instanceof RangeError)) messages.add(err.message);  // read once the stack is back
    }
    return false;
  }
  // The outermost calls, made with the stack to spare, answer.
  for (const name of Object.keys(calls)) assert.ok(calls[name](), `${name} answered`);
  for (const m of messages) {
    assert.match(m, /^(attention|mistake|tiledAttention): the JavaScript stack ran out inside the engine \(RangeError: Maximum call stack size exceeded\); expected a call from less deep recursion$/);
  }
  plain();
  const after = lab.memory();
  assert.equal(after.heapInUse, fresh.heapInUse, 'heap in use');
  assert.equal(after.handles, fresh.handles, 'JS handles');
});

test('an exception thrown into the engine stops it: the call names the stop, the lab goes on with a fresh engine, nothing leaks', async () => {
  const lab = await loadAttentionLab();
  const X = { shape: [3, 2], data: Float32Array.from([1, 0, 0, 1, 1, 1]) };
  lab.reset();
  lab.tensor(X);
  const fresh = lab.memory();
  const cache = lab.createKVCache({ heads: 1, dHead: 2, maxLength: 2 });
  // The engine makes its results' Float32Arrays through the global constructor, with C++ frames
  // on the stack: a page that broke it throws into them, as a stack overflow would.
  const saved = globalThis.Float32Array;
  globalThis.Float32Array = function broken() { throw new Error('no Float32Array here'); };
  let error;
  try {
    lab.tensor(X);
  } catch (err) {
    error = err;
  } finally {
    globalThis.Float32Array = saved;
  }
  assert.equal(error.constructor, Error);
  assert.equal(error.message, 'tensor: the engine stopped (Error: no Float32Array here); expected a call it can finish');
  assert.equal(error.cause.message, 'no Float32Array here');
  assert.deepEqual(lab.tensor(X).toArray(), [[1, 0], [0, 1], [1, 1]], 'the next call answers');
  const after = lab.memory();
  assert.equal(after.heapInUse, fresh.heapInUse, 'heap in use: the stopped engine and what it held are gone');
  assert.equal(after.handles, fresh.handles, 'JS handles');
  assert.throws(() => cache.append([[1, 0]], [[1, 0]]), {
    message: 'KVCache.append: the engine this cache was made on stopped; expected a new one',
  });
  cache.dispose();
});
