'use strict';
// Learns the shipped model's vocabulary (web/src/api/tokenizer.js says how it is read) from the
// training text: byte-pair encoding over the tokenizer's own words.
//
//   1. The text is read as the tokenizer reads it (normalise: lowercase, one character per
//      code point) and split into its words (splitWords).
//   2. The alphabet: every character that occurs at least minCharCount times, in code-point
//      order. Rarer characters stay unknown (id 0), as they will for a learner's text.
//   3. Merges: repeatedly, the adjacent pair of pieces that occurs most often over all words
//      (each word weighted by its count) becomes a new piece; ties go to the pair of smaller
//      ids. Stops at `size` pieces or when no pair occurs twice.
// Deterministic: the same text and settings give the same vocabulary.

const { normalise, splitWords, UNKNOWN_CHAR, BPE } = require('../web/src/api/tokenizer.js');

const KEY = 65536;

/** Every word of the normalised text and how often it occurs, in first-seen order. */
function wordCounts(text) {
  const counts = new Map();
  for (const [a, b] of splitWords(text)) {
    const w = text.slice(a, b);
    counts.set(w, (counts.get(w) || 0) + 1);
  }
  return counts;
}

/**
 * @param text the training text (raw: it is normalised here)
 * @param options { size: pieces in all (unknown + alphabet + merges), minCharCount = 20, unknown = '\uFFFD' }
 * @returns the vocabulary { kind, unknown, alphabet, merges }
 */
function learnVocabulary(text, { size, minCharCount = 20, unknown = '\uFFFD' }) {
  const norm = normalise(text).text;
  const charCounts = new Map();
  for (const c of norm) charCounts.set(c, (charCounts.get(c) || 0) + 1);
  const alphabet = [...charCounts.keys()]
    .filter((c) => c !== UNKNOWN_CHAR && charCounts.get(c) >= minCharCount)
    .sort((a, b) => a.codePointAt(0) - b.codePointAt(0));
  if (1 + alphabet.length > size) throw new Error(`learnVocabulary: size = ${size}; expected at least ${1 + alphabet.length} (unknown + alphabet)`);
  const charId = new Map(alphabet.map((c, i) => [c, i + 1]));

  // words[i]: its piece ids (changed in place as merges apply) and its count
  const words = [];
  for (const [w, count] of wordCounts(norm)) words.push({ ids: Array.from(w, (c) => charId.get(c) || 0), count });

  // pair -> total count, and pair -> the words that hold it (a superset: entries go stale)
  const pairCount = new Map();
  const pairWords = new Map();
  const addPairs = (wi, sign) => {
    const { ids, count } = words[wi];
    for (let i = 0; i + 1 < ids.length; i++) {
      if (ids[i] === 0 || ids[i + 1] === 0) continue;  // the unknown piece never merges
      const key = ids[i] * KEY + ids[i + 1];
      pairCount.set(key, (pairCount.get(key) || 0) + sign * count);
      if (sign > 0) {
        let set = pairWords.get(key);
        if (!set) pairWords.set(key, (set = new Set()));
        set.add(wi);
      }
    }
  };
  words.forEach((_, wi) => addPairs(wi, 1));

  const merges = [];
  let next = 1 + alphabet.length;
  while (next < size) {
    let bestKey = -1, bestCount = 1;
    for (const [key, count] of pairCount) {
      if (count > bestCount || (count === bestCount && bestKey >= 0 && key < bestKey)) {
        bestKey = key;
        bestCount = count;
      }
    }
    if (bestKey < 0) break;
    const a = Math.floor(bestKey / KEY), b = bestKey % KEY;
    merges.push([a, b]);
    for (const wi of [...pairWords.get(bestKey)].sort((x, y) => x - y)) {
      const w = words[wi];
      let has = false;
      for (let i = 0; i + 1 < w.ids.length; i++) if (w.ids[i] === a && w.ids[i + 1] === b) { has = true; break; }
      if (!has) continue;
      addPairs(wi, -1);
      const ids = [];
      for (let i = 0; i < w.ids.length; i++) {
        if (i + 1 < w.ids.length && w.ids[i] === a && w.ids[i + 1] === b) {
          ids.push(next);
          i++;
        } else {
          ids.push(w.ids[i]);
        }
      }
      w.ids = ids;
      addPairs(wi, 1);
    }
    pairCount.delete(bestKey);
    pairWords.delete(bestKey);
    next++;
  }
  return { kind: BPE, unknown, alphabet, merges };
}

module.exports = { learnVocabulary, wordCounts };
