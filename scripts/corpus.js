'use strict';
// The shipped model's training text, extracted from WordNet 3.0 (Debian package wordnet-base,
// /usr/share/wordnet; licence: README, "The small trained model"). Deterministic: the same
// files give the same text, byte for byte.
//
// What it keeps, for each synset of data.noun, data.verb, data.adj and data.adv (in that
// order, each file in its own order; the licence lines at the top of each file, which start
// with spaces, are skipped):
//   one line "<first lemma>: <definitions>", the lemma with underscores read as spaces and
//   an adjective's position marker ("(a)", "(p)", "(ip)") dropped, the definitions being the
//   gloss's unquoted parts joined by "; ";
//   then one line per example sentence of the gloss (its quoted parts), without the quotes and
//   without an attribution that follows one ('"..."--Thomas Paine').
// Lines end with "\n"; spaces inside a line are collapsed to one. Nothing else is changed
// (case included: the tokenizer reads text lowercased).

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const WORDNET_DIR = '/usr/share/wordnet';
const FILES = ['data.noun', 'data.verb', 'data.adj', 'data.adv'];

/** The lemma as text: underscores as spaces, an adjective marker such as "(p)" dropped. */
function lemmaText(word) {
  return word.replace(/\((a|p|ip)\)$/, '').replace(/_/g, ' ');
}

/**
 * A gloss split into its definitions and its example sentences. Examples are the quoted
 * parts; a quote may hold "; ", and may be followed by "--Attribution" up to the next "; ".
 */
function splitGloss(gloss) {
  const definitions = [], examples = [];
  let i = 0;
  while (i < gloss.length) {
    while (gloss[i] === ' ' || gloss[i] === ';') i++;
    if (i >= gloss.length) break;
    if (gloss[i] === '"') {
      const close = gloss.indexOf('"', i + 1);
      const end = close < 0 ? gloss.length : close;
      examples.push(gloss.slice(i + 1, end));
      const next = gloss.indexOf('; ', end);
      i = next < 0 ? gloss.length : next + 2;
    } else {
      const next = gloss.indexOf('; ', i);
      const end = next < 0 ? gloss.length : next;
      definitions.push(gloss.slice(i, end));
      i = end + 2;
    }
  }
  const tidy = (s) => s.replace(/\s+/g, ' ').trim();
  return { definitions: definitions.map(tidy).filter(Boolean), examples: examples.map(tidy).filter(Boolean) };
}

/** The lines of one synset record of a WordNet data file, or [] for a licence line. */
function synsetLines(record) {
  if (record.startsWith(' ') || record.trim() === '') return [];
  const bar = record.indexOf(' | ');
  if (bar < 0) return [];
  // offset lex_filenum ss_type w_cnt(hex) word lex_id ...
  const fields = record.slice(0, bar).split(' ');
  const lemma = lemmaText(fields[4]);
  const { definitions, examples } = splitGloss(record.slice(bar + 3));
  if (definitions.length === 0 && examples.length === 0) return [];
  const head = definitions.length ? `${lemma}: ${definitions.join('; ')}` : lemma;
  return [head, ...examples];
}

/** The training text of the data files' contents, in FILES order. */
function corpusText(contents) {
  const lines = [];
  for (const content of contents) {
    for (const record of content.split('\n')) lines.push(...synsetLines(record));
  }
  return `${lines.join('\n')}\n`;
}

/** The data files of a WordNet folder: [{ name, bytes }]. */
function readSources(dir = WORDNET_DIR) {
  return FILES.map((name) => {
    const file = path.join(dir, name);
    if (!fs.existsSync(file)) {
      throw new Error(`corpus: ${file} is missing; expected WordNet's data files (Debian package wordnet-base: npm run train:model installs it as root, or apt-get install wordnet-base)`);
    }
    return { name, bytes: fs.readFileSync(file) };
  });
}

/** The SHA-256 of bytes or text, in hex. */
function sha256(data) {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** The corpus of a WordNet folder, with each source file's hash: { text, sources: [{ name, sha256 }] }. */
function buildCorpus(dir = WORDNET_DIR) {
  const files = readSources(dir);
  return {
    text: corpusText(files.map((f) => f.bytes.toString('utf8'))),
    sources: files.map((f) => ({ name: f.name, sha256: sha256(f.bytes) })),
  };
}

module.exports = { buildCorpus, corpusText, splitGloss, synsetLines, lemmaText, sha256, WORDNET_DIR, FILES };

if (require.main === module) {
  const { text, sources } = buildCorpus(process.argv[2]);
  process.stdout.write(text);
  console.error(`corpus: ${text.length} characters, ${text.split('\n').length - 1} lines from ${sources.map((s) => s.name).join(', ')}`);
}
