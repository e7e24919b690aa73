'use strict';
// The shipped model's tokenizer: byte-pair pieces over lowercased text, with one character
// as the fallback, so any text tokenises. Text processing only: no maths, no DOM. Its
// vocabulary travels inside the weights file (scripts/train-model.js writes it), so the
// model and its tokenizer cannot disagree.
//
// A vocabulary is { kind: 'bpe', unknown, alphabet, merges }:
//   unknown   the piece shown for a character outside the alphabet (id 0)
//   alphabet  the single characters, ids 1 .. alphabet.length
//   merges    [left id, right id] pairs in the order they were learned; merge i makes the
//             piece of id 1 + alphabet.length + i, and a lower i is applied first
//
// Text is read one code point at a time: its lowercase form (when that is one character),
// with tabs and carriage returns read as spaces, is looked up in the alphabet; any other
// character becomes the unknown piece. Words are split before merging (splitWords), so a
// piece never spans two words; each token keeps the exact span of the text it came from.

const { describe, quote, entries } = require('./tensor.js');

const BPE = 'bpe';
// A character outside every alphabet: what an unknown code point reads as while splitting.
const UNKNOWN_CHAR = '\uFFFF';
// Words whose pieces a tokenizer remembers: every distinct word of the training text.
const CACHE_WORDS = 1 << 17;
// A word: a letter run or a digit run (each with the space before it), one other character
// (with its space), a newline, or a lone space (one of several, or one before a newline).
const WORD = / ?[a-z]+| ?[0-9]+| ?[^a-z0-9 \n]|\n| /gy;

/**
 * Each code point of `text` as the one character the vocabulary reads, and where each
 * started (starts[i]; null when every character is one code unit, so starts[i] = i).
 */
function normalise(text) {
  // ASCII: lowercasing the whole string lowercases each character alone, in place
  if (/^[\x00-\x7f]*$/.test(text)) return { text: text.toLowerCase().replace(/[\t\r]/g, ' '), starts: null };
  const chars = [];
  const starts = [];
  let i = 0;
  for (const cp of text) {
    const lower = cp.toLowerCase();
    let c = lower.length === 1 ? lower : UNKNOWN_CHAR;
    if (c === '\t' || c === '\r') c = ' ';
    chars.push(c);
    starts.push(i);
    i += cp.length;
  }
  starts.push(i);
  return { text: chars.join(''), starts };
}

/** Calls visit(start, end) for each word of normalised text, in order: every character is in one. */
function eachWord(text, visit) {
  WORD.lastIndex = 0;
  while (WORD.lastIndex < text.length) {
    const at = WORD.lastIndex;
    if (!WORD.exec(text)) throw new Error(`tokenizer: internal error (no word at ${at})`);
    visit(at, WORD.lastIndex);
  }
}

/** The words of normalised text (splitWords(normalise(x).text)), as [start, end) indices into it. */
function splitWords(text) {
  const out = [];
  eachWord(text, (a, b) => out.push([a, b]));
  return out;
}

/**
 * A vocabulary read once, field by field and entry by entry (tensor.js entries()), and checked:
 * { unknown, alphabet, merges } as plain arrays.
 */
function readVocabulary(fn, v) {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${fn}: tokenizer is ${describe(v)}; expected { kind: 'bpe', unknown, alphabet, merges }`);
  const kind = v.kind, unknown = v.unknown, alphabet = v.alphabet, merges = v.merges;
  if (kind !== BPE) throw new Error(`${fn}: tokenizer.kind is ${quote(kind)}; expected '${BPE}'`);
  if (typeof unknown !== 'string' || unknown.length === 0) throw new Error(`${fn}: tokenizer.unknown is ${describe(unknown)}; expected a non-empty string`);
  if (!Array.isArray(alphabet)) throw new Error(`${fn}: tokenizer.alphabet is ${describe(alphabet)}; expected an array of single characters`);
  const chars = entries(alphabet, fn, 'tokenizer.alphabet', 0xffff, 'characters');
  const seen = new Set();
  chars.forEach((c, i) => {
    if (typeof c !== 'string' || c.length !== 1 || c === UNKNOWN_CHAR || seen.has(c)) {
      throw new Error(`${fn}: tokenizer.alphabet[${i}] is ${quote(c)}; expected a single character, each once`);
    }
    seen.add(c);
  });
  if (!Array.isArray(merges)) throw new Error(`${fn}: tokenizer.merges is ${describe(merges)}; expected an array of [left, right] id pairs`);
  const base = 1 + chars.length;
  const pairs = entries(merges, fn, 'tokenizer.merges', 1 << 20, 'merges').map((m, i) => {
    const pair = Array.isArray(m) ? entries(m, fn, `tokenizer.merges[${i}]`, 2) : null;
    const ok = pair && pair.length === 2 && pair.every((id) => Number.isInteger(id) && id >= 1 && id < base + i);
    if (!ok) throw new Error(`${fn}: tokenizer.merges[${i}] is ${pair ? `[${pair.map(quote).join(',')}]` : quote(m)}; expected two ids of earlier pieces, from 1 to ${base + i - 1}`);
    return pair;
  });
  return { unknown, alphabet: chars, merges: pairs };
}

/** Adds `key` to the binary min-heap `heap` (an array). */
function heapPush(heap, key) {
  let i = heap.length;
  heap.push(key);
  while (i > 0) {
    const up = (i - 1) >> 1;
    if (heap[up] <= key) break;
    heap[i] = heap[up];
    i = up;
  }
  heap[i] = key;
}

/** Removes and returns the smallest key of a non-empty min-heap. */
function heapPop(heap) {
  const top = heap[0], last = heap.pop(), n = heap.length;
  if (n === 0) return top;
  let i = 0;
  for (;;) {
    let c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && heap[c + 1] < heap[c]) c++;
    if (heap[c] >= last) break;
    heap[i] = heap[c];
    i = c;
  }
  heap[i] = last;
  return top;
}

class Tokenizer {
  /**
   * @param vocabulary { kind: 'bpe', unknown, alphabet, merges } (checked)
   * @param fn the function named in errors
   */
  constructor(vocabulary, fn = 'createTokenizer') {
    const { unknown, alphabet, merges } = readVocabulary(fn, vocabulary);
    this._charIds = new Map(alphabet.map((c, i) => [c, i + 1]));
    this._rank = new Map();
    /** Every piece's text, by id (id 0: the unknown piece). */
    const pieces = [unknown, ...alphabet];
    merges.forEach(([a, b], i) => {
      this._rank.set(a * 65536 + b, i);
      pieces.push(pieces[a] + pieces[b]);
    });
    this.pieces = Object.freeze(pieces);
    this.unknownId = 0;
    this._cache = new Map();
  }

  /** Number of ids: pieces.length. */
  get size() { return this.pieces.length; }

  /**
   * The ids of one normalised word, merged lowest rank first (the leftmost of equal ranks):
   * the pieces as a linked list and every adjacent pair that has a merge in a min-heap keyed
   * by (rank, position), stale entries skipped when popped. O(n log n) in the word's length,
   * where merging by rescanning the word took O(n^2) (3.3 s of CPU for 16,000 letters).
   */
  _word(word) {
    const hit = this._cache.get(word);
    if (hit) return hit;
    const n = word.length, rank = this._rank;
    const ids = new Int32Array(n), next = new Int32Array(n), prev = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      ids[i] = this._charIds.get(word[i]) || 0;
      next[i] = i + 1;
      prev[i] = i - 1;
    }
    const base = this.pieces.length - rank.size;
    // keys rank * 2^32 + position: exact in a double (ranks below 2^20, strings below 2^32)
    const heap = [];
    const push = (at) => {
      const r = next[at] < n ? rank.get(ids[at] * 65536 + ids[next[at]]) : undefined;
      if (r !== undefined) heapPush(heap, r * 4294967296 + at);
    };
    for (let i = 0; i + 1 < n; i++) push(i);
    while (heap.length) {
      const key = heapPop(heap), r = Math.floor(key / 4294967296), at = key - r * 4294967296;
      const right = next[at];
      // stale: this piece was merged into its left neighbour, or its pair changed since
      if (ids[at] < 0 || right >= n || rank.get(ids[at] * 65536 + ids[right]) !== r) continue;
      ids[at] = base + r;
      ids[right] = -1;
      next[at] = next[right];
      if (next[at] < n) prev[next[at]] = at;
      if (prev[at] >= 0) push(prev[at]);
      push(at);
    }
    const out = [];
    for (let i = 0; i < n; i = next[i]) out.push(ids[i]);
    if (this._cache.size < CACHE_WORDS) this._cache.set(word, out);
    return out;
  }

  /**
   * @param text a string
   * @returns { ids: number[], tokens: [{ id, text, start, end }] } where text is the exact
   *   span [start, end) of the input (so the tokens' texts join back into it)
   */
  encode(text, fn = 'Tokenizer.encode') {
    const { tokens } = this.last(text, Infinity, fn);
    return { ids: tokens.map((t) => t.id), tokens };
  }

  /** The ids of `text` alone (as encode(text).ids), for long texts such as a corpus: an Int32Array. */
  ids(text, fn = 'Tokenizer.ids') {
    if (typeof text !== 'string') throw new Error(`${fn}: text is ${describe(text)}; expected a string`);
    let out = new Int32Array(Math.max(16, text.length >> 1));
    let n = 0;
    this._each(normalise(text).text, (id) => {
      if (n === out.length) {
        const grown = new Int32Array(out.length * 2);
        grown.set(out);
        out = grown;
      }
      out[n++] = id;
    });
    return out.slice(0, n);
  }

  /** Calls visit(id, start, length) for each token of normalised text, in order. */
  _each(norm, visit) {
    eachWord(norm, (a, b) => this._pieces(norm, a, b, visit));
  }

  /** Calls visit(id, start, length) for each token of the word norm[a, b); returns their count. */
  _pieces(norm, a, b, visit) {
    const ids = this._word(norm.slice(a, b));
    let at = a;
    for (const id of ids) {
      const len = id === 0 ? 1 : this.pieces[id].length;
      visit(id, at, len);
      at += len;
    }
    return ids.length;
  }

  /**
   * The last `max` tokens of `text` (encode(text).tokens.slice(-max)) and how many it has in
   * all (`count`): words are merged from the end, and only the tokens kept are built; the
   * words before them are only counted (each word's pieces cached).
   */
  last(text, max, fn = 'Tokenizer.last') {
    if (typeof text !== 'string') throw new Error(`${fn}: text is ${describe(text)}; expected a string`);
    const norm = normalise(text), t = norm.text;
    const where = norm.starts ? (i) => norm.starts[i] : (i) => i;
    const bounds = [];
    eachWord(t, (a, b) => bounds.push(a, b));
    let w = bounds.length, kept = 0;
    while (w > 0 && kept < max) {
      w -= 2;
      kept += this._word(t.slice(bounds[w], bounds[w + 1])).length;
    }
    let count = kept;
    for (let i = 0; i < w; i += 2) count += this._word(t.slice(bounds[i], bounds[i + 1])).length;
    const tokens = [];
    let skip = kept - Math.min(kept, max);
    for (let i = w; i < bounds.length; i += 2) {
      this._pieces(t, bounds[i], bounds[i + 1], (id, at, len) => {
        if (skip > 0) return void skip--;
        const start = where(at), end = where(at + len);
        tokens.push({ id, text: text.slice(start, end), start, end });
      });
    }
    return { tokens, count };
  }

  /** Ids as text (lowercase; the unknown piece for id 0). */
  decode(ids, fn = 'Tokenizer.decode') {
    const ok = Array.isArray(ids) || (ArrayBuffer.isView(ids) && !(ids instanceof DataView));
    if (!ok) throw new Error(`${fn}: ids is ${describe(ids)}; expected an array of token ids`);
    let out = '';
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (!Number.isInteger(id) || id < 0 || id >= this.pieces.length) {
        throw new Error(`${fn}: ids[${i}] is ${typeof id === 'number' ? id : describe(id)}; expected a token id from 0 to ${this.pieces.length - 1}`);
      }
      out += this.pieces[id];
    }
    return out;
  }
}

/** A tokenizer for a vocabulary object (as stored in a weights file). */
function createTokenizer(vocabulary) {
  return new Tokenizer(vocabulary, 'createTokenizer');
}

module.exports = { createTokenizer, Tokenizer, normalise, splitWords, UNKNOWN_CHAR, BPE };
