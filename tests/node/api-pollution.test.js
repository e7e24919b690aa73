'use strict';
// Generated from the API list (web/src/api/signatures.js): every function and method runs its
// example call (tests/node/api-examples.js) with Object.prototype carrying each option name
// the API knows, set to each of a few values a polluting library might leave there. Options
// inherited through a prototype are ignored (README), so every answer must equal the answer
// without pollution, with nothing thrown and nothing leaked. Then every array and object in
// every call (the examples and api-examples.js MORE) is given as a two-faced value (a getter
// or proxy answering one thing on the first read and another after), and as an array with a
// hole while Object.prototype has that index: each input is read once, own entries only.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadAttentionLab } = require('./lab.js');
const { SIGNATURES } = require('../../web/src/api/signatures.js');
const { EXAMPLES, MORE, runExample, prepare } = require('./api-examples.js');

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

// ---- every array and object of every call: read once, own entries only ----

const isPlain = (v) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;

/** Every call to vary: each function's example, and the further calls of MORE. */
function calls() {
  return [...Object.keys(SIGNATURES).map((name) => ({ name, ex: EXAMPLES[name] })), ...MORE.map((ex) => ({ name: ex.name, ex }))];
}

/** `v` with every typed array a plain array: a getter, proxy or hole can sit only in those. */
function plainArrays(v) {
  if (ArrayBuffer.isView(v)) return Array.from(v);
  if (Array.isArray(v)) return v.map(plainArrays);
  if (!isPlain(v)) return v;
  const out = {};
  for (const key of Object.keys(v)) out[key] = plainArrays(v[key]);
  return out;
}

/** The path (keys from the argument list) of every array and plain object inside `args`. */
function places(v, path = [], out = []) {
  if (!Array.isArray(v) && !isPlain(v)) return out;
  if (path.length) out.push({ path, array: Array.isArray(v) });
  for (const key of Object.keys(v)) places(v[key], [...path, key], out);
  return out;
}

const at = (v, path) => path.reduce((x, key) => x[key], v);
function replaced(args, path, make) {
  const parent = at(args, path.slice(0, -1)), key = path[path.length - 1];
  parent[key] = make(parent[key]);
  return args;
}
const where = (name, path) => `${name}(${path.map((k) => `[${k}]`).join('')})`;

/** What a second read answers instead of x: ten entries for an array (the issue's ten tokens). */
function other(x, key) {
  if (key === 'length') return x + 9;
  if (typeof x === 'number') return x + 1;
  if (typeof x === 'string') return `${x}zzzz`;
  if (Array.isArray(x)) return Array.from({ length: 10 }, () => (x.length ? x[0] : 1));
  return x && typeof x === 'object' ? {} : 1;
}

/**
 * `value` two-faced: each index (and an array's length, through a proxy) or property answers
 * as given on its first read and otherwise on every later one.
 */
function twoFaced(value, proxy) {
  const reads = new Map();
  const answer = (key, first) => {
    const n = (reads.get(key) || 0) + 1;
    reads.set(key, n);
    return n === 1 ? first : other(first, key);
  };
  if (proxy) {
    return new Proxy(value, {
      get: (t, key, r) => (typeof key === 'string' && (key === 'length' || /^\d+$/.test(key)) ? answer(key, t[key]) : Reflect.get(t, key, r)),
    });
  }
  const out = Array.isArray(value) ? new Array(value.length) : {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, { get: () => answer(key, value[key]), enumerable: true, configurable: true });
  }
  return out;
}

function attempt(lab, name, args, ex) {
  try {
    return runExample(lab, name, args, ex);
  } catch (err) {
    return `${err.constructor.name}: ${err.message}`;
  }
}

test('every array and object of every call is read once: two-faced getters and proxies give the plain answer, nothing leaked', async (t) => {
  const lab = await loadAttentionLab();
  prepare(lab);
  for (const { name, ex } of calls()) attempt(lab, name, plainArrays(ex.args()), ex);  // one-off allocations first
  const before = lab.memory();
  const differences = [];
  let runs = 0;
  for (const { name, ex } of calls()) {
    const baseline = attempt(lab, name, plainArrays(ex.args()), ex);
    assert.equal(typeof baseline === 'string' && /Error/.test(baseline), false, `${name} fails with plain arrays: ${baseline}`);
    for (const place of places(plainArrays(ex.args()))) {
      for (const proxy of place.array ? [false, true] : [false]) {
        const got = attempt(lab, name, replaced(plainArrays(ex.args()), place.path, (v) => twoFaced(v, proxy)), ex);
        runs++;
        try {
          assert.deepStrictEqual(got, baseline);
        } catch (_) {
          differences.push(`${where(name, place.path)} ${proxy ? 'proxy' : 'getters'}: ${JSON.stringify(got).slice(0, 200)}`);
        }
      }
    }
  }
  const after = lab.memory();
  t.diagnostic(`${runs} calls with a two-faced array or object`);
  assert.deepEqual(differences, []);
  assert.ok(runs > 150, `only ${runs} calls`);
  assert.equal(after.heapInUse, before.heapInUse, 'heap in use');
  assert.equal(after.handles, before.handles, 'JS handles');
});

test('a hole in any array of any call is an Error naming its index, even with Object.prototype holding that index', async (t) => {
  const lab = await loadAttentionLab();
  prepare(lab);
  const wrong = [];
  let runs = 0;
  for (const { name, ex } of calls()) {
    const fn = SIGNATURES[name].name;
    for (const place of places(plainArrays(ex.args())).filter((p) => p.array)) {
      const given = at(plainArrays(ex.args()), place.path);
      if (given.length === 0) continue;
      for (const last of [0, given.length - 1]) {
        const args = replaced(plainArrays(ex.args()), place.path, (v) => {
          const holed = v.slice();
          delete holed[last];
          return holed;
        });
        Object.prototype[last] = given[last];  // eslint-disable-line no-extend-native
        let got;
        try {
          got = attempt(lab, name, args, ex);
        } finally {
          delete Object.prototype[last];
        }
        runs++;
        if (typeof got !== 'string' || !got.startsWith(`Error: ${fn}: `) || !got.includes(`[${last}] is a hole`)) {
          wrong.push(`${where(name, place.path)} hole at ${last}: ${JSON.stringify(got).slice(0, 200)}`);
        }
      }
    }
  }
  t.diagnostic(`${runs} calls with a hole`);
  assert.deepEqual(wrong, []);
  assert.ok(runs > 60, `only ${runs} calls`);
});

test('Object.prototype.AttentionLabModels cannot stand in for the registry: the shipped model and registered names are read as own properties', async () => {
  const lab = await loadAttentionLab();
  prepare(lab);
  const tiny = MORE.find((ex) => ex.name === 'loadModel').args()[0];
  const shipped = runExample(lab, 'loadModel');
  const fake = { 'wordnet-small': { ...tiny, name: 'wordnet-small' }, tiny };
  Object.prototype.AttentionLabModels = fake;  // eslint-disable-line no-extend-native
  try {
    assert.deepEqual(runExample(lab, 'loadModel'), shipped);
    assert.throws(() => lab.loadModel('tiny'), { message: /^loadModel: no model named 'tiny' is loaded/ });
    // a registry of the page's own, with a polluted prototype under it: only its own entries count
    globalThis.AttentionLabModels = Object.create(fake);
    assert.deepEqual(runExample(lab, 'loadModel'), shipped);
    assert.throws(() => lab.loadModel('tiny'), { message: /^loadModel: no model named 'tiny' is loaded/ });
  } finally {
    delete Object.prototype.AttentionLabModels;
    delete globalThis.AttentionLabModels;
  }
});

test('no message echoes more than a few dozen characters of a 10 MB string: every parameter, option and option name of every function', async (t) => {
  const lab = await loadAttentionLab();
  prepare(lab);
  const long = 'z'.repeat(1e7);
  const tooLong = [];
  let runs = 0;
  const check = (name, what, args) => {
    runs++;
    const got = attempt(lab, name, args, EXAMPLES[name]);
    if (typeof got === 'string' && got.length > 400) tooLong.push(`${name} ${what}: ${got.length} characters: ${got.slice(0, 120)}`);
  };
  for (const [name, sig] of Object.entries(SIGNATURES)) {
    sig.params.forEach((p, i) => {
      // the text a model reads is read, not echoed (a 10 MB text is 10 MB of tokens)
      if (!(name.startsWith('Model.') && p.name === 'text')) check(name, p.name, replaced(EXAMPLES[name].args(), [i], () => long));
      if (p.kind.type !== 'object') return;
      check(name, `an option named with 10 MB in ${p.name}`, replaced(EXAMPLES[name].args(), [i], (o) => ({ ...o, [long]: 1 })));
      for (const field of p.kind.names) check(name, `${p.name}.${field}`, replaced(EXAMPLES[name].args(), [i], (o) => ({ ...o, [field]: long })));
    });
  }
  t.diagnostic(`${runs} calls with a 10 MB string`);
  assert.deepEqual(tooLong, []);
  assert.ok(runs > 150, `only ${runs} calls`);
});
