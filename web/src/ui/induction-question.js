'use strict';
// The predict-first question of <model-attention model predict>: on text whose last token came
// earlier, where will the model's strongest induction head look from that last token? The head
// and its weights are the engine's (lab.headSummary's scores, the model's attention); this
// module picks the choices, words them, and judges an answer against the column the head
// weights most. DOM-free.

const { quoted } = require('./model-text.js');
const { fixed } = require('./format.js');

/** The most "token after an earlier copy" choices offered (the question still names every copy). */
const MAX_AFTER = 4;

/**
 * Every earlier position of the last token, latest first, with the one whose preceding tokens
 * match those before the last token for longest (ties: the latest) moved to the front.
 * [] when the last token does not repeat.
 */
function earlierCopies(tokens) {
  const n = tokens.length, last = tokens[n - 1];
  const all = [];
  let best = -1, bestRun = -1;
  for (let j = n - 2; j >= 0; j--) {
    if (tokens[j] !== last) continue;
    all.push(j);
    let run = 0;
    while (j - 1 - run >= 0 && tokens[j - 1 - run] === tokens[n - 2 - run] && j - 1 - run !== n - 2 - run) run++;
    if (run > bestRun) { best = j; bestRun = run; }
  }
  return all.length ? [best, ...all.filter((j) => j !== best)] : [];
}

/**
 * The strongest induction head among `rows` (lab.headSummary's): the highest prefix matching
 * apart from the previous token (prefixMatchingApart), which a previous-token head cannot earn
 * where a token comes back two places later, as it earns plain prefix matching there. null
 * when no row of the text has a key two or more back after an earlier copy.
 */
function inductionHead(rows) {
  let best = null;
  for (const r of rows) if (r.prefixMatchingApart != null && (!best || r.prefixMatchingApart > best.prefixMatchingApart)) best = r;
  return best;
}

/** "2", "2 and 4", "2, 4 and 9" */
function listed(items) {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * When plain prefix matching ranks another head first (a previous-token head credited for a token
 * that comes back two places later), what the engine's two scores say about the two heads.
 */
function confoundNote(rows, head) {
  let top = null;
  for (const r of rows) if (r.prefixMatching != null && (!top || r.prefixMatching > top.prefixMatching)) top = r;
  if (!top || (top.layer === head.layer && top.head === head.head) || !(top.prefixMatching > head.prefixMatching)) return '';
  const name = (r) => `layer ${r.layer}, head ${r.head}`;
  return ` Sorted by prefix matching, the summary puts ${name(top)} first (${fixed(top.prefixMatching, 2)}; previous-token score ${fixed(top.previousToken, 2)}): `
    + 'on this text the token after an earlier copy is sometimes the token just before the query, where a previous-token head looks anyway. '
    + `Counting only keys two or more back, ${name(top)} scores ${top.prefixMatchingApart == null ? 'nothing' : fixed(top.prefixMatchingApart, 2)} and ${name(head)} ${fixed(head.prefixMatchingApart, 2)}.`;
}

/**
 * The question for `tokens` and the head's last row of weights `row` (length n), or null when
 * the last token has no earlier copy whose next token is two or more back.
 * @param head a row of lab.headSummary (inductionHead's choice)
 * @param rows every head's row, for the note on a previous-token head that plain prefix matching ranks first
 * @returns { question, choices: [{ label, value }], answer (the column weighted most), judge(value), reveal }
 */
function inductionQuestion(tokens, row, head, rows = []) {
  const n = tokens.length;
  const every = earlierCopies(tokens);
  // Choices come from copies whose next token is two or more back: one right before the last
  // token would be a previous-token head's answer too, and tell the two kinds of head apart no more.
  const copies = every.filter((j) => j + 1 <= n - 3);
  if (!copies.length) return null;
  const copy = copies[0];
  const offered = copies.slice(0, MAX_AFTER);
  const after = new Set(every.map((j) => j + 1));
  const roles = [
    ...offered.map((j) => [j + 1, copies.length > 1 ? `the token right after the earlier copy at position ${j}` : 'the token right after its earlier copy']),
    [copy, copies.length > 1 ? 'an earlier copy of it' : 'its earlier copy'],
    [n - 2, 'the token just before it'],
    [0, 'the first token'],
  ];
  // The choices name a token and its position only: its role (the token after a copy, the copy
  // itself ...) would answer the question; the feedback says it.
  const roleOf = new Map();
  const choices = [];
  for (const [column, role] of roles) {
    if (roleOf.has(column)) continue;
    roleOf.set(column, role);
    choices.push({ column, label: `${quoted(tokens[column])} (position ${column})` });
  }
  choices.sort((a, b) => a.column - b.column);
  let answer = 0;
  for (let j = 1; j < n; j++) if (row[j] > row[answer]) answer = j;
  const last = quoted(tokens[n - 1]);
  const where = `layer ${head.layer}, head ${head.head}`;
  const said = (column) => `${quoted(tokens[column])} (position ${column}${roleOf.has(column) ? `, ${roleOf.get(column)}` : ''}) with weight ${fixed(row[column], 2)}`;
  // The tokens after the other copies, which the textbook rule names too: their weights, so the learner sees the head chose among them.
  const rivals = after.has(answer) ? [...after].filter((j) => j !== answer && j < n - 1).sort((a, b) => a - b) : [];
  const because = after.has(answer)
    ? ` It looks for the token that followed an earlier copy of its own token, because that token is the best guess for what comes next.${rivals.length
      ? ` The token${rivals.length > 1 ? 's' : ''} after the other cop${rivals.length > 1 ? 'ies get' : 'y gets'} less: ${rivals.map((j) => `${quoted(tokens[j])} (position ${j}) ${fixed(row[j], 2)}`).join(', ')}.` : ''}`
    : '';
  const note = confoundNote(rows, head);
  // A first wrong answer's hint points at the method, true of this head's answer, without naming it.
  const hint = answer === copy + 1 && copies.length > 1
    ? `The head's job is to help predict the next token: it reads what came right after an earlier copy of ${last}. Of the copies, which one sits in the same words as the end of the text?`
    : after.has(answer)
      ? `The head's job is to help predict the next token: it reads what came right after an earlier copy of ${last}.`
      : 'Induction heads often do something other than the textbook pattern on short texts: open the summary after answering to see its scores.';
  const positions = [...every].sort((a, b) => a - b);
  return {
    question: `The last token, ${last}, appeared earlier, at position${positions.length > 1 ? 's' : ''} ${listed(positions)}. `
      + `Where will the model's strongest induction head, ${where}, look most from it?`,
    choices: choices.map((c) => ({ label: c.label, value: c.column })),
    answer,
    judge(value) {
      const close = value === answer;
      return {
        ok: true,
        close,
        message: close ? `Right: from ${last} the head puts most weight on ${said(answer)}.${because}${note}`
          : `Not this time: the head puts most weight on ${said(answer)}, and ${fixed(row[value], 2)} on ${quoted(tokens[value])} (position ${value}${roleOf.has(value) ? `, ${roleOf.get(value)}` : ''}).${because}${note}`,
        hint: close ? '' : hint,
      };
    },
    reveal: `From ${last} the head puts most weight on ${said(answer)}.${because}${note}`,
  };
}

module.exports = { inductionQuestion, inductionHead, earlierCopies, listed };
