'use strict';
// The attention lab's four steps as data: title, formula, which parts of the vectors to
// show, and the narration built from the engine's numbers for the chosen query.

const { num, vector } = require('./format.js');

const STEPS = [
  {
    id: 'project',
    title: 'Project',
    formula: 'project',
    narrate: ({ token, q, k, v }) =>
      `"${token}" is multiplied by three matrices: its query ${vector(q, 2)} asks what to look for, ` +
      `its key ${vector(k, 2)} says what it offers, its value ${vector(v, 2)} is what it will pass on.`,
  },
  {
    id: 'score',
    title: 'Score',
    formula: 'score',
    narrate: ({ token, tokens, scores, best }) =>
      `The query of "${token}" is compared with every key by a dot product. ` +
      `Scores: ${tokens.map((t, j) => `${t} ${num(scores[j], 2)}`).join(', ')}. "${tokens[best]}" matches best.`,
  },
  {
    id: 'softmax',
    title: 'Scale and softmax',
    formula: 'softmax',
    narrate: ({ token, tokens, weights, best, scale, maskedCount }) =>
      `Dividing by \u221ad\u2096 (times ${num(scale, 4)}) and taking the softmax turns the scores into weights that sum to 1` +
      `${maskedCount ? ` (${maskedCount} masked ${maskedCount === 1 ? 'key gets' : 'keys get'} 0)` : ''}. ` +
      `"${token}" now puts ${num(weights[best] * 100, 1)}% of its attention on "${tokens[best]}".`,
  },
  {
    id: 'sum',
    title: 'Weighted sum',
    formula: 'sum',
    narrate: ({ token, output }) =>
      `The new vector for "${token}" is the weights times the values, added up: ${vector(output, 3)}. ` +
      'It is mostly the value of the token it attended to most, blended with the rest.',
  },
];

/** Index of the largest entry. */
function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

module.exports = { STEPS, argmax };
