'use strict';
// lab.headSummary(attentions, options): for each head of a model's attention (a real model's,
// pasted by a course author, or one the project trains), the scores that tell head types
// apart. The engine checks that the patterns are attention weights and computes every score
// (cpp/src/patterns.cpp, cpp/src/head_scores.cpp); this side checks JavaScript types and
// structure, turns tokens into ids, and words the engine's findings.

const { Fields } = require('./options.js');
const { Input } = require('./tensor.js');
const { unwrap } = require('./call.js');

/** Token ids for the engine's prefix-matching score: equal strings get equal ids. */
function tokenIds(tokens) {
  const ids = new Map();
  const data = new Float32Array(tokens.length);
  tokens.forEach((t, i) => {
    if (!ids.has(t)) ids.set(t, ids.size);
    data[i] = ids.get(t);
  });
  return new Input([tokens.length], data, tokens.length);
}

/**
 * Whether a token is a tokenizer's special token rather than text: BERT's [CLS], [SEP], [PAD],
 * [MASK], [UNK]; RoBERTa's and T5's <s>, </s>, <pad>, <unk>, <mask>; GPT-2's <|endoftext|>.
 * The one rule for the special-token score and for the widget's naming of such tokens.
 */
function isSpecialToken(token) {
  return /^(\[[A-Z]{2,5}\]|<\/?[a-z]{1,5}>|<\|[a-z_]{2,20}\|>)$/.test(token);
}

/** The engine's special-token flags for the keys, or undefined when none after the first is special. */
function specialFlags(tokens) {
  const flags = Float32Array.from(tokens, (t) => (isSpecialToken(t) ? 1 : 0));
  return flags.some((f, j) => j > 0 && f) ? new Input([tokens.length], flags, tokens.length) : undefined;
}

/** A number in a message: six significant digits, tiny ones as 1e-6. */
function short(x) {
  if (!Number.isFinite(x)) return String(x);
  const v = +x.toPrecision(6);
  return v !== 0 && Math.abs(v) < 1e-4 ? v.toExponential() : String(v);
}

/**
 * The sentence for a fault the engine found in the patterns.
 * @param p { fault: 'not-finite' | 'negative' | 'future-weight' | 'row-sum', value, tolerance, ... }
 * @param where { row: text naming p's row, entry: text naming p's entry }
 */
function patternProblemText(p, where) {
  switch (p.fault) {
    case 'not-finite': return `${where.entry} is ${short(p.value)}; expected weights from 0 to 1`;
    case 'negative': return `${where.entry} is ${short(p.value)}; expected weights of 0 or more`;
    case 'future-weight':
      return `${where.entry} is ${short(p.value)}, weight on a later key, but the patterns are causal; expected 0 (at most ${short(p.tolerance)})`;
    default:
      return `${where.row} sums to ${short(p.value)}; expected 1 within ${short(p.tolerance)} (or all 0: a row that sees no key)`;
  }
}

/**
 * lab.headSummary's body: per head, mean row entropy (nats), previous-token, first-token (sink),
 * diagonal, next-token and special-token scores, prefix matching (on repeated tokens) and prefix
 * matching apart (the same on keys two or more before the query, which a previous-token or self
 * head cannot earn); null where a score is not defined or does not apply (the next token under a
 * causal mask, prefix matching without one, special tokens when no key after the first is one).
 * @param attentions [layers, heads, queries, keys] or [heads, queries, keys], rows summing to 1
 * @param o { tokens?: the keys' tokens (prefix matching), queryTokens?: cross-attention (only
 *   the entropy is defined), causal?: no weight may sit on later keys, decimals?: the weights
 *   were rounded to this many decimals (a wider row-sum tolerance) }, as the reader made them
 * @returns [{ layer, head, entropy, previousToken, firstToken, diagonal, prefixMatching, prefixMatchingApart, nextToken, specialTokens }]
 * @throws Error naming the entry or row that is not attention weights; its `problem` is
 *   { fault, layer, head, row, column, value, tolerance }
 */
function headSummary(e, [t, o]) {
  const fn = 'headSummary';
  const rank = t.shape.length;
  if (rank !== 3 && rank !== 4) {
    throw new Error(`${fn}: attentions has shape [${t.shape.join(', ')}]; expected [layers, heads, queries, keys] or [heads, queries, keys]`);
  }
  const [layers, heads, m, n] = rank === 4 ? t.shape : [1, ...t.shape];
  const { tokens, queryTokens, causal, decimals } = o;
  if (tokens && tokens.length !== n) throw new Error(`${fn}: tokens has ${tokens.length} entries but attentions has ${n} keys (its last axis); expected one token per key`);
  if (queryTokens && queryTokens.length !== m) {
    throw new Error(`${fn}: queryTokens has ${queryTokens.length} entries but attentions has ${m} queries (its second-last axis); expected one token per query`);
  }
  if (causal && queryTokens) throw new Error(`${fn}: causal is true with queryTokens; expected causal only for self-attention`);
  const spec = new Fields();
  spec.attentions = new Input([layers * heads, m, n], t.data, t.size);
  spec.self = !queryTokens;
  spec.causal = causal;
  spec.decimals = decimals;
  spec.tokens = tokens && !queryTokens ? tokenIds(tokens) : undefined;
  spec.special = tokens && !queryTokens ? specialFlags(tokens) : undefined;
  const raw = unwrap(e.core.headSummary(spec));
  if (raw.problem) {
    const { pattern, ...rest } = raw.problem;
    const problem = { ...rest, layer: Math.floor(pattern / heads), head: pattern % heads };
    const lead = rank === 4 ? `[${problem.layer}][${problem.head}]` : `[${problem.head}]`;
    const err = new Error(`${fn}: ${patternProblemText(problem, {
      row: `attentions${lead}[${problem.row}]`, entry: `attentions${lead}[${problem.row}][${problem.column}]` })}`);
    err.problem = problem;
    throw err;
  }
  return raw.heads.map((s, k) => ({ layer: Math.floor(k / heads), head: k % heads, ...s }));
}

module.exports = { headSummary, patternProblemText, isSpecialToken };
