#!/usr/bin/env node
'use strict';
// Fuzzes the shipped model's tokenizer (web/src/api/tokenizer.js), which is JavaScript and so
// outside the libFuzzer harness: seeded random texts mixing the model's alphabet, capitals,
// digits, spaces, tabs, carriage returns, newlines, punctuation, accented and astral code
// points and lone surrogates, each checked against the plain rules of
// tests/node/tokenizer-reference.js:
//   - the ids are the reference's (words split and merged by the plain rules);
//   - the tokens' texts join back into the text, each the slice its span names, ids() the same;
//   - last(text, max) is the last max tokens with the full count.
//
//   node scripts/fuzz-tokenizer.js [--runs N] [--seed S]
//
// Prints the seed, the runs and the time; on a failure, the text (as JSON) and what differed,
// and exits 1.

const assert = require('assert/strict');
const { createTokenizer } = require('../web/src/api/tokenizer.js');
const shipped = require('../web/model/attention-lab-model.js');
const { referenceIds } = require('../tests/node/tokenizer-reference.js');

function parseArgs(argv) {
  const args = { runs: 20000, seed: Date.now() % 2147483647 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') args.runs = Number(argv[++i]);
    else if (argv[i] === '--seed') args.seed = Number(argv[++i]);
    else throw new Error(`fuzz-tokenizer.js: unknown argument ${argv[i]}; expected --runs N [--seed S]`);
  }
  for (const k of ['runs', 'seed']) {
    if (!(Number.isSafeInteger(args[k]) && args[k] >= 0)) throw new Error(`fuzz-tokenizer.js: --${k} expects a whole number >= 0`);
  }
  return args;
}

// Pieces a text is drawn from: weighted towards what the vocabulary merges.
const PIECES = [
  ...'etaoinshrdlucmfwypvbgkqjxz', ...'ETAOINSHRDLU', ...'0123456789', ' ', ' ', ' ', '  ', '\t', '\r', '\n', '\r\n',
  ...'.,;:!?\'"()-', 'é', 'Ë', 'ß', 'İ', 'ﬁ', '\u0301', '😀', '𝔸', '\ud800', '\udfff', '\u0000', '\u00a0', ' the', ' cat', 'ing', 'tion',
];

function textOf(random) {
  const n = Math.floor(random() ** 3 * 400);
  let out = '';
  for (let i = 0; i < n; i++) out += PIECES[Math.floor(random() * PIECES.length)];
  return out;
}

function check(t, vocab, text, random) {
  const { ids, tokens } = t.encode(text);
  assert.deepEqual(ids, referenceIds(vocab, text), 'ids differ from the plain rules');
  assert.equal(tokens.map((x) => x.text).join(''), text, 'the tokens do not join back into the text');
  for (const x of tokens) assert.equal(text.slice(x.start, x.end), x.text, `a token's span does not name its text (${x.start}-${x.end})`);
  assert.deepEqual(Array.from(t.ids(text)), ids, 'ids() differs from encode().ids');
  const max = 1 + Math.floor(random() * (tokens.length + 2));
  const cut = t.last(text, max);
  assert.equal(cut.count, tokens.length, 'last() counts differently');
  assert.deepEqual(cut.tokens, tokens.slice(Math.max(0, tokens.length - max)), `last(text, ${max}) is not the last tokens`);
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  let x = args.seed >>> 0 || 1;
  const random = () => {  // xorshift32, so a seed replays its texts
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x / 4294967296;
  };
  const vocab = shipped.tokenizer;
  const t = createTokenizer(vocab);
  const start = process.hrtime.bigint();
  for (let run = 0; run < args.runs; run++) {
    const text = textOf(random);
    try {
      check(t, vocab, text, random);
    } catch (e) {
      console.error(`fuzz-tokenizer: run ${run} (seed ${args.seed}) failed: ${e.message}\ntext: ${JSON.stringify(text)}`);
      process.exit(1);
    }
  }
  const s = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`fuzz-tokenizer: ${args.runs} texts (seed ${args.seed}) in ${s.toFixed(1)} s, no failure`);
}

if (require.main === module) main();
module.exports = { textOf, check };
