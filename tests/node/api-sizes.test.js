'use strict';
// Generated from the API list (web/src/api/signatures.js): every size argument of every function
// and method, every extent of every tensor argument and every entry of every list of sizes, is
// given 2^31, 2^32 - 1, 2^32, 2^32 + 1 and 2^53 in turn, in the wasm engine. Past the largest
// size the engine indexes (2^32 - 1), the call must be refused by name before anything narrows
// the number; below it, the call must either give a result whose every tensor holds exactly
// the numbers its shape says (never a slice of engine memory) or an Error naming the function.
// Either way nothing leaks and the engine keeps working. A function added to the list is
// covered once tests/node/api-examples.js has an example call for it.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const { SIGNATURES } = require('../../web/src/api/signatures.js');
const { EXAMPLES, runExample, prepare } = require('./api-examples.js');

const VALUES = [2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 53];
const SIZE_KINDS = ['size', 'count', 'int'];

/**
 * Every place in an example's arguments that holds a size: { path, name, kind }, path being
 * keys from the argument list down, name the argument as messages write it.
 */
function sizePlaces(sig, args) {
  const places = [];
  const visit = (k, value, path, name) => {
    if (SIZE_KINDS.includes(k.type)) places.push({ path, name, kind: k.type });
    else if (k.type === 'sizes') (value || [1]).forEach((_, j) => places.push({ path: [...path, j], name: `${name}[${j}]`, kind: 'size' }));
    else if (k.type === 'tensor' || k.type === 'mask') {
      if (value && value.shape) value.shape.forEach((_, d) => places.push({ path: [...path, 'shape', d], name: `${name}.shape[${d}]`, kind: 'size' }));
    } else if (k.type === 'object') {
      for (const field of k.names) visit(k.fields[field], value ? value[field] : undefined, [...path, field], k.nested ? `${name}.${field}` : field);
    }
  };
  sig.params.forEach((p, i) => visit(p.kind, args[i], [i], p.name));
  return places;
}

/** A copy of the example's arguments with `value` at `path` (objects and arrays made on the way). */
function withValue(args, path, value) {
  const copy = (x) => (ArrayBuffer.isView(x) ? x.slice() : Array.isArray(x) ? x.map(copy) : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, copy(v)])) : x);
  const out = copy(args);
  let node = out;
  for (let i = 0; i < path.length - 1; i++) {
    if (node[path[i]] === undefined) node[path[i]] = typeof path[i + 1] === 'number' ? [] : {};
    node = node[path[i]];
  }
  node[path[path.length - 1]] = value;
  return out;
}

/** Every tensor-like { shape, data } in a result holds exactly product(shape) numbers, within the limit. */
function checkTensors(value, where, maxElements) {
  if (!value || typeof value !== 'object') return;
  if (Array.isArray(value.shape) && Array.isArray(value.data)) {
    const size = value.shape.reduce((a, b) => a * b, 1);
    assert.equal(value.data.length, size, `${where}: a [${value.shape}] tensor holds ${value.data.length} numbers`);
    assert.ok(size <= maxElements, `${where}: a [${value.shape}] tensor is past the limit`);
  }
  for (const key of Object.keys(value)) checkTensors(value[key], `${where}.${key}`, maxElements);
}

test('every API function in the list has an example call to vary, and every function of the lab is in the list', async () => {
  const lab = await loadAttentionLab();
  prepare(lab);
  const listed = Object.keys(SIGNATURES);
  assert.deepEqual(listed.filter((name) => !EXAMPLES[name]), [], 'functions without an example in tests/node/api-examples.js');
  const functions = Object.keys(lab).filter((key) => typeof lab[key] === 'function' && key !== 'Tensor');
  assert.deepEqual(functions.filter((name) => !listed.includes(name)), [], 'lab functions missing from web/src/api/signatures.js');
  assert.deepEqual(Object.keys(EXAMPLES).filter((name) => !listed.includes(name)), [], 'examples of functions not in the list');
});

test('2^31, 2^32 - 1, 2^32, 2^32 + 1 and 2^53 in every size argument of every API function: refused by name or answered exactly', async (t) => {
  const lab = await loadAttentionLab();
  prepare(lab);
  const maxIndex = 2 ** 32 - 1;
  const maxElements = 2 ** 28;
  let tried = 0, refusedHere = 0;
  for (const [name, sig] of Object.entries(SIGNATURES)) {
    const places = sizePlaces(sig, EXAMPLES[name].args());
    await t.test(name, () => {
      for (const place of places) {
        for (const value of VALUES) {
          const args = withValue(EXAMPLES[name].args(), place.path, value);
          const what = `${name}: ${place.name} = ${value}`;
          tried++;
          const attempt = () => runExample(lab, name, args);
          let result, error;
          try {
            result = attempt();
          } catch (err) {
            error = err;
          }
          if (value > maxIndex && place.kind === 'size') {
            refusedHere++;
            assert.ok(error, `${what}: accepted`);
            assert.equal(error.message, `${sig.name}: ${place.name} = ${value} is more than this engine can index; expected at most ${maxIndex}`);
          }
          if (error) {
            assert.equal(error.constructor, Error, `${what}: threw ${error}`);
            assert.ok(error.message.startsWith(`${sig.name}: `) || error.message.startsWith('KVCache.'), `${what}: ${error.message}`);
            // Refused again, the same way, with nothing left behind.
            const before = lab.memory();
            assert.throws(attempt, { message: error.message });
            const after = lab.memory();
            assert.equal(after.heapInUse, before.heapInUse, `${what}: heap in use`);
            assert.equal(after.handles, before.handles, `${what}: JS handles`);
          } else {
            checkTensors(result, what, maxElements);
          }
        }
      }
      const ok = lab.attention([[1, 0]], [[1, 0], [0, 1]], [[10, 0], [0, 6]]);
      assert.ok(Math.abs(ok.output.get(0, 0) - 6.6976) < 5e-4, 'the engine still answers');
    });
  }
  t.diagnostic(`${tried} calls; ${refusedHere} with a size past 2^32 - 1, each refused by name before the engine`);
  assert.ok(tried > 400);
});
