'use strict';
// What <model-attention model> says about a trained model's reading of the learner's text:
// the line about the model, token labels, and the five likeliest next tokens as text. The
// numbers are the engine's (lab.loadModel: attention, predict); this only words them. DOM-free.

const { grouped } = require('./format.js');

/** The sentence the box starts with: a phrase said twice, so an induction head has something to do. */
const DEFAULT_TEXT = 'a part of the body of a person. a part of the body of a';
/** The most characters the box takes (the model reads its last 64 tokens of them). */
const MAX_TEXT = 400;

/** A token as a label: a line break made visible (\u21b5), everything else as the text had it. */
function tokenLabel(token) {
  return token.replace(/\n/g, '\u21b5');
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

/** One line about the model: its name and shape, what it was trained on, what it reads. */
function modelAbout(model) {
  const o = model.options;
  const corpus = model.about && model.about.corpus && typeof model.about.corpus.source === 'string'
    ? ` on ${model.about.corpus.source.split(',')[0]}\u2019s text` : '';
  return `${model.name}: a transformer of ${o.layers} layers \u00d7 ${o.heads} heads (d_model ${o.dModel}, ${grouped(o.vocab)} tokens in its vocabulary), `
    + `trained by this kit\u2019s own engine${corpus}. It reads at most ${model.maxTokens} tokens, in lower case.`;
}

module.exports = { modelGuesses, modelAbout, tokenLabel, quoted, DEFAULT_TEXT, MAX_TEXT };
