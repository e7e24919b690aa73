'use strict';
// Tensors on the JavaScript side: turning what users pass (nested arrays, { shape, data },
// typed arrays, numbers) into { shape, data: Float32Array } for the engine, and wrapping
// what it returns. No maths here.
//
// Who checks what: this file checks structure and types (nesting, cycles, depth, the element
// cap before allocating, a number where a number belongs, own properties only) and the two
// narrowings it makes itself: an extent past the engine's index limit, and a number that
// float32 would store as 0 or an infinity. Whether a shape's entries are whole numbers in
// range and whether the data fits the shape is the engine's rule (cpp/bindings/convert.cpp
// make_input), so it is worded the same everywhere.

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

// The most of a given string any message echoes: a 10 MB string is named by its start and length.
const ECHO = 40;

/**
 * A value as a message shows it: a string or number as JSON (a long string cut to its first
 * ECHO characters and its length), anything else described. Every echo of a given value goes
 * through here.
 */
function quote(value) {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, ECHO)) + more(value);
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : describe(value);
}

/** A given name as a message shows it between quotes: at most ECHO characters of it. */
function clip(text) {
  return text.slice(0, ECHO) + more(text);
}

function more(text) {
  return text.length > ECHO ? `... (${text.length} characters)` : '';
}

/** Deepest nesting accepted: far past any real tensor, and what stops a cyclic array. */
const MAX_RANK = 32;

// Inputs of more numbers than this are checked in full before their Float32Array is made, so
// that a sparse or wrong array of 2^28 entries is refused without first taking 1 GiB.
const CHECK_FIRST = 1 << 16;

// A typed array's own length and buffer, read by the intrinsic getters: an instance's own
// `length` property (or a subclass's) can neither run code here nor lie about its size.
const TYPED = Object.getPrototypeOf(Int8Array.prototype);
const typedLength = Object.getOwnPropertyDescriptor(TYPED, 'length').get;
const typedBuffer = Object.getOwnPropertyDescriptor(TYPED, 'buffer').get;
const hasOwn = Object.prototype.hasOwnProperty;
// The constructor as it was when this file loaded: a page that replaces the global later
// changes nothing here.
const F32 = Float32Array;
const getProto = Object.getPrototypeOf;
const ownKeys = Reflect.ownKeys;

/**
 * A typed array's length, read once by the intrinsic getter; a view of a detached buffer (one
 * transferred to a worker) is an Error naming it rather than an empty tensor or a TypeError.
 */
function viewLength(view, fn, name) {
  const length = typedLength.call(view);
  if (length === 0 && view.byteOffset === 0) {
    try {
      new Uint8Array(typedBuffer.call(view), 0, 0);  // eslint-disable-line no-new
    } catch (_) {
      throw new Error(`${fn}: ${name} is a ${view.constructor.name} whose ArrayBuffer is detached (transferred); expected one that holds its numbers`);
    }
  }
  return length;
}

// Whether a hole of an array with this prototype would read an inherited entry
// (Object.prototype[0] = 3): some object on the chain has an index key. Own keys list
// integer keys first, so the first key says it.
function inheritsIndices(proto) {
  for (let p = proto; p !== null; p = getProto(p)) {
    const keys = ownKeys(p);
    if (keys.length > 0 && typeof keys[0] === 'string' && /^\d+$/.test(keys[0])) return true;
  }
  return false;
}

// Whether each index of an array of n entries with this prototype must be checked as its own:
// short arrays always (cheaper than looking at the prototypes), long ones only when a prototype
// has an index key (looked at once per array, or not again for a prototype `clean` found so).
function checkEach(proto, n, clean) {
  return n < 64 || (proto !== clean && inheritsIndices(proto));
}

function holeError(fn, where) {
  return new Error(`${fn}: ${where} is a hole (no entry); expected a value at every index`);
}

/**
 * An array's entries as a plain array, read once: its length once, each index once, a hole
 * an Error naming its index (never a value inherited through the prototype). What every
 * reader of an array argument copies before it checks, sizes or sends anything, so a getter
 * or proxy that answers differently on a second read is never asked twice.
 * @param max the most entries accepted (checked before anything is copied); `what` names them
 */
function entries(v, fn, name, max, what = 'entries') {
  const n = v.length;
  if (!(n <= max)) throw new Error(`${fn}: ${name} has ${n} ${what}; expected at most ${max}`);
  const dirty = checkEach(getProto(v), n);
  const out = [];  // grows with what is read: a sparse array of 2^28 is refused at its first hole
  for (let i = 0; i < n; i++) {
    if (dirty && !hasOwn.call(v, i)) throw holeError(fn, `${name}[${i}]`);
    const x = v[i];
    if (x === undefined && !hasOwn.call(v, i)) throw holeError(fn, `${name}[${i}]`);
    out.push(x);
  }
  return out;
}

/**
 * A size argument's JavaScript-side check (one rule for every size of every function, and for
 * tensor extents): past ctx.maxIndex, the largest size the engine indexes (2^32 - 1 in wasm32),
 * it is an Error before anything narrows it. Types and the engine's own ranges are checked
 * elsewhere (the kinds in options.js; the engine's size_arg).
 */
function checkSize(value, fn, name, ctx) {
  if (value > ctx.maxIndex) {
    throw new Error(`${fn}: ${name} = ${value} is more than this engine can index; expected at most ${ctx.maxIndex}`);
  }
  return value;
}

function numberAt(value, where, allowBoolean) {
  if (typeof value === 'number') return value;
  if (allowBoolean && typeof value === 'boolean') return value ? 1 : 0;
  throw new Error(`${where} is ${describe(value)}; expected a number${allowBoolean ? ' or boolean' : ''}`);
}

/** True when float32 would store x as 0 or an infinity although x is neither (f = Math.fround(x)). */
function lost(x, f) {
  return f !== x && ((f === 0 && x === x) || ((f === Infinity || f === -Infinity) && x - x === 0));
}

// Converting to float32 is a narrowing: a number it would turn into 0 or an infinity is an
// Error naming it, as the engine names a scale float32 cannot hold.
function lostError(x, where) {
  return new Error(`${where} = ${x} is outside float32; expected 0 or a magnitude from about 1.4e-45 to 3.4e38`);
}

/** A number of a tensor as float32 would hold it, checked for narrowing (see lost()). */
function float32At(value, where, allowBoolean) {
  const x = numberAt(value, where, allowBoolean);
  const f = Math.fround(x);
  if (lost(x, f)) throw lostError(x, where);
  return f;
}

function isNumericView(value) {
  return ArrayBuffer.isView(value) && !(value instanceof DataView) &&
    !(value instanceof BigInt64Array) && !(value instanceof BigUint64Array);
}

/** A Float32Array copy of typed array `source`, refusing numbers float32 would lose. */
function float32Copy(source, length, fn, where) {
  const out = new F32(length);
  for (let i = 0; i < length; i++) {
    const x = source[i];
    out[i] = x;
    if (lost(x, out[i])) throw lostError(x, `${fn}: ${where}[${i}]`);
  }
  return out;
}

function fromNested(value, fn, name, allowBoolean, maxElements) {
  // One walk, each entry read once: the shape is fixed by the first entry on each level as the
  // walk first reaches it (the first number completes it), and every later node must match.
  // It stops at MAX_RANK levels, so a cyclic or absurdly deep array ends with an Error.
  const shape = [], at = [], chain = [];
  let rank = -1, size = 0, data = null, next = 0, clean = null;
  // name[i][j]... down to `axis`; `first`: with its last index 0 (the entry that set the shape)
  const path = (axis, first) => `${name}${at.slice(0, axis).map((i, k) => `[${first && k === axis - 1 ? 0 : i}]`).join('')}`;
  const visit = (node, axis) => {
    if (axis !== rank && !Array.isArray(node)) {
      if (rank >= 0) throw new Error(`${fn}: ${path(axis)} is ${describe(node)}; expected an array of ${shape[axis]} entries like ${path(axis, true)}`);
      rank = axis;
      size = shape.reduce((a, b) => a * b, 1);
      if (size > maxElements) throw new Error(`${fn}: ${name} has shape [${shape.join(', ')}], ${size} numbers; expected at most ${maxElements}`);
      // past CHECK_FIRST the buffer grows with the numbers read, so that a sparse or wrong
      // array of 2^28 entries is refused without first taking 1 GiB
      data = new F32(Math.min(size, CHECK_FIRST));
    }
    if (axis === rank) {
      let f = typeof node === 'number' ? Math.fround(node) : NaN;
      if (f !== f || lost(node, f)) f = float32At(node, `${fn}: ${path(axis)}`, allowBoolean);
      if (next === data.length) {
        const grown = new F32(Math.min(size, 2 * next));
        grown.set(data);
        data = grown;
      }
      data[next++] = f;
      return;
    }
    const n = node.length;
    if (axis === shape.length) {
      const again = chain.indexOf(node);
      if (again >= 0) throw new Error(`${fn}: ${name} contains itself: ${name}${'[0]'.repeat(axis)} is ${name}${'[0]'.repeat(again)}; expected nested arrays of numbers`);
      if (axis === MAX_RANK) throw new Error(`${fn}: ${name} is nested more than ${MAX_RANK} levels deep; expected a tensor of rank <= ${MAX_RANK}`);
      chain.push(node);
      shape.push(n);
      if (n === 0) rank = axis + 1;  // an empty level: no numbers, the shape ends here
    } else if (n !== shape[axis]) {
      throw new Error(`${fn}: ${name} is ragged: ${path(axis)} has ${n} entries but ${path(axis, true)} has ${shape[axis]}`);
    }
    const proto = getProto(node);
    const dirty = checkEach(proto, n, clean);
    if (!dirty && n >= 64) clean = proto;
    for (let i = 0; i < n; i++) {
      at[axis] = i;
      const child = node[i];
      if ((dirty || child === undefined) && !hasOwn.call(node, i)) throw holeError(fn, path(axis + 1));
      visit(child, axis + 1);
    }
  };
  visit(value, 0);
  return { shape, data: data === null ? new F32(0) : data.length === size ? data : data.slice(0, size) };
}

/** A Float32Array of the numbers in array `data`, read once (entries()), each checked. */
function fromList(data, fn, where, allowBoolean, maxElements) {
  const values = entries(data, fn, where, maxElements);
  const out = new F32(values.length);
  for (let i = 0; i < values.length; i++) out[i] = float32At(values[i], `${fn}: ${where}[${i}]`, allowBoolean);
  return out;
}

/**
 * Normalises a tensor argument into what the engine reads: an Input { shape, data:
 * Float32Array, size } that this file built (no Object.prototype in its chain), `size` being
 * data's true length.
 * Checks JavaScript types and structure, and the narrowings done here (each extent against
 * the engine's index limit, each number into float32); the engine checks the shape's values
 * and the data length against it.
 * @param value nested arrays, { shape, data } (own properties), a typed array or array (1-D), or a number
 * @param fn public function name, for messages
 * @param name argument name, for messages
 * @param ctx { maxElements, maxIndex, engineBuffer() }: the engine's limits, and its memory, so
 *   that a view into it (a workspace's stage) is copied before any call can grow and detach it
 * @param allowBoolean accept true/false (masks)
 */
function toInput(value, fn, name, ctx, allowBoolean = false) {
  const t = normalise(value, fn, name, ctx, allowBoolean);
  const data = typedBuffer.call(t.data) === ctx.engineBuffer() ? t.data.slice() : t.data;
  return new Input(t.shape, data, typedLength.call(data));
}

/** A tensor as the engine reads it; no Object.prototype in its chain (see options.js Fields). */
function Input(shape, data, size) {
  this.shape = shape;
  this.data = data;
  this.size = size;
}
Input.prototype = Object.create(null);

function normalise(value, fn, name, ctx, allowBoolean) {
  const maxElements = ctx.maxElements;
  if (typeof value === 'number' || (allowBoolean && typeof value === 'boolean')) {
    return { shape: [], data: new F32([float32At(value, `${fn}: ${name}`, allowBoolean)]) };
  }
  if (Array.isArray(value)) return fromNested(value, fn, name, allowBoolean, maxElements);
  if (isNumericView(value)) {
    const length = viewLength(value, fn, name);
    if (length > maxElements) throw new Error(`${fn}: ${name} has ${length} entries; expected at most ${maxElements}`);
    return { shape: [length], data: value instanceof F32 ? value : float32Copy(value, length, fn, name) };
  }
  if (value && typeof value === 'object' && hasOwn.call(value, 'shape') && hasOwn.call(value, 'data')) {
    const shape = value.shape, data = value.data;
    // Messages are built only on the error paths: this runs on every call of lab.attention.
    if (!Array.isArray(shape)) throw new Error(`${fn}: ${name}.shape is ${describe(shape)}; expected an array of whole numbers`);
    const copy = entries(shape, fn, `${name}.shape`, MAX_RANK);
    for (let i = 0; i < copy.length; i++) {
      if (typeof copy[i] !== 'number') throw new Error(`${fn}: ${name}.shape[${i}] is ${describe(copy[i])}; expected a whole number`);
      if (copy[i] > ctx.maxIndex) checkSize(copy[i], fn, `${name}.shape[${i}]`, ctx);
    }
    if (data instanceof F32) {
      const length = viewLength(data, fn, `${name}.data`);
      if (length > maxElements) throw new Error(`${fn}: ${name}.data has ${length} entries; expected at most ${maxElements}`);
      return { shape: copy, data };
    }
    if (!(Array.isArray(data) || isNumericView(data))) {
      throw new Error(`${fn}: ${name}.data is ${describe(data)}; expected a Float32Array or an array of numbers`);
    }
    if (Array.isArray(data)) return { shape: copy, data: fromList(data, fn, `${name}.data`, allowBoolean, maxElements) };
    const length = viewLength(data, fn, `${name}.data`);
    if (length > maxElements) throw new Error(`${fn}: ${name}.data has ${length} entries; expected at most ${maxElements}`);
    return { shape: copy, data: float32Copy(data, length, fn, `${name}.data`) };
  }
  throw new Error(`${fn}: ${name} is ${describe(value)}; expected nested arrays of numbers or { shape, data }`);
}

module.exports = { Tensor, fromEngine, toInput, Input, describe, quote, clip, checkSize, entries, viewLength, MAX_RANK };
