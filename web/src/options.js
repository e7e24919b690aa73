'use strict';
// Checks option objects before they reach the engine: unknown keys and wrong types get a
// message naming the option. Value ranges (scale finite, lengths in range) are the engine's.

const { describe, toInput } = require('./tensor.js');

function checkKeys(fn, options, allowed) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new Error(`${fn}: options is ${describe(options)}; expected an object such as { ${allowed[0]}: ... }`);
  }
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new Error(`${fn}: unknown option '${key}'; expected one of ${allowed.join(', ')}`);
    }
  }
  return options;
}

function boolOption(fn, options, key, fallback = false) {
  const value = options[key];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new Error(`${fn}: ${key} is ${describe(value)}; expected true or false`);
  return value;
}

function numberOption(fn, options, key) {
  const value = options[key];
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

function wholeOption(fn, options, key, fallback, min) {
  const value = options[key] === undefined ? fallback : options[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new Error(`${fn}: ${key} = ${typeof value === 'number' ? value : describe(value)}; expected a whole number >= ${min}`);
  }
  return value;
}

const ATTENTION_OPTIONS = ['causal', 'validLens', 'mask', 'scale', 'scaling', 'temperature'];
const SCALINGS = ['sqrt', 'none', 'dk'];

/** { causal, validLens, mask, scale, scaling, temperature } in the engine's form. */
function attentionOptions(fn, raw) {
  const o = checkKeys(fn, raw, ATTENTION_OPTIONS);
  const out = { causal: boolOption(fn, o, 'causal') };
  const scale = numberOption(fn, o, 'scale');
  if (scale !== undefined) out.scale = scale;
  if (o.scaling !== undefined) {
    if (!SCALINGS.includes(o.scaling)) {
      throw new Error(`${fn}: scaling = ${JSON.stringify(o.scaling)}; expected 'sqrt' (1/sqrt(d_k)), 'none' or 'dk' (1/d_k)`);
    }
    out.scaling = o.scaling;
  }
  const temperature = numberOption(fn, o, 'temperature');
  if (temperature !== undefined) out.temperature = temperature;
  if (o.validLens !== undefined && o.validLens !== null) out.validLens = toInput(o.validLens, fn, 'validLens');
  if (o.mask !== undefined && o.mask !== null) out.mask = toInput(o.mask, fn, 'mask', true);
  return out;
}

module.exports = { checkKeys, boolOption, numberOption, numberArg, wholeOption, attentionOptions, ATTENTION_OPTIONS };
