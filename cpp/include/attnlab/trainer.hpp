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
    /// The mean loss of the last trainer::loss_window updates (of every update so far before
    /// that many): the loss with the batch-to-batch noise averaged out.
    double recent_loss = 0;
    /// The lowest recent_loss over a full window so far, and the update it was reached at (0
    /// and recent_loss before the first full window).
    double best_loss = 0;
    std::size_t best_at = 0;
    /// The run is getting worse: recent_loss is more than trainer::rise_limit nats above best_loss.
    bool rising = false;
    /// Rising, and recent_loss above trainer::uniform_loss(): the model now does worse than one
    /// that gives every token the same probability, which is where an untrained model starts.
    bool worse_than_uniform = false;
};

/// @brief Where step() writes what each update did. Each pointer may be null; each array has
/// room for `count` entries, and the first (updates made by the call) of them are written.
struct step_record {
    double* losses = nullptr;      ///< the update's mean loss over its scored positions (nats)
    double* accuracies = nullptr;  ///< the fraction of its scored positions whose largest logit was the target
    /// Induction task only (trainer::records_heads()): after the update, the largest induction
    /// score of any head on the probe, and the largest previous-token score on the probe's
    /// first copy (head_report); exactly what head_scores() would return then.
    double* induction = nullptr;
    double* previous = nullptr;
};

/// @brief The first update after which a head's induction score on the probe reached
/// trainer::formed_threshold (step 0 while none has), with that head and score.
struct formed_head {
    std::size_t step = 0, layer = 0, head = 0;
    double score = 0;
};

/// @brief The loss and accuracy on the fixed evaluation set.
struct evaluation {
    double loss = 0;      ///< mean over its scored positions (nats)
    double accuracy = 0;  ///< fraction of scored positions whose largest logit is the target
    std::size_t scored = 0;
};

/// @brief The loss at each position of sequences `length` tokens long (trainer::loss_by_position).
struct position_loss {
    std::vector<double> loss;         ///< [length]: the mean loss at each position over its scored examples (nats); 0 where none
    std::vector<std::size_t> scored;  ///< [length]: how many examples scored each position
    double mean = 0;                  ///< over every scored position of every example
};

/// @brief Longest sequences loss_by_position() reads, and most examples.
inline constexpr std::size_t max_eval_length = 1024;
inline constexpr std::size_t max_eval_examples = 1024;

/// @brief One head's scores on the probe (head_scores.hpp): previous_token and
/// prefix_matching ("induction") over repeated blocks of random tokens.
struct head_report {
    std::size_t layer = 0, head = 0;
    double previous_token = 0;
    double induction = 0;
    /// The previous-token score over the rows an induction head reads its keys from: rows 1 to
    /// B of each probe sequence (B the block's length), the token after each token of the
    /// first copy. A two-layer model's previous-token head need not look back further.
    double previous_token_first_copy = 0;
};

class trainer {
public:
    /// Sequences of the fixed evaluation set, and of the head-score probe.
    static constexpr std::size_t eval_examples = 128;
    static constexpr std::size_t probe_examples = 8;
    /// An induction score from this on counts as an induction head (Olsson et al. use 0.5 too).
    static constexpr double formed_threshold = 0.5;
    /// Updates in step_result::recent_loss, and how far (nats) it may rise above its best
    /// before the run counts as rising.
    static constexpr std::size_t loss_window = 50;
    static constexpr double rise_limit = 1.0;
    /// The most updates one step() call makes.
    static constexpr std::size_t max_steps_per_call = 100000;

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

    /// @brief The same, writing each update's loss, accuracy and (induction task) best head
    /// scores into `record`. For the induction task every update is followed by a pass of the
    /// probe, which keeps formed(): the same seed marks the same step, however the run is cut
    /// into calls.
    step_result step(std::size_t count, const step_record& record, const std::string& fn = "Trainer.step");

    /// @brief Refuses a step count outside 1..max_steps_per_call, as step() does (for a caller
    /// that sizes buffers by the count before stepping).
    /// @throws argument_error naming `fn`
    void check_count(std::size_t count, const std::string& fn = "Trainer.step") const;

    /// @brief Loss and accuracy on the fixed evaluation set (eval_examples sequences).
    evaluation evaluate();

    /// @brief The loss at each position on `examples` fresh sequences of the task, `length`
    /// tokens long, which may pass the training length (seqLen) where the positions allow it.
    /// The sequences are fixed by the length (the same for every seed and every call).
    /// @throws argument_error naming `fn` for length outside 2..max_eval_length, examples
    /// outside 1..max_eval_examples, a length past seqLen with positions = 'learned' (the table
    /// has no vector there), or a task that cannot make sequences that long
    position_loss loss_by_position(std::size_t length, std::size_t examples, const std::string& fn = "Trainer.lossByPosition");

    /// @brief The attention weights of every head on `tokens` (n of them, 1..seqLen, each
    /// below vocab), into out[layers, heads, n, n]: rows sum to 1, 0 above the diagonal.
    /// @throws argument_error naming `fn` for a bad length or token
    void attention(const std::int32_t* tokens, std::size_t n, float* out, const std::string& fn = "Trainer.attention");

    /// @brief Every head's scores on the probe, layer by layer.
    /// @throws argument_error naming `fn` when a score is not a number (weights that overflow
    /// the forward pass, as after a diverged run): never a NaN read as a score
    std::vector<head_report> head_scores(const char* fn = "Trainer.headScores");

    /// @brief Whether step() scores the heads after every update (the induction task, whose
    /// heads the probe is made for).
    bool records_heads() const { return options_.task.kind == task_kind::induction; }
    /// @brief The first update after which an induction head was there (records_heads() only).
    const formed_head& formed() const { return formed_; }

    /// @brief The probe's first sequence (seq_len tokens): a fixed example of the task, for
    /// showing the heads' patterns.
    std::vector<std::int32_t> example() const { return example_; }

    /// @brief Replaces the weights with `size` floats in parameters() order. Used by loading:
    /// the caller checks names and shapes against parameters().
    /// @throws argument_error naming `fn` for a wrong count or a value that is not finite
    void set_weights(const float* data, std::size_t size, const std::string& fn);

    const transformer& model() const { return model_; }
    /// @brief For reading the model on other inputs (ablation.cpp): the fixed evaluation set,
    /// and the model to run it through.
    const task_batch& evaluation_set() const { return eval_; }
    transformer& network() { return model_; }
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
    std::size_t probe_block_ = 0;      // the length of the probe's block
    std::vector<std::int32_t> example_;
    bool diverged_ = false;
    std::size_t diverged_at_ = 0;
    double diverged_loss_ = 0;
    formed_head formed_;
    std::vector<head_report> reports_;  // the last scores, reused by step()
    double window_[loss_window] = {};   // the last losses, a ring from window_next_
    std::size_t window_next_ = 0, window_count_ = 0;
    double best_loss_ = 0;
    std::size_t best_at_ = 0;

    void score_probe(std::vector<head_report>& out);
    void note_loss(double loss, step_result& r);
    void read_window(step_result& r, bool update);
};

/// @brief The trainer's seed as the 64-bit start of each of its streams.
std::uint64_t stream_seed(double seed, std::uint64_t stream);

}  // namespace attnlab
