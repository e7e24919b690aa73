'use strict';
// Reads option objects before they reach the engine.
//
// Who checks what (one owner per rule): this side checks JavaScript types and structure:
// unknown keys, own properties only (an option inherited through a prototype is ignored, the
// same as an unknown key is refused), typeof (a BigInt or a string where a number belongs),
// true/false, enumerated strings (scaling, method, stages). The engine checks every value:
// whole numbers and their ranges (before narrowing them), finiteness, scale and temperature
// inside float32, shapes and masks. Numbers pass through untouched.

const { describe, toInput } = require('./tensor.js');

// What checkKeys gives for absent options: read-only, so one object serves every call.
const NO_OPTIONS = Object.freeze(Object.create(null));

/** The own enumerable properties of `options` (a null-prototype copy, read-only when absent). */
function checkKeys(fn, options, allowed) {
  if (options === undefined || options === null) return NO_OPTIONS;
  const own = Object.create(null);
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new Error(`${fn}: options is ${describe(options)}; expected an object such as { ${allowed[0]}: ... }`);
  }
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new Error(`${fn}: unknown option '${key}'; expected one of ${allowed.join(', ')}`);
    }
    own[key] = options[key];
  }
  return own;
}

/** `spec` must be an object; returns its own properties as checkKeys does. */
function checkSpec(fn, spec, allowed) {
  if (!spec || typeof spec !== 'object' || Array.isArray(spec)) {
    throw new Error(`${fn}: expected an object { ${allowed.join(', ')} }; got ${describe(spec)}`);
  }
  return checkKeys(fn, spec, allowed);
}

function boolOption(fn, options, key, fallback = false) {
  return boolValue(fn, key, options[key], fallback);
}

function boolValue(fn, key, value, fallback = false) {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new Error(`${fn}: ${key} is ${describe(value)}; expected true or false`);
  return value;
}

/** A number option that may be left out (undefined or null). */
function numberOption(fn, options, key) {
  return numberValue(fn, key, options[key]);
}

function numberValue(fn, key, value) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number') throw new Error(`${fn}: ${key} is ${describe(value)}; expected a number`);
  return value;
}

/** A number argument with a default: anything else is an error naming it. */
function numberArg(fn, options, key, fallback) {
  const value = options[key] === undefined ? fallback : options[key];
  if (typeof value !== 'number') throw new Error(`${fn}: ${key} is ${describe(value)}; expected a number`);
  return value;
}

/** A plain copy of an array of numbers (sizes, a shape, dks). */
function numberList(fn, value, key) {
  if (!Array.isArray(value)) throw new Error(`${fn}: ${key} is ${describe(value)}; expected an array of numbers`);
  if (value.length > 1024) throw new Error(`${fn}: ${key} has ${value.length} entries; expected at most 1024`);
  const out = new Array(value.length);
  for (let i = 0; i < value.length; i++) {
    if (typeof value[i] !== 'number') throw new Error(`${fn}: ${key}[${i}] is ${describe(value[i])}; expected a number`);
    out[i] = value[i];
  }
  return out;
}

function choiceOption(fn, options, key, choices, hint) {
  return choiceValue(fn, key, options[key], choices, hint);
}

function choiceValue(fn, key, value, choices, hint) {
  if (value === undefined) return undefined;
  if (!choices.includes(value)) {
    throw new Error(`${fn}: ${key} = ${typeof value === 'string' ? JSON.stringify(value) : describe(value)}; expected ${hint}`);
  }
  return value;
}

const ATTENTION_OPTIONS = ['causal', 'validLens', 'mask', 'window', 'scale', 'scaling', 'temperature'];
const STAGES = Object.freeze(['scores', 'scaled', 'masked', 'weights', 'output']);
const SCALINGS = ['sqrt', 'none', 'dk'];
const ATTENTION_CALL_OPTIONS = [...ATTENTION_OPTIONS, 'stages'];

// One frozen list per subset of STAGES, in STAGES order: a call allocates nothing for it.
const STAGE_LISTS = [];

/** Which stages to copy out: all by default, else a list of STAGES names (a shared, frozen array). */
function stagesOption(fn, options) {
  const value = options.stages;
  if (value === undefined) return STAGES;
  if (!Array.isArray(value)) throw new Error(`${fn}: stages is ${describe(value)}; expected an array such as ['weights', 'output']`);
  if (value.length > STAGES.length * 4) throw new Error(`${fn}: stages has ${value.length} entries; expected some of ${STAGES.join(', ')}`);
  let set = 0;
  for (let i = 0; i < value.length; i++) {
    const index = STAGES.indexOf(value[i]);
    if (index < 0) {
      const got = typeof value[i] === 'string' ? JSON.stringify(value[i]) : describe(value[i]);
      throw new Error(`${fn}: stages[${i}] = ${got}; expected one of ${STAGES.join(', ')}`);
    }
    set |= 1 << index;
  }
  return STAGE_LISTS[set] || (STAGE_LISTS[set] = Object.freeze(STAGES.filter((_, i) => set & (1 << i))));
}

/**
 * { causal, validLens, mask, window, scale, scaling, temperature } in the engine's form, and `own`:
 * the caller's own properties, with any further `allowed` key (e.g. 'stages') to read.
 */
function attentionOptions(fn, raw, ctx, allowed = ATTENTION_OPTIONS) {
  const o = checkKeys(fn, raw, allowed);
  // Named reads (not options[key] through helpers): this runs on every lab.attention call.
  const out = { causal: boolValue(fn, 'causal', o.causal) };
  const scale = numberValue(fn, 'scale', o.scale);
  if (scale !== undefined) out.scale = scale;
  const scaling = choiceValue(fn, 'scaling', o.scaling, SCALINGS, "'sqrt' (1/sqrt(d_k)), 'none' or 'dk' (1/d_k)");
  if (scaling !== undefined) out.scaling = scaling;
  const temperature = numberValue(fn, 'temperature', o.temperature);
  if (temperature !== undefined) out.temperature = temperature;
  const window = numberValue(fn, 'window', o.window);
  if (window !== undefined) out.window = window;
  if (o.validLens !== undefined && o.validLens !== null) out.validLens = toInput(o.validLens, fn, 'validLens', ctx);
  if (o.mask !== undefined && o.mask !== null) out.mask = toInput(o.mask, fn, 'mask', ctx, true);
  return { options: out, own: o };
}

module.exports = {
  checkKeys, checkSpec, boolOption, numberOption, numberArg, numberList, choiceOption, stagesOption,
  attentionOptions, ATTENTION_OPTIONS, ATTENTION_CALL_OPTIONS, STAGES, SCALINGS,
};
