'use strict';
// The data <model-attention> draws: a model's attention over a sentence, as an author pastes it
// (child JSON, the data property, a src file) or as a model of the project's own returns it.
// This module reads its structure: the accepted shapes, ragged arrays, tokens against the
// matrix sizes, the limits, and the compact forms (base64 float16 / float32 with a shape),
// decoding everything into one Float32Array [layers, heads, queries, keys]. Whether the
// numbers are attention weights (finite, not negative, rows summing to 1) is the engine's
// rule, asked through lab.headSummary. DOM-free.
//
// Accepted forms of `attentions`:
//   [layers][heads][queries][keys]  what transformers returns with output_attentions=True,
//                                   one entry per layer, batch axis dropped
//   [heads][queries][keys]          one layer; also CircuitsVis's [heads][dest][src]
//   { shape, data }                 the same, flat: data a number array or a Float32Array
//   { shape, dtype, base64 }        the same, flat, as little-endian float16 or float32 bytes

const { AuthorDataError, checkTokens } = require('./author-data.js');
const { isSpecialToken } = require('../api/heads.js');

/** The documented limits (README): a page past them is not one a reader can use. */
const LIMITS = Object.freeze({ layers: 64, heads: 64, weights: 4194304, nameLength: 40, decimals: 8 });
/** JSON text this element reads: a 4,194,304-weight float32 base64 payload and its tokens. */
const MAX_JSON_LENGTH = 24000000;
const KEYS = ['tokens', 'attentions', 'queryTokens', 'causal', 'layerNames', 'headNames', 'decimals', 'sentenceBStart'];
const DTYPES = { float16: 2, float32: 4 };
const FORMS = 'nested arrays [layers][heads][queries][keys] or [heads][queries][keys], { shape, data }, or { shape, dtype, base64 }';

const fail = (tag, text) => {
  throw new AuthorDataError(`<${tag}>: ${text}`);
};

function kindOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  if (typeof value === 'object') return 'an object';
  return value === undefined ? 'missing' : `a ${typeof value}`;
}

/** An optional list of names, one per layer or head. */
function names(tag, value, key, count, what) {
  if (value === undefined) return null;
  if (!Array.isArray(value) || !value.every((x) => typeof x === 'string' && x.length > 0)) {
    fail(tag, `${key} must be a JSON array of strings, one per ${what}`);
  }
  if (value.length !== count) fail(tag, `${key} has ${value.length} names but the data has ${count} ${what}s; expected one per ${what}`);
  const long = value.findIndex((x) => x.length > LIMITS.nameLength);
  if (long >= 0) fail(tag, `${key}[${long}] is ${value[long].length} characters long; expected at most ${LIMITS.nameLength}`);
  return value.slice();
}

/** The shape of nested arrays, from the first entry on each level (the walk checks the rest). */
function nestedShape(value) {
  const shape = [];
  for (let probe = value; Array.isArray(probe) && shape.length <= 4; probe = probe[0]) shape.push(probe.length);
  return shape;
}

/** [layers, heads, m, n] from a shape of 3 or 4 whole positive extents, or a message. */
function fullShape(tag, shape, where) {
  if (shape.length !== 3 && shape.length !== 4) {
    // transformers returns one [batch, heads, n, n] per layer: stacked, that is 5 axes
    const hint = shape.length === 5 && shape[1] === 1 ? ' (drop the batch axis: one [heads][queries][keys] per layer)'
      : shape.length === 2 ? ' (one head: wrap it in one more array)' : '';
    fail(tag, `${where} has ${shape.length} ${shape.length === 1 ? 'axis' : 'axes'} ([${shape.join(', ')}]); expected [layers, heads, queries, keys] or [heads, queries, keys]${hint}`);
  }
  const bad = shape.findIndex((x) => !(Number.isInteger(x) && x >= 1));
  if (bad >= 0) fail(tag, `${where} is [${shape.join(', ')}]; expected whole numbers of at least 1 (entry ${bad} is ${shape[bad]})`);
  return shape.length === 4 ? shape.slice() : [1, ...shape];
}

/** The number of bytes a base64 text holds (padding '=' at the end only), or a message. */
function base64Bytes(tag, text) {
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  if (text.length % 4 !== 0) fail(tag, `attentions.base64 is ${text.length} characters long; expected a multiple of 4 (base64 with its '=' padding)`);
  return (text.length / 4) * 3 - pad;
}

/**
 * Decodes bytes [from, to) of a base64 text into out[from, to) (from a multiple of 3), by the
 * platform (Uint8Array's setFromBase64, else atob); a character that is not base64 is a message
 * naming it and where it is.
 */
function decodeBase64(tag, text, out, from, to) {
  const at = (from / 3) * 4;
  const chars = text.slice(at, Math.ceil(to / 3) * 4);
  try {
    if (out.setFromBase64) {
      out.subarray(from, to).setFromBase64(chars);
      return;
    }
    const binary = atob(chars);
    for (let k = 0; k < to - from; k++) out[from + k] = binary.charCodeAt(k);
  } catch (_) {
    const bad = /[^A-Za-z0-9+/]/.exec(chars.replace(/={1,2}$/, '')) || [chars[0], 0];
    fail(tag, `attentions.base64 has ${JSON.stringify(bad[0])} at character ${at + (bad.index || 0)}; expected base64 (A-Z, a-z, 0-9, +, /)`);
  }
}

// float16 bit pattern -> float32, built on first use (256 KB).
let HALF = null;
function halfTable() {
  if (HALF) return HALF;
  HALF = new Float32Array(65536);
  for (let bits = 0; bits < 65536; bits++) {
    const sign = bits & 0x8000 ? -1 : 1, exp = (bits >> 10) & 31, frac = bits & 1023;
    HALF[bits] = exp === 0 ? sign * frac * 2 ** -24 : exp === 31 ? (frac ? NaN : sign * Infinity) : sign * (1 + frac / 1024) * 2 ** (exp - 15);
  }
  return HALF;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Reads the structure of the data and prepares its decoding.
 * @param tag element name, for messages
 * @param data { tokens, attentions, queryTokens?, causal?, layerNames?, headNames?, decimals?,
 *   sentenceBStart?, ...metadata } (what readAuthorData returns, or a model's output); any other
 *   key is the file's metadata (model, sentence, source, licence...), kept as it is
 * @returns { set, steps }: `set` = { tokens, queryTokens (null for self-attention), layers, heads,
 *   m, n, weights: Float32Array [layers * heads * m * n], causal, layerNames, headNames,
 *   decimals (undefined unless rounded), sentenceBStart (null without a sentence pair),
 *   special (Uint8Array: 1 for a special token such as [CLS] or [SEP]), meta (the other keys) },
 *   and `steps`, a generator that fills set.weights one layer per step, checking the structure
 *   of that layer (run it to the end before using set)
 */
function readAttentionData(tag, data) {
  if (!data || typeof data !== 'object' || Array.isArray(data)) fail(tag, 'the data must be an object such as {"tokens": [...], "attentions": [...]}');
  const meta = {};
  for (const key of Object.keys(data)) {
    if (!KEYS.includes(key)) meta[key] = data[key];
  }
  const { tokens, queryTokens } = data;
  if (tokens === undefined) fail(tag, 'tokens is missing; expected the tokens as a JSON array of strings, one per key');
  checkTokens(tag, tokens);
  const cross = queryTokens !== undefined;
  if (cross) checkTokens(tag, queryTokens, 'queryTokens');
  if (data.causal !== undefined && typeof data.causal !== 'boolean') fail(tag, `causal is ${kindOf(data.causal)}; expected true or false`);
  const causal = data.causal === true;
  if (causal && cross) fail(tag, 'causal is true with queryTokens; a causal mask belongs to self-attention, where queries and keys are the same tokens');
  if (data.decimals !== undefined && typeof data.decimals !== 'number') fail(tag, `decimals is ${kindOf(data.decimals)}; expected a whole number from 0 to ${LIMITS.decimals}`);

  const a = data.attentions;
  const flat = a && typeof a === 'object' && !Array.isArray(a) && !ArrayBuffer.isView(a);
  if (flat) {
    const extra = Object.keys(a).filter((k) => !['shape', 'data', 'dtype', 'base64'].includes(k));
    if (extra.length) fail(tag, `attentions has an unknown key "${extra[0]}"; expected { shape, data } or { shape, dtype, base64 }`);
    if (!Array.isArray(a.shape)) fail(tag, `attentions.shape is ${kindOf(a.shape)}; expected an array such as [12, 12, 128, 128]`);
  } else if (!Array.isArray(a)) {
    fail(tag, `attentions is ${kindOf(a)}; expected ${FORMS}`);
  }
  const shape = flat ? fullShape(tag, a.shape, 'attentions.shape') : fullShape(tag, nestedShape(a), 'attentions (nested arrays)');
  const [layers, heads, m, n] = shape;
  if (layers > LIMITS.layers) fail(tag, `the data has ${layers} layers; expected at most ${LIMITS.layers}`);
  if (heads > LIMITS.heads) fail(tag, `the data has ${heads} heads; expected at most ${LIMITS.heads}`);
  const total = layers * heads * m * n;
  if (total > LIMITS.weights) {
    fail(tag, `the data has ${total} weights (${layers} layers x ${heads} heads x ${m} x ${n}); expected at most ${LIMITS.weights}: keep fewer layers or a shorter text`);
  }
  const fill = !flat ? nestedFill(tag, a, shape) : a.base64 !== undefined ? base64Fill(tag, a, shape) : flatFill(tag, a, shape);
  if (tokens.length !== n) fail(tag, `tokens has ${tokens.length} entries but each attention pattern has ${n} columns (keys); expected one token per key`);
  if (cross && queryTokens.length !== m) {
    fail(tag, `queryTokens has ${queryTokens.length} entries but each attention pattern has ${m} rows (queries); expected one token per query`);
  }
  if (!cross && m !== n) {
    fail(tag, `each attention pattern is ${m} x ${n} (queries x keys); self-attention needs square patterns (give queryTokens for cross-attention)`);
  }
  const b = data.sentenceBStart;
  if (b !== undefined && (cross || !Number.isInteger(b) || b < 1 || b >= n)) {
    fail(tag, `sentenceBStart is ${typeof b === 'number' ? b : kindOf(b)}; expected the position of sentence B's first token, a whole number from 1 to ${n - 1}${cross ? ', and no queryTokens (a sentence pair is one text)' : ''}`);
  }
  const set = {
    tokens: tokens.slice(), queryTokens: cross ? queryTokens.slice() : null, layers, heads, m, n,
    weights: null, causal,
    layerNames: names(tag, data.layerNames, 'layerNames', layers, 'layer'),
    headNames: names(tag, data.headNames, 'headNames', heads, 'head'),
    decimals: data.decimals,
    sentenceBStart: b === undefined ? null : b,
    special: Uint8Array.from(tokens, (t) => (isSpecialToken(t) ? 1 : 0)),
    meta,
  };
  return { set, steps: fill(set) };
}

/** Nested arrays: walk one layer per step, checking every length and leaf. */
function nestedFill(tag, a, shape) {
  const [layers, heads, m, n] = shape;
  const rank4 = nestedShape(a).length === 4;
  const list = (node, path, length, what) => {
    if (!Array.isArray(node)) fail(tag, `${path} is ${kindOf(node)}; expected an array of ${length} ${what}`);
    if (node.length !== length) fail(tag, `attentions is ragged: ${path} has ${node.length} ${what} but the first has ${length}; expected one size throughout`);
    return node;
  };
  return function* steps(set) {
    set.weights = new Float32Array(layers * heads * m * n);
    const w = set.weights;
    for (let l = 0; l < layers; l++) {
      const lead = rank4 ? `attentions[${l}]` : 'attentions';
      const layer = rank4 ? list(a[l], lead, heads, 'heads') : a;
      for (let h = 0; h < heads; h++) {
        const rows = list(layer[h], `${lead}[${h}]`, m, 'rows');
        for (let i = 0; i < m; i++) {
          const row = list(rows[i], `${lead}[${h}][${i}]`, n, 'entries');
          const at = ((l * heads + h) * m + i) * n;
          for (let j = 0; j < n; j++) {
            const x = row[j];
            if (typeof x !== 'number') {
              fail(tag, `${lead}[${h}][${i}][${j}] is ${kindOf(x)}; expected a number${x === null ? ' (JSON has no NaN: JSON.stringify writes NaN and infinities as null)' : ''}`);
            }
            w[at + j] = x;
          }
        }
      }
      yield l;
    }
  };
}

/** { shape, data }: a flat array of numbers or a Float32Array (used as it is). */
function flatFill(tag, a, shape) {
  const total = shape.reduce((x, y) => x * y, 1);
  const data = a.data;
  if (!Array.isArray(data) && !ArrayBuffer.isView(data)) fail(tag, `attentions.data is ${kindOf(data)}; expected a flat array of numbers`);
  if (data.length !== total) fail(tag, `attentions.data has ${data.length} numbers but shape [${a.shape.join(', ')}] needs ${total}`);
  const per = total / shape[0];
  return function* steps(set) {
    if (data instanceof Float32Array) {
      set.weights = data;
      return;
    }
    set.weights = new Float32Array(total);
    for (let l = 0; l < shape[0]; l++) {
      for (let k = l * per; k < (l + 1) * per; k++) {
        const x = data[k];
        if (typeof x !== 'number') fail(tag, `attentions.data[${k}] is ${kindOf(x)}; expected a number`);
        set.weights[k] = x;
      }
      yield l;
    }
  };
}

/** { shape, dtype, base64 }: little-endian float16 or float32 bytes, decoded a layer per step. */
function base64Fill(tag, a, shape) {
  if (!Object.prototype.hasOwnProperty.call(DTYPES, a.dtype)) {
    fail(tag, `attentions.dtype is ${typeof a.dtype === 'string' ? JSON.stringify(a.dtype) : kindOf(a.dtype)}; expected "float16" or "float32"`);
  }
  if (typeof a.base64 !== 'string') fail(tag, `attentions.base64 is ${kindOf(a.base64)}; expected a base64 string`);
  if (a.data !== undefined) fail(tag, 'attentions has both data and base64; keep one');
  const total = shape.reduce((x, y) => x * y, 1);
  const size = DTYPES[a.dtype];
  const bytes = base64Bytes(tag, a.base64);
  if (bytes !== total * size) {
    fail(tag, `attentions.base64 holds ${bytes} bytes but shape [${a.shape.join(', ')}] in ${a.dtype} needs ${total * size} (${size} per weight)`);
  }
  const per = (total / shape[0]) * size;
  return function* steps(set) {
    const raw = new Uint8Array(total * size);
    set.weights = size === 4 ? new Float32Array(raw.buffer) : new Float32Array(total);
    const view = new DataView(raw.buffer);
    const half = size === 2 ? halfTable() : null;
    const halves = size === 2 && LITTLE_ENDIAN ? new Uint16Array(raw.buffer) : null;
    let decoded = 0;  // bytes decoded so far: a multiple of 3 until the end
    for (let l = 0; l < shape[0]; l++) {
      const end = Math.min(raw.length, Math.ceil(((l + 1) * per) / 3) * 3);
      decodeBase64(tag, a.base64, raw, decoded, end);
      decoded = end;
      const from = (l * per) / size, to = ((l + 1) * per) / size;
      if (half) {
        for (let k = from; k < to; k++) set.weights[k] = half[halves ? halves[k] : view.getUint16(2 * k, true)];
      } else if (!LITTLE_ENDIAN) {
        for (let k = from; k < to; k++) set.weights[k] = view.getFloat32(4 * k, true);
      }
      yield l;
    }
  };
}

/** readAttentionData with every step run at once: the set, decoded (small data, node tests). */
function parseAttentionData(tag, data) {
  const { set, steps } = readAttentionData(tag, data);
  for (const _ of steps) { /* one layer per step */ }  // eslint-disable-line no-unused-vars
  return set;
}

/** Layer l, head h of a decoded set: its m x n weights, row-major (a view, not a copy). */
function pattern(set, l, h) {
  const size = set.m * set.n;
  const at = (l * set.heads + h) * size;
  return set.weights.subarray(at, at + size);
}

/**
 * The file's metadata worth a line under the views: model, sentence and licence when they are
 * short strings, and the source's address ({ url } or a string). Text only, never markup.
 */
function metaLine(set) {
  const m = set.meta || {};
  const source = m.source && typeof m.source === 'object' ? m.source.url : m.source;
  return [['model', m.model], ['sentence', m.sentence], ['license', m.license || m.licence], ['source', source]]
    .filter(([, v]) => typeof v === 'string' && v && v.length <= 300).map(([k, v]) => `${k}: ${v}`).join('; ');
}

/**
 * Which queries and keys a sentence-pair filter keeps, as BertViz offers: 'all', 'aa', 'ab'
 * (sentence A's queries over sentence B's keys), 'ba', 'bb'. Sentence A runs from 0 to
 * sentenceBStart - 1 ([CLS] and A's [SEP] with it), B from sentenceBStart to the end.
 * @returns { rows: [from, to), cols: [from, to) }
 */
function pairRange(set, filter) {
  const b = set.sentenceBStart;
  const part = (c) => (!b || !/^[ab][ab]$/.test(filter) ? [0, set.n] : c === 'a' ? [0, b] : [b, set.n]);
  return { rows: part(filter[0]), cols: part(filter[1]) };
}

/**
 * A set cut to a sentence-pair filter: the kept queries over the kept keys, as cross-attention
 * (queryTokens), for the views to draw; the rows no longer sum to 1 (the rest of each row's weight
 * is on the other sentence). The whole set when the filter keeps everything.
 */
function pairView(set, filter) {
  const { rows: [r0, r1], cols: [c0, c1] } = pairRange(set, filter);
  if (r0 === 0 && r1 === set.m && c0 === 0 && c1 === set.n) return set;
  const m = r1 - r0, n = c1 - c0;
  const weights = new Float32Array(set.layers * set.heads * m * n);
  for (let k = 0; k < set.layers * set.heads; k++) {
    for (let i = 0; i < m; i++) {
      const from = (k * set.m + r0 + i) * set.n + c0;
      weights.set(set.weights.subarray(from, from + n), (k * m + i) * n);
    }
  }
  const tokens = set.tokens.slice(c0, c1);
  return {
    ...set, m, n, weights, tokens, queryTokens: (set.queryTokens || set.tokens).slice(r0, r1), causal: false, sentenceBStart: null,
    special: set.special.slice(c0, c1), querySpecial: set.special.slice(r0, r1), offsets: { row: r0, col: c0 }, filter,
  };
}

/** The display names of layer l and head h: the author's, or "layer l" / "head h" (counted from 0). */
function layerName(set, l) {
  return set.layerNames ? set.layerNames[l] : `layer ${l}`;
}
function headName(set, h) {
  return set.headNames ? set.headNames[h] : `head ${h}`;
}

module.exports = {
  readAttentionData, parseAttentionData, pattern, layerName, headName, metaLine, pairRange, pairView, LIMITS, MAX_JSON_LENGTH, KEYS,
};
