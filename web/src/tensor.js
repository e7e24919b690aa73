'use strict';
// Tensors on the JavaScript side: turning what users pass (nested arrays, { shape, data },
// typed arrays, numbers) into { shape, data: Float32Array } for the engine, and wrapping
// what it returns. No maths here.
//
// Who checks what: this file checks structure and types only (nesting, cycles, depth, the
// element cap before allocating, a number where a number belongs). Whether a shape's
// entries are whole numbers in range and whether the data fits the shape is the engine's
// rule (cpp/bindings/convert.cpp make_input), so it is worded the same everywhere.

/** A result tensor that JavaScript owns: a row-major Float32Array and its shape. */
class Tensor {
  constructor(shape, data) {
    this.shape = shape;
    this.data = data;
  }

  /** The value at a multi-index, e.g. t.get(1, 4). */
  get(...index) {
    if (index.length !== this.shape.length) {
      throw new Error(`Tensor.get: got ${index.length} indices for a tensor of rank ${this.shape.length}`);
    }
    let offset = 0;
    for (let d = 0; d < index.length; d++) {
      const i = index[d];
      if (!Number.isInteger(i) || i < 0 || i >= this.shape[d]) {
        throw new Error(`Tensor.get: index ${i} on axis ${d} is outside [0, ${this.shape[d] - 1}]`);
      }
      offset = offset * this.shape[d] + i;
    }
    return this.data[offset];
  }

  /** Nested plain arrays of numbers (a number for rank 0). */
  toArray() {
    const build = (axis, offset) => {
      if (axis === this.shape.length) return this.data[offset];
      const stride = this.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
      const out = new Array(this.shape[axis]);
      for (let i = 0; i < out.length; i++) out[i] = build(axis + 1, offset + i * stride);
      return out;
    };
    return build(0, 0);
  }
}

/** Wraps the engine's { shape, data } (already a JS-owned copy) as a Tensor. */
function fromEngine(raw) {
  return new Tensor(raw.shape, raw.data);
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  return typeof value === 'object' ? 'an object' : `${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}`;
}

/** Deepest nesting accepted: far past any real tensor, and what stops a cyclic array. */
const MAX_RANK = 32;

function numberAt(value, where, allowBoolean) {
  if (typeof value === 'number') return value;
  if (allowBoolean && typeof value === 'boolean') return value ? 1 : 0;
  throw new Error(`${where} is ${describe(value)}; expected a number${allowBoolean ? ' or boolean' : ''}`);
}

function isNumericView(value) {
  return ArrayBuffer.isView(value) && !(value instanceof DataView) &&
    !(value instanceof BigInt64Array) && !(value instanceof BigUint64Array);
}

function fromNested(value, fn, name, allowBoolean, maxElements) {
  // The shape comes from the first entry on each level; the walk below checks the rest.
  // Both stop at MAX_RANK levels, so a cyclic or absurdly deep array ends with an Error.
  const shape = [];
  const chain = [];
  for (let probe = value; Array.isArray(probe); probe = probe[0]) {
    const again = chain.indexOf(probe);
    if (again >= 0) {
      throw new Error(`${fn}: ${name} contains itself: ${name}${'[0]'.repeat(chain.length)} is ${name}${'[0]'.repeat(again)}; expected nested arrays of numbers`);
    }
    if (chain.length === MAX_RANK) {
      throw new Error(`${fn}: ${name} is nested more than ${MAX_RANK} levels deep; expected a tensor of rank <= ${MAX_RANK}`);
    }
    chain.push(probe);
    shape.push(probe.length);
    if (probe.length === 0) break;
  }
  const size = shape.reduce((a, b) => a * b, 1);
  if (size > maxElements) {
    throw new Error(`${fn}: ${name} has shape [${shape.join(', ')}], ${size} numbers; expected at most ${maxElements}`);
  }
  const data = new Float32Array(size);
  let next = 0;
  const walk = (node, axis, path) => {
    if (axis === shape.length) {
      data[next++] = numberAt(node, `${fn}: ${name}${path}`, allowBoolean);
      return;
    }
    if (!Array.isArray(node)) {
      throw new Error(`${fn}: ${name}${path} is ${describe(node)}; expected an array of ${shape[axis]} entries like ${name}${path.replace(/\[\d+\]$/, '[0]')}`);
    }
    if (node.length !== shape[axis]) {
      const first = `${name}${path.replace(/\[\d+\]$/, '[0]')}`;
      throw new Error(`${fn}: ${name} is ragged: ${name}${path} has ${node.length} entries but ${first} has ${shape[axis]}`);
    }
    for (let i = 0; i < node.length; i++) walk(node[i], axis + 1, `${path}[${i}]`);
  };
  walk(value, 0, '');
  return { shape, data };
}

/**
 * Normalises a tensor argument into { shape, data: Float32Array } for the engine. Checks
 * JavaScript types and structure only; the engine checks the shape's values and the data
 * length against it.
 * @param value nested arrays, { shape, data }, a typed array or array (1-D), or a number
 * @param fn public function name, for messages
 * @param name argument name, for messages
 * @param ctx { maxElements, engineBuffer() }: the engine's size cap, and its memory, so that a
 *   view into it (a workspace's stage) is copied before any call can grow and detach it
 * @param allowBoolean accept true/false (masks)
 */
function toInput(value, fn, name, ctx, allowBoolean = false) {
  const t = normalise(value, fn, name, ctx.maxElements, allowBoolean);
  if (t.data.buffer === ctx.engineBuffer()) t.data = t.data.slice();
  return t;
}

function normalise(value, fn, name, maxElements, allowBoolean) {
  if (typeof value === 'number' || (allowBoolean && typeof value === 'boolean')) {
    return { shape: [], data: new Float32Array([numberAt(value, `${fn}: ${name}`, allowBoolean)]) };
  }
  if (Array.isArray(value)) return fromNested(value, fn, name, allowBoolean, maxElements);
  if (isNumericView(value)) {
    return { shape: [value.length], data: value instanceof Float32Array ? value : Float32Array.from(value) };
  }
  if (value && typeof value === 'object' && 'shape' in value && 'data' in value) {
    const { shape, data } = value;
    // Messages are built only on the error paths: this runs on every call of lab.attention.
    if (!Array.isArray(shape)) throw new Error(`${fn}: ${name}.shape is ${describe(shape)}; expected an array of whole numbers`);
    if (shape.length > MAX_RANK) throw new Error(`${fn}: ${name}.shape has ${shape.length} entries; expected at most ${MAX_RANK}`);
    const copy = shape.slice();
    for (let i = 0; i < copy.length; i++) {
      if (typeof copy[i] !== 'number') throw new Error(`${fn}: ${name}.shape[${i}] is ${describe(copy[i])}; expected a whole number`);
    }
    if (data instanceof Float32Array) {
      if (data.length > maxElements) throw new Error(`${fn}: ${name}.data has ${data.length} entries; expected at most ${maxElements}`);
      return { shape: copy, data };
    }
    if (!(Array.isArray(data) || isNumericView(data))) {
      throw new Error(`${fn}: ${name}.data is ${describe(data)}; expected a Float32Array or an array of numbers`);
    }
    if (data.length > maxElements) throw new Error(`${fn}: ${name}.data has ${data.length} entries; expected at most ${maxElements}`);
    if (ArrayBuffer.isView(data)) return { shape: copy, data: Float32Array.from(data) };
    const out = new Float32Array(data.length);
    for (let i = 0; i < data.length; i++) out[i] = numberAt(data[i], `${fn}: ${name}.data[${i}]`, allowBoolean);
    return { shape: copy, data: out };
  }
  throw new Error(`${fn}: ${name} is ${describe(value)}; expected nested arrays of numbers or { shape, data }`);
}

module.exports = { Tensor, fromEngine, toInput, describe, MAX_RANK };
