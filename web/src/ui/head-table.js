'use strict';
// The head summary as a table: which scores it shows, what each means, and the order and
// filter the reader picks. The scores come from the engine (lab.headSummary); this module only
// orders and filters them. DOM-free.

/** The engine's scores, in column order, with what a high value says about a head. */
const SCORES = [
  { key: 'previousToken', label: 'previous token', high: 'looks at the token just before' },
  { key: 'nextToken', label: 'next token', high: 'looks at the token just after' },
  { key: 'firstToken', label: 'first token', high: 'parks weight on the first token (a sink)' },
  { key: 'specialTokens', label: 'special tokens', high: 'parks weight on [SEP] or another special token after the first' },
  { key: 'diagonal', label: 'diagonal', high: 'looks at itself' },
  { key: 'prefixMatching', label: 'prefix matching', high: 'looks just after an earlier copy of the token (induction)' },
  { key: 'entropy', label: 'entropy (nats)', high: 'spreads its weight broadly (low: it focuses on few keys)' },
];

const SORTS = ['layer', ...SCORES.map((s) => s.key)];

/**
 * Rows in the reader's order.
 * @param rows [{ layer, head, ...scores }] as lab.headSummary returns them
 * @param by 'layer' (layer, then head) or a score key; dir 'ascending' | 'descending'
 * Heads whose score is not defined (null) go last in either direction.
 */
function sortRows(rows, by, dir) {
  const sign = dir === 'ascending' ? 1 : -1;
  const order = (a, b) => a.layer - b.layer || a.head - b.head;
  if (by === 'layer') return rows.slice().sort((a, b) => sign * order(a, b));
  return rows.slice().sort((a, b) => {
    const x = a[by], y = b[by];
    if (x === null || y === null) return (x === null) - (y === null) || order(a, b);
    return sign * (x - y) || order(a, b);
  });
}

/** Rows whose score `by` is at least `min` (rows without that score are left out); all rows when by is ''. */
function filterRows(rows, by, min) {
  if (!by) return rows;
  return rows.filter((r) => r[by] !== null && r[by] >= min);
}

/** Scores no head has (null throughout, e.g. every positional score under cross-attention): their columns are left out. */
function presentScores(rows) {
  return SCORES.filter((s) => rows.some((r) => r[s.key] != null));  // eslint-disable-line eqeqeq
}

/**
 * Why a score is left out of a set's summary, in words (the engine leaves it null).
 * @param set { causal, queryTokens } of the data; key a score's key
 */
function missingReason(set, key) {
  return set.queryTokens ? 'cross-attention has no positions to compare'
    : key === 'nextToken' ? 'a causal mask hides the next token'
      : key === 'specialTokens' ? 'no special token such as [SEP] after the first'
        : key !== 'prefixMatching' ? 'one token has no other to compare'
          : set.causal ? 'no token repeats' : 'a test for induction, which reads only earlier tokens: these weights are not causal';
}

module.exports = { SCORES, SORTS, sortRows, filterRows, presentScores, missingReason };
