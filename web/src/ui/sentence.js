'use strict';
// The learner's own sentence (stepper and heatmap): the limits, the message past them, and
// what the widget says once it switches. DOM-free; kit/sentence-input.js draws it.

const { counted } = require('./format.js');

const MIN_WORDS = 2;
const MAX_WORDS = 12;
const MAX_WORD_LENGTH = 40;

/**
 * @returns { tokens: string[] } or { error: string } (a sentence for the reader)
 */
function parseSentence(text) {
  const tokens = String(text || '').trim().split(/\s+/).filter(Boolean);
  if (tokens.length < MIN_WORDS || tokens.length > MAX_WORDS) {
    return { error: `Type ${MIN_WORDS} to ${MAX_WORDS} words separated by spaces (your text has ${counted(tokens.length, 'word')}).` };
  }
  const long = tokens.find((t) => t.length > MAX_WORD_LENGTH);
  if (long) return { error: `"${long.slice(0, 12)}\u2026" is ${long.length} characters long; each word may have at most ${MAX_WORD_LENGTH}.` };
  return { tokens };
}

/** What the widget says after switching: to the reader's own words, or back to the author's. */
function sentenceNote(own) {
  return own ? 'Using your sentence with made-up vectors, drawn from a seed made of the whole sentence: the same sentence always gets the same numbers, ' +
    'each word (a repeated one too) gets a random vector of its own, and none of them comes from a trained model.'
    : 'Back to the original sentence.';
}

module.exports = { parseSentence, sentenceNote, MIN_WORDS, MAX_WORDS, MAX_WORD_LENGTH };
