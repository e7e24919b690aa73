#!/usr/bin/env node
'use strict';
// Trains the model that ships beside the kit, web/model/attention-lab-model.js, from WordNet's
// glosses (scripts/corpus.js) with the engine's own trainer, in the wasm engine as node loads
// it: the same bits the tests check. Deterministic: the same corpus and settings give the
// same file, byte for byte.
//
//   npm run train:model                      installs wordnet-base and builds the engine first
//   node scripts/train-model.js [--out FILE] [--steps N] [--check]
//     --out    where to write (default web/model/attention-lab-model.js)
//     --steps  a shorter run, to try the pipeline (the file records the steps it had)
//     --check  write nothing: train, then compare with the committed file
//
// Pipeline: corpus text -> vocabulary (scripts/corpus-bpe.js) -> token ids (web/src/api/tokenizer.js)
// -> createTrainer({ task: 'sequences' }) on repeated windows (copying) -> loadTrainer({ task:
// 'text' }) -> steps -> head scores and evaluation -> the weights as float16 (rounded by the
// engine) -> the model script (web/src/api/model-file.js).

const fs = require('fs');
const path = require('path');
const { buildCorpus, sha256, WORDNET_DIR } = require('./corpus.js');
const { learnVocabulary } = require('./corpus-bpe.js');
const { createTokenizer } = require('../web/src/api/tokenizer.js');
const { MODEL_FORMAT, MODEL_VERSION } = require('../web/src/api/model-file.js');
const { modelScript } = require('../web/src/api/model-script.js');
const { SHIPPED_MODEL } = require('../web/src/api/model.js');

const root = path.resolve(__dirname, '..');
const SHIPPED_FILE = path.join(root, 'web', 'model', 'attention-lab-model.js');
const COMMAND = 'npm run train:model';

/** Everything the shipped model depends on besides the corpus. */
const SETTINGS = Object.freeze({
  // 512 pieces: common words stay whole (" the", " of", " small"), and each piece is common
  // enough that the copying stage can learn to match it (with 2048, it learned too slowly)
  vocabulary: { size: 512, minCharCount: 20 },
  model: { seqLen: 64, layers: 2, heads: 4, dModel: 64, mlp: 256, activation: 'gelu', layerNorm: true },
  // first copying: windows of the text, each repeated to fill the context (copyingSequences),
  // scored from scoreFrom on, where every token can be copied from the copy before it; the
  // heads learn to copy (a previous-token head, then induction heads)
  copying: { windows: 20000, shortest: 8, longest: 31, scoreFrom: 32, batch: 16, lr: 4e-3, weightDecay: 0, warmupSteps: 50, seed: 1, steps: 1500 },
  // then the text; repeats: half the windows repeat their opening span (tasks.hpp, text), so
  // copying from earlier text keeps paying off
  training: { batch: 16, lr: 4e-3, weightDecay: 0, warmupSteps: 50, decaySteps: 3950, minLr: 4e-4, repeats: 0.5, seed: 1, steps: 4000 },
  dtype: 'float16',
});

// What the file says about the corpus and its licence (README: "The small trained model").
const NOTICE = [
  'attention-lab model "wordnet-small": a small transformer trained by attention-lab on text',
  'extracted from WordNet 3.0 (Debian package wordnet-base). Made by: npm run train:model.',
  '',
  'WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.',
  'THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO',
  'REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION,',
  'PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANTABILITY OR FITNESS',
  'FOR ANY PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE, DATABASE OR',
  'DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR OTHER',
  'RIGHTS. The name of Princeton University or Princeton may not be used in advertising or',
  'publicity pertaining to distribution of the software and/or database. Title to copyright',
  'in this software, database and any associated documentation shall at all times remain',
  'with Princeton University. Licence: https://wordnet.princeton.edu/license-and-commercial-use',
].join('\n');

/** How many steps each trainer.step call makes: progress lines between them. */
const CHUNK = 100;

/**
 * Runs `steps` training steps in chunks, logging each chunk's mean loss.
 * @returns the mean loss of every chunk (4 decimals)
 */
function run(trainer, steps, label, log, clock) {
  const losses = [];
  for (let done = 0; done < steps;) {
    const count = Math.min(CHUNK, steps - done);
    const r = trainer.step(count);
    if (r.diverged) throw new Error(`train-model: ${label} diverged at step ${trainer.divergedAt} (loss ${trainer.divergedLoss})`);
    done += count;
    const mean = r.losses.reduce((a, b) => a + b, 0) / r.losses.length;
    losses.push(Number(mean.toFixed(4)));
    log(`${label} step ${done}/${steps}: mean loss ${mean.toFixed(3)} (${clock()})`);
  }
  return losses;
}

/**
 * The copying stage's sequences, from the corpus's token ids: `windows` windows, the k-th
 * starting at floor(k (ids.length - longest) / windows) and L = shortest + (k mod (longest -
 * shortest + 1)) tokens long, each repeated to fill length tokens (the context and the next).
 */
function copyingSequences(ids, { windows, shortest, longest }, length) {
  const out = [];
  for (let k = 0; k < windows; k++) {
    const L = shortest + (k % (longest - shortest + 1));
    const start = Math.floor((k * (ids.length - longest)) / windows);
    out.push(Array.from({ length }, (_, i) => ids[start + (i % L)]));
  }
  return out;
}

/** The best previous-token and induction scores of the trainer's probe, for the log. */
function bestHeads(scores) {
  const best = (key) => Math.max(...scores.map((h) => h[key])).toFixed(2);
  return `best previous-token ${best('previousToken')}, best induction ${best('induction')}`;
}

/**
 * Runs the pipeline: corpus, vocabulary, token ids; then the engine's trainer in two stages,
 * (1) `copying`: windows of the text repeated (copyingSequences, the trainer's 'sequences'
 * task), where the heads learn to copy from earlier text, and (2) `training`: the text, from
 * the first stage's weights, with some windows repeating their opening span so the copying
 * stays useful.
 * @param lab a loaded attention-lab
 * @param options { wordnetDir, settings = SETTINGS, steps (overrides training.steps), name, log }
 * @returns { model (the model object), script (its file text), seconds }
 */
function trainModel(lab, { wordnetDir = WORDNET_DIR, settings = SETTINGS, steps, name = SHIPPED_MODEL, log = () => {} } = {}) {
  const started = Date.now();
  const cpu = process.cpuUsage();
  const clock = () => {
    const used = process.cpuUsage(cpu);
    return `${((Date.now() - started) / 1000).toFixed(0)} s, CPU ${((used.user + used.system) / 1e6).toFixed(0)} s`;
  };
  const corpus = buildCorpus(wordnetDir);
  log(`corpus: ${corpus.text.length} characters`);
  const vocabulary = learnVocabulary(corpus.text, settings.vocabulary);
  const tokenizer = createTokenizer(vocabulary);
  const ids = tokenizer.ids(corpus.text);
  log(`vocabulary: ${tokenizer.size} pieces; corpus: ${ids.length} tokens (${clock()})`);

  const { steps: copySteps, windows, shortest, longest, ...copyOptions } = settings.copying;
  const sequences = copyingSequences(ids, { windows, shortest, longest }, settings.model.seqLen + 1);
  const first = lab.createTrainer({ ...settings.model, ...copyOptions, vocab: tokenizer.size, task: 'sequences', sequences });
  let copied, copyLosses;
  try {
    copyLosses = run(first, copySteps, 'copying', log, clock);
    log(`copying: ${bestHeads(first.headScores())}`);
    copied = first.exportWeights();
  } finally {
    first.dispose();
  }

  const training = { ...settings.training, steps: steps || settings.training.steps };
  const { steps: total, ...trainerOptions } = training;
  const trainer = lab.loadTrainer({ ...copied, options: { ...copied.options, ...trainerOptions, scoreFrom: 0, task: 'text' } }, { text: ids });
  try {
    const losses = run(trainer, total, 'text', log, clock);
    const evaluation = trainer.evaluate();
    const heads = trainer.headScores();
    log(`text: ${bestHeads(heads)}; evaluation loss ${evaluation.loss.toFixed(3)}`);
    const weights = trainer.exportWeights({ dtype: settings.dtype });
    const model = {
      format: MODEL_FORMAT,
      version: MODEL_VERSION,
      name,
      about: {
        command: COMMAND,
        corpus: {
          source: 'WordNet 3.0, Debian package wordnet-base (/usr/share/wordnet): glosses and example sentences',
          licence: 'WordNet 3.0 licence (see the notice at the top of this file)',
          files: corpus.sources,
          sha256: sha256(corpus.text),
          characters: corpus.text.length,
          tokens: ids.length,
        },
        settings: { ...settings, training },
        meanLossPer100Steps: { copying: copyLosses, text: losses },
        evaluation,
        headScores: heads,
      },
      tokenizer: vocabulary,
      weights,
    };
    log(`done (${clock()})`);
    return { model, script: modelScript(model, NOTICE), seconds: (Date.now() - started) / 1000 };
  } finally {
    trainer.dispose();
  }
}

module.exports = { trainModel, copyingSequences, SETTINGS, SHIPPED_FILE, NOTICE };

if (require.main === module) {
  const args = process.argv.slice(2);
  const value = (flag) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const out = value('--out') || SHIPPED_FILE;
  const steps = value('--steps') ? Number(value('--steps')) : undefined;
  const check = args.includes('--check');
  require('../index.js').loadAttentionLab().then((lab) => {
    const { script, seconds } = trainModel(lab, { steps, log: (line) => console.log(`train-model: ${line}`) });
    console.log(`train-model: ${seconds.toFixed(0)} s in all`);
    if (check) {
      const same = fs.existsSync(out) && fs.readFileSync(out, 'utf8') === script;
      console.log(`train-model: ${same ? 'the same as' : 'DIFFERENT from'} ${path.relative(root, out)}`);
      process.exit(same ? 0 : 1);
    }
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, script);
    console.log(`train-model: wrote ${path.relative(root, out)} (${script.length} bytes)`);
  }).catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
