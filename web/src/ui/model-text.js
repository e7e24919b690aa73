'use strict';
// What <model-attention model> says about a trained model's reading of the learner's text:
// the line about the model, token labels, and the five likeliest next tokens as text. The
// numbers are the engine's (lab.loadModel: attention, predict); this only words them. DOM-free.

const { grouped } = require('./format.js');

/** The sentence the box starts with: a phrase said twice, so an induction head has something to do. */
const DEFAULT_TEXT = 'a part of the body of a person. a part of the body of a';
/** The most characters the box takes (the model reads its last 64 tokens of them). */
const MAX_TEXT = 400;
/** How the box's keys work, said under it. */
const KEYS_HINT = 'Enter reads the text at once; Shift+Enter starts a new line.';

/**
 * A token as a label: a line break made visible (\u21b5), everything else as the text had it; a
 * label standing alone (`bare`, not in quotes) shows its leading and trailing spaces too (\u2423),
 * since " part" and "part" are different tokens.
 */
function tokenLabel(token, bare) {
  const t = token.replace(/\n/g, '\u21b5');
  return bare ? t.replace(/^ +| +$/g, (s) => '\u2423'.repeat(s.length)) : t;
}

/** A label as a screen reader is given it: \u2423 said as "space", \u21b5 as "new line" ("\u2423part": "space part"). */
function spokenLabel(label) {
  return label.replace(/[\u2423\u21b5]/g, (c) => (c === '\u2423' ? ' space ' : ' new line ')).trim().replace(/ {2,}/g, ' ');
}

/**
 * The views' labels for a model's tokens: each as tokenLabel shows it, except that a token the
 * model reads as its unknown piece (an id of tokenizer.unknownId) is drawn as that piece, since
 * to the model every such character is the same token. Also the distinct characters it replaced.
 * @returns { labels, unknown: [characters, in the order met] }
 */
function modelLabels(tokens, ids, tokenizer) {
  const unknown = [];
  const labels = tokens.map((t, k) => {
    if (ids[k] !== tokenizer.unknownId) return tokenLabel(t);
    if (!unknown.includes(t)) unknown.push(t);
    return tokenizer.pieces[tokenizer.unknownId];
  });
  return { labels, unknown };
}

/** What the learner is told about characters outside the model's alphabet ('' when there are none). */
function unknownNote(unknown, tokenizer) {
  if (!unknown || !unknown.length) return '';
  const shown = unknown.slice(0, 12).map(quoted).join(', ') + (unknown.length > 12 ? ` and ${unknown.length - 12} more` : '');
  const piece = tokenizer.pieces[tokenizer.unknownId];
  return `${unknown.length === 1 ? 'One character is' : `${unknown.length} characters are`} outside the model’s alphabet (${shown}): `
    + `it reads ${unknown.length === 1 ? 'it' : 'each of them'} as its one unknown piece, so the views draw ${unknown.length === 1 ? 'it' : 'them all'} as ${piece}, one and the same token to the model.`;
}

/** What the learner is told when the box cut a longer text (`length` characters) to MAX_TEXT. */
function cutNote(length) {
  return `The box holds at most ${MAX_TEXT} characters: the text was cut after the ${MAX_TEXT}th (${grouped(length - MAX_TEXT)} left out).`;
}

/** A next token as the list shows it: in quotes, so a leading space can be seen. */
function quoted(token) {
  return `\u201c${tokenLabel(token)}\u201d`;
}

/**
 * The guess list: { title, items: [{ token, probability (text), percent (bar width) }] }.
 * @param r { next: [{ token, probability }], truncated, count } from the model
 * @param maxTokens the model's context
 */
function modelGuesses(r, maxTokens) {
  const title = r.truncated
    ? `The model reads only the last ${maxTokens} tokens (the first ${grouped(r.truncated)} are dropped). Its five likeliest next tokens:`
    : 'The model\u2019s five likeliest next tokens:';
  const items = r.next.map((g) => ({
    token: quoted(g.token),
    probability: `${(100 * g.probability).toFixed(1)}%`,
    percent: Math.max(0, Math.min(100, 100 * g.probability)).toFixed(1),
  }));
  return { title, items };
}

/**
 * How the model was trained, from its file's record (about.settings): a copying stage on repeated
 * windows, then text with a share of the windows repeating. '' when the file does not say.
 */
function modelTraining(about) {
  const s = about && about.settings;
  const copying = s && s.copying, text = s && s.training;
  if (!copying || !text || !(copying.steps > 0) || !(text.steps > 0)) return '';
  const share = text.repeats > 0 ? `, ${text.repeats === 0.5 ? 'half' : `${Math.round(100 * text.repeats)}%`} of its windows repeating their start` : '';
  return ` First ${grouped(copying.steps)} steps of copying (windows of the text, each repeated), then ${grouped(text.steps)} of the text${share}: `
    + 'its copying heads were trained in on purpose.';
}

/** One line about the model: its name and shape, what it was trained on and how, what it reads. */
function modelAbout(model) {
  const o = model.options;
  const corpus = model.about && model.about.corpus && typeof model.about.corpus.source === 'string'
    ? ` on ${model.about.corpus.source.split(',')[0]}\u2019s text` : '';
  return `${model.name}: a transformer of ${o.layers} layers \u00d7 ${o.heads} heads (d_model ${o.dModel}, ${grouped(o.vocab)} tokens in its vocabulary), `
    + `trained by this kit\u2019s own engine${corpus}.${modelTraining(model.about)} It reads at most ${model.maxTokens} tokens, in lower case.`;
}

module.exports = { modelGuesses, modelAbout, modelTraining, modelLabels, unknownNote, cutNote, tokenLabel, spokenLabel, quoted, KEYS_HINT, DEFAULT_TEXT, MAX_TEXT };
