'use strict';
// Knocking heads out and reading how they compose (cpp/src/ablation.cpp, cpp/src/circuits.cpp):
// the bodies of Trainer.ablate, Model.ablate and their composition(). Here only the structure
// of `heads` (each entry a [layer, head] pair) and which texts the mean reads; the ranges, the
// repeats and every number are the engine's.

const { fromEngine } = require('./tensor.js');
const { unwrap } = require('./call.js');
const { Fields } = require('./options.js');

/** heads as the reader made them (arrays of sizes) -> a Float64Array of the pairs, flattened. */
function headPairs(fn, heads) {
  const out = new Float64Array(heads.length * 2);
  for (let i = 0; i < heads.length; i++) {
    if (heads[i].length !== 2) throw new Error(`${fn}: heads[${i}] has ${heads[i].length} entries; expected a [layer, head] pair`);
    out[2 * i] = heads[i][0];
    out[2 * i + 1] = heads[i][1];
  }
  return out;
}

/** The engine's spec of an ablation: heads, mode and the token ids to read. */
function ablationSpec(fn, o, ids) {
  return Object.assign(new Fields(), { heads: headPairs(fn, o.heads), mode: o.mode, tokens: ids });
}

/** Trainer.ablate's body: `o` the read spec, `example` the trainer's fixed example. */
function trainerAblate(h, fn, o, example) {
  const ids = o.tokens || Float64Array.from(example);
  const r = unwrap(h.ablate(ablationSpec(fn, o, ids)));
  r.tokens = Array.from(ids);
  r.heads = o.heads.map((p) => p.slice());
  r.mode = o.mode;
  r.probabilities = fromEngine(r.probabilities);
  r.baseline.probabilities = fromEngine(r.baseline.probabilities);
  return r;
}

/** The token ids of mean mode's texts (default: the text itself), each checked by name. */
function meanTexts(fn, model, o, text) {
  if (o.mode !== 'mean') {
    if (o.meanOver !== undefined) throw new Error(`${fn}: meanOver is given but mode is '${o.mode}'; expected mode: 'mean' with it`);
    return undefined;
  }
  const texts = o.meanOver || [text];
  const lengths = new Float64Array(texts.length), ids = [];
  for (let i = 0; i < texts.length; i++) {
    // read as the model reads its text: the same limits, the same truncation
    const r = model._read(fn, texts[i], o.truncate, `meanOver[${i}]`);
    lengths[i] = r.ids.length;
    for (const id of r.ids) ids.push(id);
  }
  return Object.assign(new Fields(), { lengths, tokens: Float64Array.from(ids) });
}

/** Model.ablate's body: `r` the text read (model._read), `o` the read spec. */
function modelAblate(h, fn, model, r, o, text) {
  const spec = ablationSpec(fn, o, r.ids);
  spec.meanOver = meanTexts(fn, model, o, text);
  spec.top = o.top;
  const raw = unwrap(h.ablate(spec));
  const next = (t) => t.ids.map((id, i) => ({ token: model.tokenizer.pieces[id], id, probability: t.probabilities[i] }));
  raw.next = next(raw.next);
  raw.baseline.next = next(raw.baseline.next);
  return Object.assign({ tokens: r.tokens.map((x) => x.text), truncated: r.truncated, heads: o.heads.map((p) => p.slice()), mode: o.mode }, raw);
}

module.exports = { trainerAblate, modelAblate };
