'use strict';
// Reads what a course author put on a widget: attributes and an optional child
// <script type="application/json">. Checks the structure and gives messages that say
// what is wrong and where; the engine checks the numbers.

class AuthorDataError extends Error {}

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
 * @param tag the element name, for messages
 * @param attrs { tokens?: string } attribute values (null when absent)
 * @param jsonText text of the child JSON script, or null
 * @param allowed extra JSON keys this widget understands (besides tokens and tensors)
 * @returns { tokens?, Q?, K?, V?, X?, Wq?, Wk?, Wv?, ...extra }
 */
function readAuthorData(tag, attrs, jsonText, allowed = []) {
  let json = {};
  if (jsonText !== null && jsonText !== undefined && jsonText.trim() !== '') {
    try {
      json = JSON.parse(jsonText);
    } catch (err) {
      throw new AuthorDataError(`<${tag}>: the JSON inside <script type="application/json"> could not be read (${err.message})`);
    }
    if (!json || typeof json !== 'object' || Array.isArray(json)) {
      throw new AuthorDataError(`<${tag}>: the JSON data must be an object such as {"tokens": [...], "Q": [[...]]}`);
    }
  }
  const known = ['tokens', ...TENSOR_KEYS, ...allowed];
  for (const key of Object.keys(json)) {
    if (!known.includes(key)) {
      throw new AuthorDataError(`<${tag}>: unknown JSON key "${key}"; expected one of ${known.join(', ')}`);
    }
  }
  const data = { ...json };
  if (attrs.tokens !== null && attrs.tokens !== undefined) {
    if (json.tokens) throw new AuthorDataError(`<${tag}>: tokens are given twice, as an attribute and in the JSON; keep one`);
    data.tokens = splitTokens(attrs.tokens);
  }
  if (data.tokens !== undefined) {
    if (!Array.isArray(data.tokens) || !data.tokens.every((t) => typeof t === 'string' && t.length > 0)) {
      throw new AuthorDataError(`<${tag}>: tokens must be words separated by spaces, or a JSON array of strings`);
    }
    if (data.tokens.length < 1) throw new AuthorDataError(`<${tag}>: tokens is empty; give at least one word`);
    if (data.tokens.length > 256) throw new AuthorDataError(`<${tag}>: ${data.tokens.length} tokens is too many to draw; give at most 256`);
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
  return data;
}

/** A small stable hash of a string, for seeding example data from the author's tokens. */
function seedFrom(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h % 1000000;
}

module.exports = { readAuthorData, AuthorDataError, splitTokens, seedFrom };
