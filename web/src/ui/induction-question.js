'use strict';
// The predict-first question of <model-attention model predict>: on text whose last
// token came earlier, where will the model's strongest induction head look from that last
// token? The head and its weights are the engine's (lab.headSummary's prefix-matching score,
// the model's attention); this module picks the choices, words them, and judges an answer
// against the column the head weights most. DOM-free.

const { quoted } = require('./model-text.js');
const { fixed } = require('./format.js');

/**
 * The earlier copies of the last token worth asking about: the one whose preceding tokens
 * match those before the last token for longest (ties: the latest), and the latest. [] when
 * the last token does not repeat.
 */
function earlierCopies(tokens) {
  const n = tokens.length, last = tokens[n - 1];
  let best = -1, bestRun = -1, latest = -1;
  for (let j = n - 2; j >= 0; j--) {
    if (tokens[j] !== last) continue;
    if (latest < 0) latest = j;
    let run = 0;
    while (j - 1 - run >= 0 && tokens[j - 1 - run] === tokens[n - 2 - run] && j - 1 - run !== n - 2 - run) run++;
    if (run > bestRun) { best = j; bestRun = run; }
  }
  return latest < 0 ? [] : [...new Set([best, latest])];
}

/** The head with the highest prefix-matching score among `rows` ([{ layer, head, prefixMatching }]), or null. */
function inductionHead(rows) {
  let best = null;
  for (const r of rows) if (r.prefixMatching !== null && (!best || r.prefixMatching > best.prefixMatching)) best = r;
  return best;
}

/**
 * The question for `tokens` and the head's last row of weights `row` (length n), or null when
 * the last token has no earlier copy.
 * @returns { question, choices: [{ label, value }], answer (the column weighted most), judge(value), reveal }
 */
function inductionQuestion(tokens, row, head) {
  const n = tokens.length;
  const copies = earlierCopies(tokens).filter((j) => j + 1 < n - 1);
  if (!copies.length) return null;
  const copy = copies[0];
  const after = new Set(copies.map((j) => j + 1));
  const roles = [
    ...copies.map((j) => [j + 1, copies.length > 1 ? `the token right after the earlier copy at position ${j}` : 'the token right after its earlier copy']),
    [copy, 'its earlier copy'],
    [n - 2, 'the token just before it'],
    [0, 'the first token'],
  ];
  const seen = new Set();
  const choices = [];
  for (const [column, role] of roles) {
    if (seen.has(column)) continue;
    seen.add(column);
    choices.push({ column, label: `${quoted(tokens[column])}, ${role} (position ${column})` });
  }
  choices.sort((a, b) => a.column - b.column);
  let answer = 0;
  for (let j = 1; j < n; j++) if (row[j] > row[answer]) answer = j;
  const last = quoted(tokens[n - 1]);
  const where = `layer ${head.layer}, head ${head.head}`;
  const said = (column) => `${quoted(tokens[column])} (position ${column}) with weight ${fixed(row[column], 2)}`;
  const because = after.has(answer)
    ? ' It looks for the token that followed an earlier copy of its own token, because that token is the best guess for what comes next.'
    : '';
  // A first wrong answer's hint points at the method, true of this head's answer, without naming it.
  const hint = answer === copy + 1 && copies.length > 1
    ? `The head's job is to help predict the next token: it reads what came right after an earlier copy of ${last}. Of the copies, which one sits in the same words as the end of the text?`
    : after.has(answer)
      ? `The head's job is to help predict the next token: it reads what came right after an earlier copy of ${last}.`
      : 'Induction heads often do something other than the textbook pattern on short texts: open the summary after answering to see its scores.';
  return {
    question: `The last token, ${last}, appeared earlier${copies.length > 1 ? `, at positions ${[...copies].sort((a, b) => a - b).join(' and ')}` : `, at position ${copy}`}. Where will the model's strongest induction head (${where}, by its prefix-matching score) look most from it?`,
    choices: choices.map((c) => ({ label: c.label, value: c.column })),
    answer,
    judge(value) {
      const close = value === answer;
      return {
        ok: true,
        close,
        message: close ? `Right: from ${last} the head puts most weight on ${said(answer)}.${because}`
          : `Not this time: the head puts most weight on ${said(answer)}, and ${fixed(row[value], 2)} on ${quoted(tokens[value])}.${because}`,
        hint: close ? '' : hint,
      };
    },
    reveal: `From ${last} the head puts most weight on ${said(answer)}.${because}`,
  };
}

module.exports = { inductionQuestion, inductionHead, earlierCopies };
