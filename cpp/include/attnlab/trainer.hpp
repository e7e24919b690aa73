#pragma once
/// @file trainer.hpp
/// @brief Trains a small transformer (transformer.hpp) on a task (tasks.hpp) with Adam
/// (adam.hpp), and reads out what its heads learned.
///
/// Everything is seeded: the same options give the same losses, bit for bit, on one platform.
/// The seed draws the initial weights and the training batches from separate streams; the
/// evaluation set and the head-score probe are fixed (the same for every seed), so runs can be
/// compared.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/adam.hpp"
#include "attnlab/head_scores.hpp"
#include "attnlab/random.hpp"
#include "attnlab/tasks.hpp"
#include "attnlab/transformer.hpp"

namespace attnlab {

/// @brief How the learning rate moves over a run: a linear warm-up from 0 over warmup_steps,
/// then a cosine decay from lr to min_lr over decay_steps, then min_lr. The defaults keep lr
/// constant.
struct lr_schedule {
    double warmup_steps = 0;  ///< a whole number from 0 to 10^9
    double decay_steps = 0;   ///< a whole number from 0 to 10^9; 0: no decay
    double min_lr = 0;        ///< the rate after the decay: from 0 to lr
};

/// @brief Everything a training run depends on.
struct trainer_options {
    transformer_config model;
    task_spec task;
    std::size_t batch = 32;
    adam_options optimiser;
    lr_schedule schedule;
    double seed = 1;  ///< a whole number from 0 to 2^53 - 1
};

/// @brief The learning rate of update t (1, 2, ...) under `schedule`, for a peak rate of lr:
/// lr t / warmup for t <= warmup; then, with s = t - warmup, min_lr + (lr - min_lr)(1 + cos(pi s / decay)) / 2
/// for s <= decay; then min_lr (lr when decay_steps is 0).
double scheduled_lr(double lr, const lr_schedule& schedule, std::size_t t);

/// @brief What step() did.
struct step_result {
    std::size_t step = 0;   ///< updates made so far
    double loss = 0;        ///< the last step's mean loss over its scored positions (nats)
    bool diverged = false;  ///< the run stopped: see trainer::diverged()
};

/// @brief The loss and accuracy on the fixed evaluation set.
struct evaluation {
    double loss = 0;      ///< mean over its scored positions (nats)
    double accuracy = 0;  ///< fraction of scored positions whose largest logit is the target
    std::size_t scored = 0;
};

/// @brief One head's scores on the probe (head_scores.hpp): previous_token and
/// prefix_matching ("induction") over repeated blocks of random tokens.
struct head_report {
    std::size_t layer = 0, head = 0;
    double previous_token = 0;
    double induction = 0;
};

class trainer {
public:
    /// Sequences of the fixed evaluation set, and of the head-score probe.
    static constexpr std::size_t eval_examples = 128;
    static constexpr std::size_t probe_examples = 8;

    /// @throws argument_error naming `fn` and the option for any bad configuration: sizes
    /// outside the model's limits, heads not dividing dModel, lr not a number in (0, 100],
    /// weightDecay outside [0, 1], warmupSteps or decaySteps not a whole number from 0 to
    /// 10^9, minLr outside [0, lr], a seed that is not a whole number from 0 to 2^53 - 1, a task
    /// the vocabulary or context cannot hold, author data with bad tokens or lengths
    explicit trainer(const trainer_options& options, const std::string& fn = "createTrainer");

    /// @brief Runs `count` updates (1..100000), each at its scheduled_lr(), writing each one's loss into losses[count]
    /// (when not null). Stops early, with diverged set, when a loss is not finite or exceeds
    /// divergence_limit(): the update that would have used it is not made.
    /// @throws argument_error naming `fn` for a bad count, or a run that already diverged
    step_result step(std::size_t count, double* losses = nullptr, const std::string& fn = "Trainer.step");

    /// @brief Loss and accuracy on the fixed evaluation set (eval_examples sequences).
    evaluation evaluate();

    /// @brief The attention weights of every head on `tokens` (n of them, 1..seqLen, each
    /// below vocab), into out[layers, heads, n, n]: rows sum to 1, 0 above the diagonal.
    /// @throws argument_error naming `fn` for a bad length or token
    void attention(const std::int32_t* tokens, std::size_t n, float* out, const std::string& fn = "Trainer.attention");

    /// @brief Every head's scores on the probe, layer by layer.
    std::vector<head_report> head_scores();

    /// @brief The probe's first sequence (seq_len tokens): a fixed example of the task, for
    /// showing the heads' patterns.
    std::vector<std::int32_t> example() const { return example_; }

    /// @brief Replaces the weights with `size` floats in parameters() order. Used by loading:
    /// the caller checks names and shapes against parameters().
    /// @throws argument_error naming `fn` for a wrong count or a value that is not finite
    void set_weights(const float* data, std::size_t size, const std::string& fn);

    const transformer& model() const { return model_; }
    const trainer_options& options() const { return options_; }
    std::size_t steps() const { return optimiser_.updates(); }
    bool diverged() const { return diverged_; }
    /// @brief The step whose loss diverged, and that loss (NaN or infinity possible).
    std::size_t diverged_at() const { return diverged_at_; }
    double diverged_loss() const { return diverged_loss_; }
    /// @brief ln(vocab): the loss of a uniform guess, where an untrained model starts (nats).
    double uniform_loss() const;
    /// @brief A loss above 10 + 3 ln(vocab) nats (three times a uniform guess's, and more) counts as diverged.
    double divergence_limit() const;

private:
    trainer_options options_;
    transformer model_;
    task_sampler task_;
    adam optimiser_;
    normal_generator data_rng_;
    task_batch batch_;
    task_batch eval_;
    std::vector<std::int32_t> probe_;  // [probe_examples, seq_len] repeated random tokens
    std::vector<std::int32_t> example_;
    bool diverged_ = false;
    std::size_t diverged_at_ = 0;
    double diverged_loss_ = 0;
};

/// @brief The trainer's seed as the 64-bit start of each of its streams.
std::uint64_t stream_seed(double seed, std::uint64_t stream);

}  // namespace attnlab
