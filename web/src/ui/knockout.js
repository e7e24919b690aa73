'use strict';
// The knock-out of <model-attention model>: the learner picks heads of the shipped model to
// knock out on their own text, predicts first whether the model's top next-token guess
// survives, then sees the engine's answer (model.ablate: the guesses and the loss with those
// heads knocked out, beside the model as it is). The numbers are the engine's; this module
// words them, judges the prediction, reads and writes the heads in a link, and makes the
// export figure. DOM-free.

const { quoted } = require('./model-text.js');
const { fixed, counted, MINUS } = require('./format.js');

const MODES = ['zero', 'mean'];
const MODE_WORDS = {
  zero: 'zero: its output replaced by zeros',
  mean: 'mean: its output replaced by its average over the text',
};

/** "a", "a and b", "a, b and c". */
const listed = (w, sep = ', ') => (w.length < 2 ? w.join('') : `${w.slice(0, -1).join(sep)} and ${w[w.length - 1]}`);

/** The heads as words, by layer: "layer 1, head 3", "layer 0, head 2 and layer 1, heads 0, 1 and 3". */
function headsWords(heads) {
  const byLayer = [];
  for (const [l, hd] of sortHeads(heads)) {
    if (!byLayer.length || byLayer[byLayer.length - 1][0] !== l) byLayer.push([l, []]);
    byLayer[byLayer.length - 1][1].push(hd);
  }
  return listed(byLayer.map(([l, hs]) => `layer ${l}, head${hs.length > 1 ? 's' : ''} ${listed(hs)}`), '; ');
}

/** The heads sorted by layer, then head: one order for links, questions and the engine. */
function sortHeads(heads) {
  return heads.map((p) => p.slice()).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/** `heads` with [l, hd] added, or removed if it was there. */
function toggleHead(heads, l, hd) {
  const at = heads.findIndex((p) => p[0] === l && p[1] === hd);
  return at < 0 ? sortHeads([...heads, [l, hd]]) : heads.filter((_, k) => k !== at);
}

/** The heads as a link keeps them: "0.2-1.3" ('' for none). */
function formatHeads(heads) {
  return sortHeads(heads).map((p) => p.join('.')).join('-');
}

/**
 * The heads a link names ("0.2-1.3"), for a model of `layers` x `perLayer` heads. Never throws:
 * anything that names no head of the model is left out and said in `problem`.
 * @returns { heads, problem: '' or a sentence for the learner }
 */
function parseHeads(text, layers, perLayer) {
  if (typeof text !== 'string' || text === '') return { heads: [], problem: '' };
  let heads = [];
  const bad = [];
  for (const piece of text.slice(0, 400).split('-')) {
    const m = /^(\d{1,3})\.(\d{1,3})$/.exec(piece);
    const l = m ? Number(m[1]) : -1, hd = m ? Number(m[2]) : -1;
    if (!m || l >= layers || hd >= perLayer) bad.push(piece);
    else if (!heads.some((p) => p[0] === l && p[1] === hd)) heads = sortHeads([...heads, [l, hd]]);
  }
  const problem = bad.length
    ? `The link asks to knock out ${bad.map((b) => `\u201c${b.slice(0, 12)}\u201d`).join(', ')}, which names no head of this model `
      + `(${counted(layers, 'layer')} \u00d7 ${counted(perLayer, 'head')}, counted from 0); ${bad.length === 1 ? 'it was' : 'they were'} left out.`
    : '';
  return { heads, problem };
}

/**
 * What the learner is told about a knock-out the model cannot answer as a question about a
 * head ('' when there is nothing to say): every head at once leaves a model with no attention.
 */
function knockoutLimit(heads, layers, perLayer) {
  if (heads.length < layers * perLayer) return '';
  return 'Every head is knocked out: the model has no attention left, so each token is read alone, through the embeddings and MLPs. '
    + 'That tests no head: put one back to ask about it.';
}

/**
 * The predict-first question for a knock-out of `heads`, asked before its result is shown. It
 * names no token: on a page that asks first, the guesses are hidden until it is answered.
 */
function knockoutQuestion(heads, mode) {
  return {
    question: `You are knocking out ${headsWords(heads)} (${mode}). With ${heads.length === 1 ? 'it' : 'them'} gone, will the model\u2019s likeliest next token stay the same?`,
    choices: [{ label: 'Yes, it stays on top', value: 'stays' }, { label: 'No, another token takes its place', value: 'changes' }],
  };
}

/** A probability as the guess list shows it: "62.1%". */
const percent = (p) => `${(100 * p).toFixed(1)}%`;

/** A difference of two figures with two decimals, signed: "+0.17", "\u22120.05", "0.00". */
function signed(d) {
  const text = fixed(Math.abs(d), 2);
  return Number(text) === 0 ? text : `${d < 0 ? MINUS : '+'}${text}`;
}

/**
 * What the knock-out did to the guesses and the loss, in words and figures.
 * @param r model.ablate's result (with its baseline)
 * @returns { changed, sentence, losses: [{ label, before, after, change }], note }
 */
function knockoutOutcome(r) {
  const before = r.baseline.next[0], after = r.next[0];
  const changed = before.id !== after.id;
  const kept = r.probabilities[before.id];
  const who = `With ${headsWords(r.heads)} knocked out (${r.mode})`;
  const sentence = changed
    ? `${who}, the top guess changes: ${quoted(after.token)} (${percent(after.probability)}) takes the place of ${quoted(before.token)}, which falls from ${percent(before.probability)} to ${percent(kept)}.`
    : `${who}, the top guess stays ${quoted(before.token)}: ${percent(before.probability)} as the model is, ${percent(kept)} without ${r.heads.length === 1 ? 'the head' : 'the heads'}.`;
  const row = (label, b, a) => ({
    label,
    before: b === null ? '\u2013' : fixed(b, 2),
    after: a === null ? '\u2013' : fixed(a, 2),
    // from the figures as shown, so that the column is their difference to the last digit
    change: a === null || b === null ? '\u2013' : signed(Number(fixed(a, 2)) - Number(fixed(b, 2))),
  });
  const losses = [row(`over the text (${counted(r.positions, 'prediction')})`, r.baseline.loss, r.loss),
    row(`on repeated pairs (${counted(r.repeated, 'position')})`, r.baseline.repeatedLoss, r.repeatedLoss)];
  const note = r.loss === null ? 'The text has one token: it holds no next token to score, so there is no loss, only the guesses after it.'
    : r.repeatedLoss === null ? 'No pair of tokens in the text repeats an earlier pair, so there is no loss on repeated pairs: repeat a phrase to measure what copying heads do.'
      : '';
  return { changed, sentence, losses, note };
}

/**
 * Judges a prediction ('stays' or 'changes') against the engine's knock-out `r`.
 * @returns { ok, close, message, hint } as ui/predict.js takes them
 */
function judgeKnockout(value, r) {
  if (value !== 'stays' && value !== 'changes') return { ok: false, close: false, message: 'Choose one of the two answers.' };
  const o = knockoutOutcome(r);
  const close = (value === 'changes') === o.changed;
  // The hint after a wrong answer leans the other way from it: the lead of the top guess, and what the heads may add to it.
  const [first, second] = r.baseline.next;
  const one = r.heads.length === 1;
  // (no token named: the guesses are hidden until the answer, and a token may answer another question on the page)
  const lead = second ? `The top guess leads the second by ${(100 * (first.probability - second.probability)).toFixed(1)} points (${percent(first.probability)} against ${percent(second.probability)}). ` : '';
  const hint = value === 'stays'
    ? `${lead}Ask how much of that lead ${one ? 'this head supplies' : 'these heads supply'}: a head that copies an earlier token can carry the guess.`
    : `${lead}Ask how much ${one ? 'this head adds' : 'these heads add'} to it: a head can look at a token and still add little to the guess.`;
  return {
    ok: true,
    close,
    message: `${close ? 'Right' : 'Not so'}: the likeliest next token ${o.changed ? 'changes' : 'stays the same'}. The figures are below.`,
    hint,
  };
}

/**
 * The knock-out as an export figure: the probabilities of every token in either top list, as
 * the model is and with the heads knocked out (a two-column heatmap with its numbers).
 */
function knockoutFigure(r, text) {
  const ids = [];
  for (const g of [...r.baseline.next, ...r.next]) if (!ids.includes(g.id)) ids.push(g.id);
  const token = (id) => [...r.baseline.next, ...r.next].find((g) => g.id === id).token;
  return {
    kind: 'heatmap',
    title: `Next-token probabilities, ${headsWords(r.heads)} knocked out (${r.mode})`,
    caption: knockoutOutcome(r).sentence,
    settings: { text, heads: formatHeads(r.heads), mode: r.mode, lossKnockedOut: r.loss, lossAsItIs: r.baseline.loss,
      repeatedLossAsItIs: r.baseline.repeatedLoss, repeatedLossKnockedOut: r.repeatedLoss },
    rowLabels: ids.map((id) => quoted(token(id))),
    colLabels: ['as it is', 'knocked out'],
    values: ids.map((id) => [r.baseline.probabilities[id], r.probabilities[id]]),
    masked: null,
    showNumbers: true,
  };
}

module.exports = { MODES, MODE_WORDS, headsWords, sortHeads, toggleHead, formatHeads, parseHeads, knockoutLimit, knockoutQuestion, knockoutOutcome, judgeKnockout, knockoutFigure };
