'use strict';
// Reads what a course author put on a widget: attributes and an optional child
// <script type="application/json">. Checks the structure and gives messages that say
// what is wrong and where; the engine checks the numbers.

class AuthorDataError extends Error {}

// Limits on author data (documented in the README).
const MAX_JSON_LENGTH = 2000000;
const MAX_TOKENS = 256;
const MAX_TOKEN_LENGTH = 40;
const MAX_TOKENS_TEXT = 20000;
const MAX_RANK = 6;

const TENSOR_KEYS = ['Q', 'K', 'V', 'X', 'Wq', 'Wk', 'Wv'];

function splitTokens(text) {
  return String(text).trim().split(/\s+/).filter(Boolean);
}

function rowsOf(value) {
  if (Array.isArray(value)) return value.length;
  if (value && Array.isArray(value.shape)) return value.shape[0];
  return undefined;
}

/**
 * Checks a list of tokens: strings of 1 to MAX_TOKEN_LENGTH characters, 1 to MAX_TOKENS of them.
 * @param key the list's name in messages ('tokens', 'queryTokens')
 */
function checkTokens(tag, tokens, key = 'tokens') {
  if (!Array.isArray(tokens) || !tokens.every((t) => typeof t === 'string' && t.length > 0)) {
    throw new AuthorDataError(`<${tag}>: ${key} must be words separated by spaces, or a JSON array of strings`);
  }
  if (tokens.length < 1) throw new AuthorDataError(`<${tag}>: ${key} is empty; give at least one word`);
  if (tokens.length > MAX_TOKENS) throw new AuthorDataError(`<${tag}>: ${tokens.length} ${key} is too many to draw; give at most ${MAX_TOKENS}`);
  const long = tokens.findIndex((t) => t.length > MAX_TOKEN_LENGTH);
  if (long >= 0) {
    throw new AuthorDataError(`<${tag}>: ${key === 'tokens' ? 'token' : `${key} entry`} ${long + 1} is ${tokens[long].length} characters long; expected at most ${MAX_TOKEN_LENGTH}`);
  }
}

/**
 * @param tag the element name, for messages
 * @param attrs { tokens?: string } attribute values (null when absent)
 * @param json the text of the child JSON script, or an object set through the `data`
 *   property, or null
 * @param allowed extra JSON keys this widget understands (besides tokens and tensors); or, for a
 *   widget whose data is not vectors, { keys, keepUnknown }: its own keys only (no tensors), and
 *   with keepUnknown any other key kept as it is (a real file's metadata), for the widget's reader
 * @param maxJsonLength the longest JSON text this widget reads (default MAX_JSON_LENGTH)
 * @returns { tokens?, Q?, K?, V?, X?, Wq?, Wk?, Wv?, ...extra }
 */
function readAuthorData(tag, attrs, json, allowed = [], maxJsonLength = MAX_JSON_LENGTH) {
  const own = Array.isArray(allowed) ? null : allowed;
  if (typeof json === 'string') {
    if (json.length > maxJsonLength) {
      throw new AuthorDataError(`<${tag}>: the JSON data is ${json.length} characters long; expected at most ${maxJsonLength}`);
    }
    if (json.trim() === '') {
      json = {};
    } else {
      try {
        json = JSON.parse(json);
      } catch (err) {
        throw new AuthorDataError(`<${tag}>: the JSON inside <script type="application/json"> could not be read (${err.message})`);
      }
    }
  } else if (json === null || json === undefined) {
    json = {};
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    throw new AuthorDataError(`<${tag}>: the data must be an object such as {"tokens": [...], ${own ? `"${own.keys[1]}"` : '"Q"'}: [[...]]}`);
  }
  const known = own ? own.keys : ['tokens', ...TENSOR_KEYS, ...allowed];
  for (const key of own && own.keepUnknown ? [] : Object.keys(json)) {
    if (!known.includes(key)) {
      throw new AuthorDataError(`<${tag}>: unknown JSON key "${key}"; expected one of ${known.join(', ')}`);
    }
  }
  const data = { ...json };
  if (attrs.tokens !== null && attrs.tokens !== undefined) {
    if (attrs.tokens.length > MAX_TOKENS_TEXT) {
      throw new AuthorDataError(`<${tag}>: the tokens attribute is ${attrs.tokens.length} characters long; expected at most ${MAX_TOKENS_TEXT}`);
    }
    if (json.tokens) throw new AuthorDataError(`<${tag}>: tokens are given twice, as an attribute and in the JSON; keep one`);
    data.tokens = splitTokens(attrs.tokens);
  }
  if (data.tokens !== undefined) checkTokens(tag, data.tokens);
  if (own) return data;  // the widget's own reader checks the rest
  for (const key of TENSOR_KEYS) {
    if (data[key] === null) throw new AuthorDataError(`<${tag}>: ${key} is null; expected nested arrays of numbers`);
    let depth = 0;
    for (let probe = data[key]; Array.isArray(probe) && depth <= MAX_RANK; probe = probe[0]) depth += 1;
    if (depth > MAX_RANK) throw new AuthorDataError(`<${tag}>: ${key} is nested more than ${MAX_RANK} arrays deep; expected a matrix like [[1, 0], [0, 1]]`);
  }
  const has = (k) => data[k] !== undefined;
  if ((has('Q') || has('K') || has('V')) && !(has('Q') && has('K') && has('V'))) {
    const missing = ['Q', 'K', 'V'].filter((k) => !has(k));
    throw new AuthorDataError(`<${tag}>: Q, K and V go together; ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing`);
  }
  if ((has('X') || has('Wq') || has('Wk') || has('Wv')) && !(has('X') && has('Wq') && has('Wk') && has('Wv'))) {
    const missing = ['X', 'Wq', 'Wk', 'Wv'].filter((k) => !has(k));
    throw new AuthorDataError(`<${tag}>: embeddings X need Wq, Wk and Wv; missing ${missing.join(', ')}`);
  }
  if (has('Q') && has('X')) throw new AuthorDataError(`<${tag}>: give either Q, K, V or X with Wq, Wk, Wv, not both`);
  const rowsKey = has('Q') ? 'Q' : has('X') ? 'X' : null;
  if (rowsKey && data.tokens) {
    const rows = rowsOf(data[rowsKey]);
    if (rows !== data.tokens.length) {
      throw new AuthorDataError(`<${tag}>: tokens has ${data.tokens.length} words but ${rowsKey} has ${rows} rows; expected one row per token`);
    }
  }
  if (rowsKey && !data.tokens) {
    const rows = rowsOf(data[rowsKey]);
    if (Number.isInteger(rows)) data.tokens = Array.from({ length: rows }, (_, i) => `t${i + 1}`);
  }
  if (data.options !== undefined) data.options = checkOptions(tag, data.options);
  return data;
}

const OPTION_TYPES = {
  causal: (v) => typeof v === 'boolean' || 'true or false',
  scaling: (v) => ['sqrt', 'none', 'dk'].includes(v) || '"sqrt", "none" or "dk"',
  temperature: (v) => (typeof v === 'number' && Number.isFinite(v) && v > 0) || 'a number above 0',
  scale: (v) => (typeof v === 'number' && Number.isFinite(v) && v > 0) || 'a number above 0',
};

/** Checks the JSON "options" object: known keys, each of the right type. */
function checkOptions(tag, options) {
  if (!options || typeof options !== 'object' || Array.isArray(options)) {
    throw new AuthorDataError(`<${tag}>: options must be an object such as {"causal": true}`);
  }
  for (const [key, value] of Object.entries(options)) {
    const check = OPTION_TYPES[key];
    if (!check) throw new AuthorDataError(`<${tag}>: unknown option "${key}"; expected one of ${Object.keys(OPTION_TYPES).join(', ')}`);
    const ok = check(value);
    if (ok !== true) throw new AuthorDataError(`<${tag}>: options.${key} is ${JSON.stringify(value)}; expected ${ok}`);
  }
  return options;
}

/** A small stable hash of a string, for seeding example data from the author's tokens. */
function seedFrom(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h % 1000000;
}

module.exports = { readAuthorData, checkTokens, checkOptions, AuthorDataError, splitTokens, seedFrom, MAX_JSON_LENGTH, MAX_TOKENS, MAX_TOKEN_LENGTH };
