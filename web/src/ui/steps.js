'use strict';
// The attention lab's four steps as data: title, formula, which parts of the vectors to
// show, and the narration built from the engine's numbers for the chosen query. The
// sentences about a row of weights are chosen from the numbers themselves: a clear winner,
// a tie, a near-tie, or a spread-out row, so the narration never claims "mostly" falsely.

const { num, fixed, vector } = require('./format.js');

// Two weights that print the same at two decimals tie; within NEAR_TIE they nearly tie.
const NEAR_TIE = 0.05;
// A row is "mostly" one key only when that key holds at least this share.
const MOSTLY = 0.5;

const quote = (t) => `"${t}"`;

/** "a", "a and b", "a, b and c" */
function listing(items) {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** Indices sorted by value, largest first (stable, so equal values keep sentence order). */
function ranked(values) {
  return values.map((v, i) => i).sort((a, b) => values[b] - values[a] || a - b);
}

/**
 * How one row of weights is shaped.
 * @returns { kind: 'mostly' | 'tie' | 'near-tie' | 'spread', top: number[] (indices), text }
 *   text reads like `"arrow" (0.80)`, `time, like and arrow tie at 0.21`, or
 *   `spread over time 0.46, like 0.27, an 0.12, ...`.
 */
function describeWeights(tokens, weights) {
  const order = ranked(weights).filter((j) => weights[j] > 0);
  if (!order.length) return { kind: 'spread', top: [], text: 'no key at all (every key is masked)' };
  const best = order[0];
  const shown = (x) => fixed(x, 2);
  const tied = order.filter((j) => shown(weights[j]) === shown(weights[best]));
  if (tied.length > 1) {
    return { kind: 'tie', top: tied, text: `${listing(tied.map((j) => quote(tokens[j])))} tie at ${shown(weights[best])}` };
  }
  const second = order[1];
  if (second !== undefined && weights[best] - weights[second] <= NEAR_TIE) {
    return {
      kind: 'near-tie',
      top: [best, second],
      text: `${quote(tokens[best])} (${shown(weights[best])}) and ${quote(tokens[second])} (${shown(weights[second])}) nearly tie`,
    };
  }
  if (weights[best] >= MOSTLY) return { kind: 'mostly', top: [best], text: `${quote(tokens[best])} (${shown(weights[best])})` };
  // Spread out: name keys until they cover 90% of the weight (at most four), then "...".
  const named = [];
  let covered = 0;
  for (const j of order) {
    if (named.length === 4 || covered >= 0.9) break;
    named.push(j);
    covered += weights[j];
  }
  const more = order.length > named.length ? ', \u2026' : '';
  return { kind: 'spread', top: named, text: `spread over ${named.map((j) => `${tokens[j]} ${shown(weights[j])}`).join(', ')}${more}` };
}

/** Which keys score highest, with ties (equal at two decimals) named together. */
function describeScores(tokens, scores) {
  const order = ranked(scores).filter((j) => scores[j] !== -Infinity);
  if (!order.length) return 'Every key is masked.';
  const shown = (x) => num(x, 2);
  const tied = order.filter((j) => shown(scores[j]) === shown(scores[order[0]]));
  return tied.length > 1
    ? `${listing(tied.map((j) => quote(tokens[j])))} tie for the best match at ${shown(scores[order[0]])}.`
    : `${quote(tokens[order[0]])} matches best.`;
}

function softmaxSentence(token, shape) {
  switch (shape.kind) {
    case 'mostly': return `${quote(token)} now puts most of its attention on ${shape.text}.`;
    case 'tie': return `For ${quote(token)}, ${shape.text}: no single key wins.`;
    case 'near-tie': return `For ${quote(token)}, ${shape.text}.`;
    default: return `${quote(token)} has no clear favourite: its attention is ${shape.text}.`;
  }
}

function sumSentence(shape) {
  switch (shape.kind) {
    case 'mostly': return `It is mostly the value of ${shape.text}, blended with the rest.`;
    case 'tie': return `The values of the tied keys count equally: ${shape.text}, blended with the rest.`;
    case 'near-tie': return `It is close to an even mix of two values: ${shape.text}.`;
    default: return `It is a blend with no single source: the weights are ${shape.text}.`;
  }
}

/** "Without the scale, "arrow" would get 0.95 instead of 0.80." (null when there is nothing to compare) */
function scalingSentence(tokens, weights, unscaled) {
  if (!unscaled) return null;
  const j = ranked(unscaled)[0];
  if (fixed(unscaled[j], 2) === fixed(weights[j], 2)) return 'Without the scale the weights would be the same at two decimals.';
  const sharper = unscaled[j] > weights[j];
  return `Without the 1/\u221ad\u2096 scale, ${quote(tokens[j])} would get ${fixed(unscaled[j], 2)} instead of ${fixed(weights[j], 2)}: ` +
    `${sharper ? 'a spikier, more one-hot row' : 'a flatter row'}.`;
}

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
    narrate: ({ token, tokens, scores }) =>
      `The query of "${token}" is compared with every key by a dot product. ` +
      `Scores: ${tokens.map((t, j) => `${t} ${num(scores[j], 2)}`).join(', ')}. ${describeScores(tokens, scores)}`,
  },
  {
    id: 'softmax',
    title: 'Scale and softmax',
    formula: 'softmax',
    narrate: ({ token, tokens, weights, unscaled, scale, maskedCount }) =>
      `Dividing by \u221ad\u2096 (times ${num(scale, 4)}) and taking the softmax turns the scores into weights that sum to 1` +
      `${maskedCount ? ` (${maskedCount} masked ${maskedCount === 1 ? 'key gets' : 'keys get'} 0)` : ''}. ` +
      `${softmaxSentence(token, describeWeights(tokens, weights))}` +
      `${unscaled ? ` ${scalingSentence(tokens, weights, unscaled)}` : ''}`,
  },
  {
    id: 'sum',
    title: 'Weighted sum',
    formula: 'sum',
    narrate: ({ token, tokens, weights, output }) =>
      `The new vector for "${token}" is the weights times the values, added up: ${vector(output, 3)}. ` +
      sumSentence(describeWeights(tokens, weights)),
  },
];

/** Index of the largest entry. */
function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

module.exports = { STEPS, argmax, describeWeights, describeScores, scalingSentence };
