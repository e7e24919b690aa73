'use strict';
// The one argument reader of the public API. Every function and method reads its arguments
// here, through the signature it declares in signatures.js, so each rule below holds for all
// of them at once:
//   - own properties only: an option inherited through a prototype (a page whose libraries
//     set Object.prototype.window = 1) is never read, and each value given is read once;
//   - an unknown option name is an Error, and so is a JavaScript type the engine cannot take
//     (a BigInt or a string where a number belongs, an object where a boolean belongs);
//   - a size past what the engine can index (ctx.maxIndex: 2^32 - 1 in wasm32) is an Error
//     here, before anything could narrow it; the engine converts every size again through its
//     size type (cpp/include/attnlab/size.hpp), with the argument's own range;
//   - what goes on to the engine is built here: null-prototype objects and plain arrays of
//     numbers, booleans, strings and Float32Arrays (tensor.js), so nothing the engine reads can
//     be inherited or run a getter.
// Values (ranges, whole numbers, shapes, finiteness) are the engine's rules, worded there.

const { describe, quote, clip, toInput, checkSize, entries, viewLength } = require('./tensor.js');

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * What the reader builds for the engine: objects whose prototype chain ends without
 * Object.prototype, so nothing set on it is ever seen through them. Made with new and every
 * declared field set in one order, so V8 gives all of one kind one shape (fast to read on the
 * per-call path, unlike objects from Object.create(null)).
 */
function Fields() {}
Fields.prototype = Object.create(null);

/** obj[key] if obj has it as its own property, else undefined (never an inherited value). */
function own(obj, key) {
  return obj !== null && obj !== undefined && hasOwn.call(obj, key) ? obj[key] : undefined;
}

/** 2^53: past it a number no longer holds every whole number (the largest count). */
const MAX_COUNT = 2 ** 53;

// ---- kinds: what one argument may be. Each reads a given (not absent) value. ----

/**
 * A kind of argument.
 * @param type its name, which tests/node/api-*.test.js read ('size', 'tensor', ...)
 * @param read (value, fn, name, ctx) -> the value for the engine; throws a named Error
 * @param options.fallback the value when absent (undefined or, if `nullable`, null)
 * @param options.optional absent is allowed and leaves the argument out
 */
function kind(type, read, { fallback, optional = false, nullable = false, ...rest } = {}) {
  return Object.freeze({ type, read, fallback, optional: optional || fallback !== undefined, nullable, ...rest });
}

function typeError(fn, name, value, expected) {
  return new Error(`${fn}: ${name} is ${describe(value)}; expected ${expected}`);
}

function numberValue(value, fn, name, hint = 'a number') {
  if (typeof value !== 'number') throw typeError(fn, name, value, hint);
  return value;
}

// A size the engine indexes with: refused past ctx.maxIndex before anything narrows it.
function sizeValue(value, fn, name, ctx, hint) {
  return checkSize(numberValue(value, fn, name, hint), fn, name, ctx);
}

// A count the engine keeps in 64 bits (bytes, windows, seeds): refused past 2^53.
function countValue(value, fn, name, hint) {
  numberValue(value, fn, name, hint);
  if (value > MAX_COUNT) {
    throw new Error(`${fn}: ${name} = ${value} is past 2^53, more than a number holds exactly; expected at most 2^53`);
  }
  return value;
}

/** A size, extent or index (size_t in the engine). */
const size = (o = {}) => kind('size', (v, fn, name, ctx) => sizeValue(v, fn, name, ctx, o.hint), o);
/** A count the engine keeps in 64 bits, up to 2^53 (bytes, tokens, a window, a seed). */
const count = (o = {}) => kind('count', (v, fn, name) => countValue(v, fn, name, o.hint), o);
/** Any number (a scale, a temperature, a standard deviation); an int index such as an axis. */
const number = (o = {}) => kind(o.int ? 'int' : 'number', (v, fn, name) => numberValue(v, fn, name), o);
/** true or false; bool(undefined) is optional and left out when absent (the engine's default). */
const bool = (fallback = false) => kind('bool', (v, fn, name) => {
  if (typeof v !== 'boolean') throw typeError(fn, name, v, 'true or false');
  return v;
}, { fallback, optional: true });
/** One of `choices`; `hint` says them in the message. */
const choice = (choices, hint, o = {}) => kind('choice', (v, fn, name) => {
  if (!choices.includes(v)) throw new Error(`${fn}: ${name} = ${quote(v)}; expected ${hint}`);
  return v;
}, { ...o, choices });
/** A string; the engine checks which. `hint(ctx)` says what it may be. */
const text = (hint, o = {}) => kind('text', (v, fn, name, ctx) => {
  if (typeof v !== 'string') throw typeError(fn, name, v, hint(ctx));
  return v;
}, o);
/** A tensor: nested arrays, { shape, data }, a typed array or a number (tensor.js). */
const tensor = (o = {}) => kind('tensor', (v, fn, name, ctx) => toInput(v, fn, name, ctx), { nullable: true, ...o });
/** A mask: a tensor that may hold true/false. */
const mask = (o = {}) => kind('mask', (v, fn, name, ctx) => toInput(v, fn, name, ctx, true), { nullable: true, ...o });
/** A list of sizes (a shape, batch axes, values of d_k): a plain copy. */
const sizes = (o = {}) => kind('sizes', (v, fn, name, ctx) => {
  if (!Array.isArray(v)) throw typeError(fn, name, v, 'an array of numbers');
  const out = entries(v, fn, name, 1024);
  for (let i = 0; i < out.length; i++) sizeValue(out[i], fn, `${name}[${i}]`, ctx);
  return out;
}, o);

/** A list of strings (tokens): a plain copy. */
const strings = (o = {}) => kind('strings', (v, fn, name) => {
  if (!Array.isArray(v)) throw typeError(fn, name, v, 'an array of strings');
  const out = entries(v, fn, name, MAX_TOKENS);
  for (let i = 0; i < out.length; i++) {
    if (typeof out[i] !== 'string') throw typeError(fn, `${name}[${i}]`, out[i], 'a string');
  }
  return out;
}, { nullable: true, ...o });

// Past any corpus this kit trains on (16 M tokens), and what stops a runaway array early.
const MAX_TOKENS = 1 << 24;

/**
 * An array or typed array of numbers as a Float64Array, read once (entries(); a typed array's
 * length by the intrinsic getter), types checked; at most `max` of them.
 */
function tokenValues(v, fn, name, max = MAX_TOKENS) {
  const typed = ArrayBuffer.isView(v) && !(v instanceof DataView);
  if (!typed && !Array.isArray(v)) throw typeError(fn, name, v, 'an array of token ids');
  if (typed) {
    const n = viewLength(v, fn, name);
    if (n > max) throw new Error(`${fn}: ${name} has ${n} tokens; expected at most ${max}`);
    const into = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const x = v[i];
      if (typeof x !== 'number') throw typeError(fn, `${name}[${i}]`, x, 'a token id (a number)');
      into[i] = x;
    }
    return into;
  }
  const values = entries(v, fn, name, max, 'tokens');
  const into = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    if (typeof values[i] !== 'number') throw typeError(fn, `${name}[${i}]`, values[i], 'a token id (a number)');
    into[i] = values[i];
  }
  return into;
}

/**
 * Token ids: an array or typed array of numbers, as a Float64Array, so that 3.5 or 2^32 + 1
 * reach the engine's check (its vocabulary's range) instead of being truncated on the way.
 */
const tokens = (o = {}) => kind('tokens', (v, fn, name) => tokenValues(v, fn, name), { nullable: true, ...o });

/** A list of token arrays, as { lengths, tokens } Float64Arrays. */
const tokenLists = (o = {}) => kind('tokenLists', (v, fn, name) => {
  if (!Array.isArray(v)) throw typeError(fn, name, v, 'an array of token arrays');
  // each list read once, into its own copy: the lengths and the tokens sent are the copies'
  const lists = entries(v, fn, name, MAX_TOKENS);
  let total = 0;
  for (let i = 0; i < lists.length; i++) {
    lists[i] = tokenValues(lists[i], fn, `${name}[${i}]`, MAX_TOKENS - total);
    total += lists[i].length;
  }
  const out = new Fields();
  out.lengths = new Float64Array(lists.length);
  out.tokens = new Float64Array(total);
  for (let i = 0, at = 0; i < lists.length; i++) {
    out.tokens.set(lists[i], at);
    out.lengths[i] = lists[i].length;
    at += lists[i].length;
  }
  return out;
}, { nullable: true, ...o });

/** An array whose every entry is read by kind `entry` (an object() for a list of records). */
const list = (entry, o = {}) => kind('list', (v, fn, name, ctx) => {
  if (!Array.isArray(v)) throw typeError(fn, name, v, o.hint || 'an array');
  const out = entries(v, fn, name, 1 << 16);
  for (let i = 0; i < out.length; i++) out[i] = readValue(entry, out[i], fn, `${name}[${i}]`, ctx);
  return out;
}, { entry, ...o });

/**
 * A value the function's body reads itself (a model's source: a name, a file's text or bytes,
 * or a model object, each read by its own reader through own properties).
 */
const source = (o = {}) => kind('source', (v) => v, { optional: true, ...o });

const STAGES = Object.freeze(['scores', 'scaled', 'masked', 'weights', 'output']);
// One frozen list per subset of STAGES, in STAGES order: a call allocates nothing for it.
const STAGE_LISTS = [];

/** Which stages to copy out: all by default, else a list of STAGES names (a shared, frozen array). */
const stages = () => kind('stages', (value, fn) => {
  if (!Array.isArray(value)) throw typeError(fn, 'stages', value, "an array such as ['weights', 'output']");
  const given = entries(value, fn, 'stages', STAGES.length * 4);
  let set = 0;
  for (let i = 0; i < given.length; i++) {
    const index = STAGES.indexOf(given[i]);
    if (index < 0) throw new Error(`${fn}: stages[${i}] = ${quote(given[i])}; expected one of ${STAGES.join(', ')}`);
    set |= 1 << index;
  }
  return STAGE_LISTS[set] || (STAGE_LISTS[set] = Object.freeze(STAGES.filter((_, i) => set & (1 << i))));
}, { fallback: STAGES });

/**
 * An object of named fields (options, or a spec when `required`), read into a Fields object
 * holding every declared field: the value given (converted), else its fallback, else undefined.
 * `nested`: a field of another object (its unknown options are named as `fn: name: ...`).
 */
function object(fields, { required = false, nested = false } = {}) {
  const names = Object.keys(fields);
  const table = Object.assign(Object.create(null), fields);
  const defaults = new Fields();
  for (const name of names) defaults[name] = fields[name].fallback;
  Object.freeze(defaults);
  // The fields that must be given: read as absent when they are not, which names them.
  const needed = names.filter((name) => !fields[name].optional);
  const read = (value, fn, name, ctx) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      if (required && !nested) throw new Error(`${fn}: expected an object { ${names.join(', ')} }; got ${describe(value)}`);
      if (required) throw new Error(`${fn}: ${name} is ${describe(value)}; expected an object { ${names.join(', ')} }`);
      throw new Error(`${fn}: ${name} is ${describe(value)}; expected an object such as { ${names[0]}: ... }`);
    }
    // Every field set first, in one order (one shape); then the caller's own enumerable keys,
    // each value read once: anything inherited is never looked at.
    const out = new Fields();
    for (let i = 0; i < names.length; i++) out[names[i]] = defaults[names[i]];
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i], k = table[key];
      if (k === undefined) throw new Error(`${fn}: ${nested ? `${name}: ` : ''}unknown option '${clip(key)}'; expected one of ${names.join(', ')}`);
      out[key] = readValue(k, value[key], fn, nested ? `${name}.${key}` : key, ctx);
    }
    for (let i = 0; i < needed.length; i++) {
      if (!hasOwn.call(value, needed[i])) readValue(table[needed[i]], undefined, fn, nested ? `${name}.${needed[i]}` : needed[i], ctx);
    }
    return out;
  };
  return kind('object', read, { fields: table, names, defaults, required, nested, nullable: !required, fallback: required ? undefined : defaults });
}

/** One argument by its kind: absent ones take the fallback or stay out; others are read. */
function readValue(k, value, fn, name, ctx) {
  if (value === undefined || (value === null && k.nullable)) {
    if (k.fallback !== undefined) return k.fallback;
    if (k.optional) return undefined;
  }
  return k.read(value, fn, name, ctx);
}

// ---- signatures ----

/**
 * A function's signature: its name in messages and its positional parameters, each
 * [name, kind] (an options or spec object is one parameter of kind object()).
 */
function signature(name, ...params) {
  return Object.freeze({ name, params: Object.freeze(params.map(([n, k]) => Object.freeze({ name: n, kind: k }))) });
}

/**
 * Reads a call's arguments by its signature: an array, one entry per parameter, of values in
 * the engine's form (undefined for an optional one left out).
 * @param sig a signature(); @param args the arguments as given; @param ctx what kinds need
 *   from the engine: { maxIndex, maxElements, engineBuffer(), mistakeNames() }
 */
function readArgs(sig, args, ctx) {
  const params = sig.params, out = new Array(params.length);
  for (let i = 0; i < params.length; i++) out[i] = readValue(params[i].kind, args[i], sig.name, params[i].name, ctx);
  return out;
}

module.exports = {
  Fields, own, readArgs, signature, MAX_COUNT, STAGES,
  size, count, number, bool, choice, text, tensor, mask, sizes, stages, object,
  strings, tokens, tokenLists, list, source, readValue, MAX_TOKENS,
};
