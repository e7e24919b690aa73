'use strict';
// The weights list of a weights file (Trainer.exportWeights, a shipped model): [{ name,
// shape, dtype, data }] with data the base64 of little-endian numbers, float32 or float16
// (binary16, half the size). Reading checks each entry against the model's own layout and
// gives one Float32Array in layout order; the engine converts halves (halvesToFloats), so
// no number is computed here.

const { describe, quote } = require('./tensor.js');
const { Fields } = require('./options.js');
const { MODEL_SHAPE } = require('./signatures.js');

const WEIGHTS_FORMAT = 'attention-lab-weights';
const WEIGHTS_VERSION = 1;

const DTYPES = { float32: 4, float16: 2 };

function size(shape) {
  return shape.reduce((a, b) => a * b, 1);
}

/**
 * Checks a weights file's format, version and step (as the reader made it; `at` prefixes the
 * names, 'weights.' inside a model file) and returns it.
 */
function checkWeightsFile(fn, w, at = '') {
  if (w.format !== WEIGHTS_FORMAT) {
    throw new Error(`${fn}: ${at}format is ${quote(w.format)}; expected '${WEIGHTS_FORMAT}' (a file from Trainer.exportWeights)`);
  }
  if (w.version !== WEIGHTS_VERSION) {
    throw new Error(`${fn}: ${at}version is ${quote(w.version)}; expected ${WEIGHTS_VERSION} (this version of attention-lab reads version ${WEIGHTS_VERSION} files)`);
  }
  const step = w.step;
  if (step !== undefined && !(Number.isInteger(step) && step >= 0)) {
    throw new Error(`${fn}: ${at}step is ${quote(step)}; expected the number of updates made, a whole number from 0`);
  }
  return w;
}

/** The engine's form of a weights file's model shape (its options as the reader made them). */
function shapeSpec(options) {
  const spec = new Fields();
  for (const key of Object.keys(MODEL_SHAPE)) spec[key] = options[key];
  return spec;
}

/** A typed array's bytes as base64 text. */
function toBase64(values) {
  const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** base64 text as `count` bytes, or an Error naming `key`. */
function fromBase64(fn, key, text, count, what) {
  let bytes;
  try {
    bytes = atob(text);
  } catch (_) {
    throw new Error(`${fn}: ${key} is not base64; expected the base64 text of ${what} numbers`);
  }
  const per = DTYPES[what];
  if (bytes.length !== count * per) throw new Error(`${fn}: ${key} holds ${bytes.length} bytes; expected ${count * per} (${count} ${what} numbers) for its shape`);
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = bytes.charCodeAt(i);
  return out;
}

/**
 * Every weight of `parameters` (a file's list) as one Float32Array in the order of
 * `expected` ([{ name, shape }], the model's layout), each entry's name, shape and dtype
 * checked (their types by the reader, signatures.js PARAMETER). `core` converts float16 entries.
 */
function readParameters(fn, parameters, expected, core) {
  if (parameters.length !== expected.length) {
    throw new Error(`${fn}: the file has ${parameters.length} weight tensors; expected ${expected.length} for its options`);
  }
  const all = new Float32Array(expected.reduce((n, p) => n + size(p.shape), 0));
  let at = 0;
  expected.forEach((want, i) => {
    const p = parameters[i];  // read by the reader (signatures.js, PARAMETER)
    if (p.name !== want.name) throw new Error(`${fn}: parameters[${i}] is ${quote(p.name)}; expected '${want.name}'`);
    const shapeOk = Array.isArray(p.shape) && p.shape.length === want.shape.length && p.shape.every((x, d) => x === want.shape[d]);
    if (!shapeOk) throw new Error(`${fn}: ${want.name} has shape [${p.shape.join(', ')}]; expected [${want.shape.join(', ')}]`);
    const count = size(want.shape);
    const bytes = fromBase64(fn, `${want.name}.data`, p.data, count, p.dtype);
    all.set(p.dtype === 'float32' ? new Float32Array(bytes.buffer) : core.halvesToFloats(new Uint16Array(bytes.buffer)), at);
    at += count;
  });
  return all;
}

/**
 * The weights list of `all` (one Float32Array in the order of `layout`) as `dtype`: float32
 * as they are, float16 rounded by the engine (floatsToHalves).
 */
function writeParameters(layout, all, dtype, core) {
  if (!Object.prototype.hasOwnProperty.call(DTYPES, dtype)) throw new Error(`writeParameters: dtype is ${describe(dtype)}; expected 'float32' or 'float16'`);
  const stored = dtype === 'float32' ? all : core.floatsToHalves(all);
  let at = 0;
  return layout.map(({ name, shape }) => {
    const count = size(shape);
    const data = stored.subarray(at, at + count);
    at += count;
    return { name, shape: shape.slice(), dtype, data: toBase64(data) };
  });
}

module.exports = { readParameters, writeParameters, checkWeightsFile, shapeSpec, toBase64, DTYPES, WEIGHTS_FORMAT, WEIGHTS_VERSION };
