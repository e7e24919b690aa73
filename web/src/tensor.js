'use strict';
// Tensors on the JavaScript side: turning what users pass (nested arrays, { shape, data },
// typed arrays, numbers) into { shape, data } for the engine, and wrapping what it returns.
// No maths here: shapes and copying only.

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

function numberAt(value, where, allowBoolean) {
  if (typeof value === 'number') return value;
  if (allowBoolean && typeof value === 'boolean') return value ? 1 : 0;
  throw new Error(`${where} is ${describe(value)}; expected a number${allowBoolean ? ' or boolean' : ''}`);
}

function fromNested(value, fn, name, allowBoolean) {
  const shape = [];
  for (let probe = value; Array.isArray(probe); probe = probe[0]) {
    shape.push(probe.length);
    if (probe.length === 0) break;
  }
  const size = shape.reduce((a, b) => a * b, 1);
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
 * Normalises a tensor argument into { shape, data } for the engine.
 * @param value nested arrays, { shape, data }, a typed array or array (1-D), or a number
 * @param fn public function name, for messages
 * @param name argument name, for messages
 * @param allowBoolean accept true/false (masks)
 */
function toInput(value, fn, name, allowBoolean = false) {
  const label = `${fn}: ${name}`;
  if (typeof value === 'number' || (allowBoolean && typeof value === 'boolean')) {
    return { shape: [], data: new Float32Array([numberAt(value, label, allowBoolean)]) };
  }
  if (Array.isArray(value)) return fromNested(value, fn, name, allowBoolean);
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    return { shape: [value.length], data: value instanceof Float32Array ? value : Float32Array.from(value, Number) };
  }
  if (value && typeof value === 'object' && 'shape' in value && 'data' in value) {
    const { shape, data } = value;
    if (!Array.isArray(shape) || !shape.every((e) => Number.isInteger(e) && e >= 0)) {
      throw new Error(`${label}.shape is ${JSON.stringify(shape)}; expected an array of whole numbers`);
    }
    const size = shape.reduce((a, b) => a * b, 1);
    if (!(Array.isArray(data) || (ArrayBuffer.isView(data) && !(data instanceof DataView)))) {
      throw new Error(`${label}.data is ${describe(data)}; expected a Float32Array or an array of numbers`);
    }
    if (data.length !== size) {
      throw new Error(`${label}.data has ${data.length} entries but shape ${JSON.stringify(shape)} needs ${size}`);
    }
    if (data instanceof Float32Array) return { shape, data };
    const out = new Float32Array(size);
    for (let i = 0; i < size; i++) out[i] = numberAt(data[i], `${label}.data[${i}]`, allowBoolean);
    return { shape, data: out };
  }
  throw new Error(`${label} is ${describe(value)}; expected nested arrays of numbers or { shape, data }`);
}

module.exports = { Tensor, fromEngine, toInput, describe };
