'use strict';
// The shipped tokenizer's rules written plainly, apart from web/src/api/tokenizer.js, for the
// tests and the tokenizer fuzz (scripts/fuzz-tokenizer.js) to check it against: quadratic
// merging, a character loop for the words, no regular expressions.

const UNKNOWN = '\u0000';  // stands for any code point the vocabulary cannot read

/** Each code point lowercased (one code unit, or unknown), tabs and carriage returns as spaces. */
function referenceNormalise(text) {
  const out = [];
  for (const cp of text) {
    const lower = cp.toLowerCase();
    const c = lower.length === 1 ? lower : UNKNOWN;
    out.push(c === '\t' || c === '\r' ? ' ' : c);
  }
  return out;
}

const kind = (c) => (c >= 'a' && c <= 'z' ? 'letter' : c >= '0' && c <= '9' ? 'digit' : c === ' ' ? 'space' : c === '\n' ? 'newline' : 'other');

/**
 * The words of normalised characters: a letter run or a digit run, one other character, each
 * with the space just before it; a newline; a space with no such word after it.
 */
function referenceWords(chars) {
  const words = [];
  let i = 0;
  while (i < chars.length) {
    const start = i;
    if (kind(chars[i]) === 'space' && i + 1 < chars.length && ['letter', 'digit', 'other'].includes(kind(chars[i + 1]))) i++;
    const k = kind(chars[i]);
    if (k === 'letter' || k === 'digit') {
      while (i < chars.length && kind(chars[i]) === k) i++;
    } else {
      i++;
    }
    words.push(chars.slice(start, i));
  }
  return words;
}

/** One word's ids: the lowest-ranked adjacent pair merged first, leftmost among equals. */
function referenceWord(vocab, word) {
  const charIds = new Map(vocab.alphabet.map((c, i) => [c, i + 1]));
  const base = 1 + vocab.alphabet.length;
  const rank = new Map(vocab.merges.map(([a, b], i) => [`${a},${b}`, i]));
  let ids = Array.from(word, (c) => charIds.get(c) || 0);
  for (;;) {
    let best = Infinity, at = -1;
    for (let i = 0; i + 1 < ids.length; i++) {
      const r = rank.get(`${ids[i]},${ids[i + 1]}`);
      if (r !== undefined && r < best) [best, at] = [r, i];
    }
    if (at < 0) return ids;
    ids = [...ids.slice(0, at), base + best, ...ids.slice(at + 2)];
  }
}

/** A text's ids by the plain rules. */
function referenceIds(vocab, text) {
  return referenceWords(referenceNormalise(text)).flatMap((w) => referenceWord(vocab, w));
}

module.exports = { referenceNormalise, referenceWords, referenceWord, referenceIds };
