'use strict';
// The shipped model's tokenizer (web/src/api/tokenizer.js) and the vocabulary learner behind it
// (scripts/corpus-bpe.js), on small texts: no engine needed.
const test = require('node:test');
const assert = require('node:assert/strict');
const { createTokenizer, splitWords, normalise } = require('../../web/src/api/tokenizer.js');
const { learnVocabulary } = require('../../scripts/corpus-bpe.js');
const { splitGloss, synsetLines, corpusText } = require('../../scripts/corpus.js');
const { referenceWord } = require('./tokenizer-reference.js');

const TEXT = 'the cat sat on the mat\nthe cat ate the rat\nthe rat sat on the mat\n';
const vocabulary = learnVocabulary(TEXT, { size: 40, minCharCount: 1 });
const tok = createTokenizer(vocabulary);

test('the vocabulary is the unknown piece, the alphabet in code-point order, then merges of frequent pairs', () => {
  assert.deepEqual(vocabulary.alphabet, ['\n', ' ', 'a', 'c', 'e', 'h', 'm', 'n', 'o', 'r', 's', 't']);
  assert.equal(tok.pieces[0], vocabulary.unknown);
  // 'a t' occurs 9 times (cat, sat, mat twice each, ate, rat twice), 'h e' 6, then 't he' 6,
  // ' the' 4 (three lines start with 'the'); then pairs seen twice, in the order of their ids
  assert.deepEqual(tok.pieces.slice(13), ['at', 'he', 'the', ' the', ' c', ' m', ' o', ' r', ' s', ' cat', ' mat', ' on', ' rat', ' sat']);
  assert.equal(tok.size, 27, 'it stops before size 40: no pair is left that occurs twice');
  assert.deepEqual(learnVocabulary(TEXT, { size: 40, minCharCount: 1 }), vocabulary, 'the same text gives the same vocabulary');
  assert.deepEqual(learnVocabulary(TEXT, { size: 20, minCharCount: 1 }).merges, vocabulary.merges.slice(0, 7), 'a smaller size stops earlier on the same path');
});

test('a sentence becomes word pieces whose texts join back into it exactly, capitals and all', () => {
  const text = 'The cat sat on the mat.';
  const { ids, tokens } = tok.encode(text);
  assert.deepEqual(tokens.map((t) => t.text), ['The', ' cat', ' sat', ' on', ' the', ' mat', '.']);
  assert.equal(tokens.map((t) => t.text).join(''), text);
  for (const t of tokens) assert.equal(text.slice(t.start, t.end), t.text);
  assert.deepEqual(ids, tokens.map((t) => t.id));
  assert.equal(tok.decode(ids), text.toLowerCase().replace('.', vocabulary.unknown));
  assert.deepEqual(Array.from(tok.ids(text)), ids, 'ids() is encode().ids');
});

test('characters outside the alphabet become the unknown piece, one per code point, spans kept', () => {
  const text = 'Zoë 😀 sat';
  const { tokens } = tok.encode(text);
  assert.equal(tokens.map((t) => t.text).join(''), text);
  const unknown = tokens.filter((t) => t.id === 0).map((t) => t.text);
  assert.deepEqual(unknown, ['Z', 'ë', '😀'], 'Z is not in this small alphabet; ë and the emoji (two code units) are one token each');
  assert.equal(tok.decode(tokens.map((t) => t.id)), `${vocabulary.unknown}o${vocabulary.unknown} ${vocabulary.unknown} sat`);
});

test('tabs and carriage returns read as spaces; runs of spaces keep one token per extra space', () => {
  const { tokens } = tok.encode('cat\tsat  on\r\nmat');
  assert.deepEqual(tokens.map((t) => t.text), ['c', 'at', '\tsat', ' ', ' on', '\r', '\n', 'm', 'at']);
  assert.equal(tokens[2].id, tok.encode(' sat').ids[0]);
  assert.deepEqual(splitWords(normalise('a  b').text), [[0, 1], [1, 2], [2, 4]]);
});

test('an empty text has no tokens; text that is not a string and bad ids are refused by name', () => {
  assert.deepEqual(tok.encode(''), { ids: [], tokens: [] });
  assert.throws(() => tok.encode(42), { message: 'Tokenizer.encode: text is a number; expected a string' });
  assert.throws(() => tok.decode([1, 27]), { message: 'Tokenizer.decode: ids[1] is 27; expected a token id from 0 to 26' });
  assert.throws(() => tok.decode('ab'), { message: 'Tokenizer.decode: ids is a string; expected an array of token ids' });
});

test('a vocabulary with a bad field is refused by name', () => {
  const bad = (patch) => ({ ...vocabulary, ...patch });
  assert.throws(() => createTokenizer(bad({ kind: 'wordpiece' })), { message: "createTokenizer: tokenizer.kind is \"wordpiece\"; expected 'bpe'" });
  assert.throws(() => createTokenizer(bad({ alphabet: ['a', 'a'] })), { message: 'createTokenizer: tokenizer.alphabet[1] is "a"; expected a single character, each once' });
  assert.throws(() => createTokenizer(bad({ merges: [[1, 99]] })), { message: 'createTokenizer: tokenizer.merges[0] is [1,99]; expected two ids of earlier pieces, from 1 to 12' });
  assert.throws(() => createTokenizer(null), /createTokenizer: tokenizer is null; expected/);
});

test('a WordNet gloss splits into definitions and example sentences, quotes and attributions dropped', () => {
  const gloss = 'an open clash; "the harder the conflict the more glorious the triumph"--Thomas Paine; "vengeance is mine; I will repay"';
  assert.deepEqual(splitGloss(gloss), {
    definitions: ['an open clash'],
    examples: ['the harder the conflict the more glorious the triumph', 'vengeance is mine; I will repay'],
  });
  const record = '00001930 03 n 02 physical_entity 0 thing 0 001 @ 00001740 n 0000 | an entity that has physical existence; "a rock is a thing"  ';
  assert.deepEqual(synsetLines(record), ['physical entity: an entity that has physical existence', 'a rock is a thing']);
  assert.deepEqual(synsetLines('  1 This software and database is being provided to you'), [], 'licence lines are skipped');
  assert.deepEqual(synsetLines('01 00 a 01 blue(p) 0 000 | the colour'), ['blue: the colour'], 'an adjective marker is dropped');
  assert.equal(corpusText([`${record}\n`, '']), 'physical entity: an entity that has physical existence\na rock is a thing\n');
});

// ---- time linear in the input (issue 27): merging with a heap, not by rescanning the word ----

const shipped = require('../../web/model/attention-lab-model.js');

/** Seeded letters of the shipped alphabet: a word with every kind of merge in it. */
function letters(n, seed) {
  let x = seed >>> 0;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out += 'etaoinshrdlucmfwypvbgkqjxz'[(x >>> 8) % (i % 7 === 0 ? 26 : 8)];
  }
  return out;
}

test('a word merges as the plain rule does, lowest rank first and leftmost among equals, at any length', () => {
  const vocab = shipped.tokenizer;
  const t = createTokenizer(vocab);
  for (const [n, seed] of [[1, 1], [2, 2], [7, 3], [40, 4], [300, 5], [2000, 6]]) {
    const word = letters(n, seed);
    assert.deepEqual(t.encode(word).ids, referenceWord(vocab, word), `${n} letters`);
  }
  for (const word of ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'abababababababababababababababab', 'ssssssssst', 'thethethethethe']) {
    assert.deepEqual(t.encode(word).ids, referenceWord(vocab, word), word);
  }
});

test('tokenizing a word takes time linear in its length: merge lookups counted, and CPU time of n and 4n letters', () => {
  const run = (word) => {
    const t = createTokenizer(shipped.tokenizer);  // fresh: no cached words
    let lookups = 0;
    const rank = t._rank;
    t._rank = { size: rank.size, get: (key) => (lookups++, rank.get(key)) };
    const started = process.cpuUsage();
    const ids = t.ids(word);
    const used = process.cpuUsage(started);
    return { lookups, cpu: used.user + used.system, count: ids.length };
  };
  const n = 8000;
  const small = letters(n, 9), large = letters(4 * n, 9);
  const a = run(small), b = run(large);
  // every pair is looked up once, and each merge looks up its two new neighbours: at most 3n
  assert.ok(a.lookups <= 3 * n && b.lookups <= 3 * 4 * n, `${a.lookups} and ${b.lookups} lookups`);
  assert.ok(b.lookups / a.lookups < 4.5, `4x the letters took ${(b.lookups / a.lookups).toFixed(2)}x the lookups`);
  // CPU time (not wall time: waiting for a core is not counted), best of three: n log n gives
  // about 4.4x, the quadratic merge gave 16x; 10 leaves room for a busy machine
  const best = (word) => Math.min(...[0, 1, 2].map(() => run(word).cpu));
  const ratio = best(large) / best(small);
  assert.ok(ratio < 10, `4x the letters took ${ratio.toFixed(1)}x the CPU time`);
});

test('with truncate only the last tokens are built: the same tokens and count as tokenizing all of it', () => {
  const t = createTokenizer(shipped.tokenizer);
  const text = `${letters(5000, 3)} the cat sat on the mat. ${letters(300, 4)} and then`;
  const all = t.encode(text).tokens;
  for (const max of [1, 3, 64, all.length - 1, all.length, all.length + 5]) {
    const cut = t.last(text, max);
    assert.equal(cut.count, all.length);
    assert.deepEqual(cut.tokens, all.slice(Math.max(0, all.length - max)), `max ${max}`);
  }
  assert.deepEqual(t.last('', 4), { tokens: [], count: 0 });
  assert.throws(() => t.last(3, 4), { message: 'Tokenizer.last: text is a number; expected a string' });
});
