'use strict';
// Why each tensor of an attention layer has its shape, for the shape tracer's quiz: a hint
// for a first wrong answer (the rule, no sizes) and the rule with the answer for the reveal
// (the shape in letters, then in the engine's numbers). The sizes come from the engine's
// traceShapes; this only words them. DOM-free.

const { shape: brackets } = require('./format.js');

// Per step id: the shape in letters (H: the head axis, present when h > 1), the hint and the
// reason. Neither names another step's shape in numbers: in the quiz that may be a question still open.
const RULES = {
  ids: { letters: 'batch, n', hint: 'There is one token id for each token of each sequence in the batch.',
    why: 'one id for each of the n tokens of each of the batch sequences.' },
  X: { letters: 'batch, n, d_model', hint: 'The embedding looks each token id up as one vector: how wide is it?',
    why: 'each token id is looked up as one d_model-wide vector.' },
  Wq: { letters: 'd_model, h\u00b7d\u2096', hint: 'A projection takes one d_model-wide vector in (its rows) and gives the queries of every head out (its columns).',
    why: 'it takes a d_model-wide vector in (rows) and gives the query of every head, d\u2096 wide each, out (columns).' },
  Wk: { letters: 'd_model, h\u00b7d\u2096', hint: 'A projection takes one d_model-wide vector in (its rows) and gives the keys of every head out (its columns).',
    why: 'it takes a d_model-wide vector in (rows) and gives the key of every head, d\u2096 wide each, out (columns).' },
  Wv: { letters: 'd_model, h\u00b7d\u1d65', hint: 'A projection takes one d_model-wide vector in (its rows) and gives the values of every head out (its columns); values have width d\u1d65.',
    why: 'it takes a d_model-wide vector in (rows) and gives the value of every head, d\u1d65 wide each, out (columns).' },
  Q: { letters: 'batch, H n, d\u2096', hint: 'X times W_Q: a matrix product keeps the leading axes of X, sums over d_model, and leaves the columns of W_Q.',
    why: 'X W_Q keeps the batch and the tokens, sums over d_model and leaves one d\u2096-wide query per token.' },
  K: { letters: 'batch, H n, d\u2096', hint: 'X times W_K: a matrix product keeps the leading axes of X, sums over d_model, and leaves the columns of W_K.',
    why: 'X W_K keeps the batch and the tokens, sums over d_model and leaves one d\u2096-wide key per token.' },
  V: { letters: 'batch, H n, d\u1d65', hint: 'X times W_V: a matrix product keeps the leading axes of X, sums over d_model, and leaves the columns of W_V.',
    why: 'X W_V keeps the batch and the tokens, sums over d_model and leaves one d\u1d65-wide value per token.' },
  Kt: { letters: 'batch, H d\u2096, n', hint: 'Transposing K swaps its last two axes and leaves the others alone.',
    why: 'transposing swaps the last two axes of K.' },
  scores: { letters: 'batch, H n, n', hint: 'Q times K\u1d40: a batched matrix product keeps the leading axes, and [a, b] times [b, c] is [a, c].',
    why: 'Q K\u1d40 keeps the leading axes, sums over the d\u2096 that Q and K\u1d40 share, and leaves one score for each query and each key.' },
  weights: { letters: 'batch, H n, n', hint: 'The softmax rescales each row of the scores so that it sums to 1: does it add or remove any number?',
    why: 'the softmax rescales each row of the scores to sum to 1 and keeps their shape.' },
  heads: { letters: 'batch, H n, d\u1d65', hint: 'The weights times V: [a, b] times [b, c] is [a, c], and here b is the number of keys.',
    why: 'the weights times V sum over the n keys and leave one d\u1d65-wide vector per query.' },
  concat: { letters: 'batch, n, h\u00b7d\u1d65', hint: 'The head axis moves back after the tokens, then each token\'s h head outputs are laid side by side.',
    why: 'the head axis moves back after the tokens and the h outputs of width d\u1d65 go side by side.' },
  Wo: { letters: 'h\u00b7d\u1d65, d_model', hint: 'W_O takes the merged heads in (its rows) and gives the model width out (its columns).',
    why: 'it takes the h\u00b7d\u1d65 merged numbers in (rows) and gives d_model out (columns).' },
  output: { letters: 'batch, n, d_model', hint: 'The merged heads times W_O: the product keeps the leading axes and leaves the columns of W_O.',
    why: 'the merged heads times W_O keep the batch and the tokens and give back d_model per token.' },
};

// The projections whose output is split into heads.
const SPLIT = ['Q', 'K', 'V'];

/**
 * @param step one of traceShapes' steps ({ id, shape }); heads the layer's h
 * @returns { hint, why }: why is "[batch, n, n] = [32, 50, 50]: Q K\u1d40 keeps ..." with the
 *   letters for one head when h = 1
 */
function shapeRule(step, heads) {
  const rule = RULES[step.id];
  if (!rule) throw new Error(`shapeRule: no rule for step "${step.id}"; expected one of ${Object.keys(RULES).join(', ')}`);
  // One head: no head axis, and h\u00b7d\u1d65 is just d\u1d65.
  const one = (text) => (heads > 1 ? text.replace('H ', 'h, ') : text.replace('H ', '').replace(/h\u00b7/g, ''));
  const split = heads > 1 && SPLIT.includes(step.id) ? ' Its columns are then cut into h slices, one per head, and the head axis moves next to the batch.' : '';
  return { hint: `${one(rule.hint)}${split}`, why: `[${one(rule.letters)}] = ${brackets(step.shape)}: ${one(rule.why)}${split}` };
}

module.exports = { shapeRule, RULE_IDS: Object.keys(RULES) };
