'use strict';
// Generated from the API list (web/src/api/signatures.js): every function and method runs its
// example call (tests/node/api-examples.js) with Object.prototype carrying each option name
// the API knows, set to each of a few values a polluting library might leave there. Options
// inherited through a prototype are ignored (README), so every answer must equal the answer
// without pollution, with nothing thrown and nothing leaked.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const { SIGNATURES } = require('../../web/src/api/signatures.js');
const { EXAMPLES, runExample, prepare } = require('./api-examples.js');

// Besides the options: the names of the objects the JS side builds for the engine and reads back.
const INTERNAL = ['shape', 'data', 'size', 'error', 'options', 'stages'];
const VALUES = [1, true, 'none', [[true]], 2 ** 32 + 2, { shape: [1], data: [1] }];

/** Every option and parameter name declared in the list, and the internal names above. */
function optionNames() {
  const names = new Set(INTERNAL);
  const visit = (k, name) => {
    names.add(name);
    if (k.type === 'object') for (const field of k.names) visit(k.fields[field], field);
  };
  for (const sig of Object.values(SIGNATURES)) for (const p of sig.params) visit(p.kind, p.name);
  return [...names].sort();
}

/** Runs every example once: { name: result or 'Error: message' }. */
function runAll(lab, names) {
  const out = {};
  for (const name of names) {
    try {
      out[name] = runExample(lab, name);
    } catch (err) {
      out[name] = `${err.constructor.name}: ${err.message}`;
    }
  }
  return out;
}

test('every API function ignores every option name set on Object.prototype: the same answers, nothing thrown or leaked', async (t) => {
  const lab = await loadAttentionLab();
  prepare(lab);
  const names = optionNames();
  const compared = Object.keys(SIGNATURES).filter((name) => EXAMPLES[name].compare !== false);
  const baseline = runAll(lab, compared);
  for (const [name, result] of Object.entries(baseline)) {
    assert.equal(typeof result === 'string' && result.includes('Error'), false, `${name} fails without pollution: ${result}`);
  }
  runAll(lab, compared);  // any one-off allocation happens before the heap is read
  const before = lab.memory();
  let runs = 0;
  const differences = [];
  for (const option of names) {
    for (const value of VALUES) {
      let got;
      Object.prototype[option] = value;  // eslint-disable-line no-extend-native
      try {
        got = runAll(lab, compared);
      } finally {
        delete Object.prototype[option];
      }
      runs += compared.length;
      for (const name of compared) {
        try {
          assert.deepStrictEqual(got[name], baseline[name]);
        } catch (_) {
          differences.push(`${name} with Object.prototype.${option} = ${JSON.stringify(value)}: ${JSON.stringify(got[name]).slice(0, 160)}`);
        }
      }
    }
  }
  const after = lab.memory();
  t.diagnostic(`${names.length} names x ${VALUES.length} values x ${compared.length} functions = ${runs} polluted calls`);
  assert.deepEqual(differences, []);
  assert.equal(after.heapInUse, before.heapInUse, 'heap in use');
  assert.equal(after.handles, before.handles, 'JS handles');
  assert.ok(names.includes('window') && names.includes('validLens') && names.includes('dv') && names.includes('block'));
});

test('memory(), examples() and reset() work with Object.prototype polluted by every option name', async () => {
  const lab = await loadAttentionLab();
  prepare(lab);
  const names = optionNames();
  for (const option of names) Object.prototype[option] = 1;  // eslint-disable-line no-extend-native
  let memory;
  try {
    lab.reset();
    memory = lab.memory();
    runExample(lab, 'examples');
  } finally {
    for (const option of names) delete Object.prototype[option];
  }
  assert.equal(typeof memory.heapInUse, 'number');
  assert.deepEqual(runExample(lab, 'attention'), runExample(lab, 'attention'));
});
