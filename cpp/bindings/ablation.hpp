#pragma once
// embind conversions of ablation and circuits (attnlab/ablation.hpp, attnlab/circuits.hpp): the
// Trainer and Model engine objects (trainer.cpp) call these for their ablate and composition
// methods. Each runs inside the caller's guarded().

#include <emscripten/val.h>

#include "attnlab/language_model.hpp"
#include "attnlab/trainer.hpp"

namespace attnlab::bindings {

/// spec: { heads: Float64Array of [layer, head] pairs flattened, mode: 'zero' | 'mean',
/// tokens: Float64Array }. Returns { loss, scoredLoss, positions, scored, baseline: { loss,
/// scoredLoss }, probabilities, baselineProbabilities: tensors [n, vocab] }; a mean over no
/// position is null.
emscripten::val trainer_ablate(trainer& t, const emscripten::val& spec, const char* fn);

/// spec: as trainer_ablate's, with meanOver: { lengths, tokens } (Float64Arrays) in mean mode,
/// and top (1..100). Returns { loss, repeatedLoss, positions, repeated, probabilities
/// (Float64Array [vocab]), next: { ids, probabilities }, baseline: { loss, repeatedLoss,
/// probabilities, next } }.
emscripten::val model_ablate(language_model& m, const emscripten::val& spec, const char* fn);

/// { composition: [{ from: [layer, head], to: [layer, head], q, k, v }], copying: [{ layer,
/// head, score, eigenvalues: [re, im, re, im, ...] }] }; null where a score is NaN. `fn` names
/// the method in the message of a model too large to score.
emscripten::val circuits_js(const transformer& m, const char* fn);

}  // namespace attnlab::bindings
