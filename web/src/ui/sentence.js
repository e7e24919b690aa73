'use strict';
// The learner's own sentence for the stepper: the limits and the message past them, DOM-free.

const MIN_WORDS = 2;
const MAX_WORDS = 12;
const MAX_WORD_LENGTH = 40;

/**
 * @returns { tokens: string[] } or { error: string } (a sentence for the reader)
 */
function parseSentence(text) {
  const tokens = String(text || '').trim().split(/\s+/).filter(Boolean);
  if (tokens.length < MIN_WORDS || tokens.length > MAX_WORDS) {
    return { error: `Type ${MIN_WORDS} to ${MAX_WORDS} words separated by spaces (you typed ${tokens.length}).` };
  }
  const long = tokens.find((t) => t.length > MAX_WORD_LENGTH);
  if (long) return { error: `"${long.slice(0, 12)}\u2026" is ${long.length} characters long; each word may have at most ${MAX_WORD_LENGTH}.` };
  return { tokens };
}

module.exports = { parseSentence, MIN_WORDS, MAX_WORDS, MAX_WORD_LENGTH };
