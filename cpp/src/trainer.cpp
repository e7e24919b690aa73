#include "attnlab/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"
#include "attnlab/language_model.hpp"

namespace attnlab {

namespace {

// Fixed streams: the evaluation set and the probe are the same whatever the seed.
constexpr std::uint64_t eval_stream_seed = 0x6576616C2D736574ull;   // "eval-set"
constexpr std::uint64_t probe_stream_seed = 0x70726F62652D3031ull;  // "probe-01"

const trainer_options& checked(const trainer_options& o, const std::string& fn) {
    const double lr = o.optimiser.lr, wd = o.optimiser.weight_decay;
    if (!(lr > 0 && lr <= 100)) {
        fail(error_text(fn) << ": lr = " << lr << "; expected a learning rate above 0 and at most 100");
    }
    if (!(wd >= 0 && wd <= 1)) fail(error_text(fn) << ": weightDecay = " << wd << "; expected a number from 0 to 1");
    require_whole(o.seed, 0, 9007199254740991.0, fn, "seed", "2^53 - 1");
    require_whole(o.schedule.warmup_steps, 0, 1e9, fn, "warmupSteps");
    require_whole(o.schedule.decay_steps, 0, 1e9, fn, "decaySteps");
    const double min_lr = o.schedule.min_lr;
    if (!(min_lr >= 0 && min_lr <= lr)) {
        fail(error_text(fn) << ": minLr = " << min_lr << "; expected a learning rate from 0 to lr = " << lr);
    }
    return o;
}

}  // namespace

double scheduled_lr(double lr, const lr_schedule& schedule, std::size_t t) {
    const double step = static_cast<double>(t), warmup = schedule.warmup_steps, decay = schedule.decay_steps;
    if (step <= warmup) return lr * step / warmup;
    if (decay <= 0) return lr;
    const double s = std::min(step - warmup, decay) / decay;
    const double pi = 3.14159265358979323846;
    return schedule.min_lr + (lr - schedule.min_lr) * 0.5 * (1.0 + std::cos(pi * s));
}

std::uint64_t stream_seed(double seed, std::uint64_t stream) {
    // splitmix64's finaliser over the seed and the stream's number
    std::uint64_t z = static_cast<std::uint64_t>(seed) + stream * 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

trainer::trainer(const trainer_options& options, const std::string& fn)
    : options_(checked(options, fn)),
      model_(options.model, options.batch, fn),
      task_(options.task, options.model.vocab, options.model.seq_len, fn),
      optimiser_(model_.param_count()),
      data_rng_(stream_seed(options.seed, 2)) {
    model_.initialise(stream_seed(options.seed, 1));
    normal_generator eval_rng(eval_stream_seed);
    task_.sample(eval_rng, eval_examples, eval_);
    // What a step draws into and records, taken now: a step allocates nothing (t.memory is the run's)
    const std::size_t rows = options.batch * options.model.seq_len;
    batch_.tokens.resize(rows);
    batch_.targets.resize(rows);
    batch_.scored.resize(rows);
    reports_.reserve(options.model.layers * options.model.heads);

    // The probe: blocks of distinct random tokens, each repeated to fill the context.
    const std::size_t T = options.model.seq_len, content = task_.content_tokens();
    const std::size_t block = std::min(content, std::max<std::size_t>(2, T / 3));
    probe_block_ = block;
    normal_generator probe_rng(probe_stream_seed);
    probe_.resize(probe_examples * T);
    std::vector<std::int32_t> ids(content);
    for (std::size_t e = 0; e < probe_examples; ++e) {
        std::iota(ids.begin(), ids.end(), 0);
        for (std::size_t i = 0; i < block; ++i) {
            const std::size_t j = i + static_cast<std::size_t>(probe_rng.uniform() * double(content - i)) % (content - i);
            std::swap(ids[i], ids[j]);
        }
        for (std::size_t t = 0; t < T; ++t) probe_[e * T + t] = ids[t % block];
    }
    if (task_.kind() == task_kind::induction) {
        example_.assign(probe_.begin(), probe_.begin() + T);
    } else {
        std::vector<std::int32_t> s(T + 1);
        std::vector<std::uint8_t> scored(T);
        normal_generator example_rng(probe_stream_seed);
        task_.example(example_rng, s.data(), scored.data());
        example_.assign(s.begin(), s.begin() + T);
    }
}

double trainer::uniform_loss() const { return std::log(static_cast<double>(options_.model.vocab)); }

double trainer::divergence_limit() const { return 10.0 + 3.0 * uniform_loss(); }

step_result trainer::step(std::size_t count, double* losses, const std::string& fn) {
    step_record record;
    record.losses = losses;
    return step(count, record, fn);
}

void trainer::note_loss(double loss, step_result& r) {
    window_[window_next_] = loss;
    window_next_ = (window_next_ + 1) % loss_window;
    if (window_count_ < loss_window) ++window_count_;
    read_window(r, true);
}

void trainer::read_window(step_result& r, bool update) {
    double sum = 0;
    for (std::size_t i = 0; i < window_count_; ++i) sum += window_[i];
    // before any update: the loss of the step that diverged, if any
    const double recent = window_count_ ? sum / static_cast<double>(window_count_) : r.loss;
    if (update && window_count_ == loss_window && (best_at_ == 0 || recent < best_loss_)) {
        best_loss_ = recent;
        best_at_ = optimiser_.updates();
    }
    r.recent_loss = recent;
    r.best_loss = best_at_ ? best_loss_ : recent;
    r.best_at = best_at_;
    r.rising = best_at_ > 0 && recent > best_loss_ + rise_limit;
    r.worse_than_uniform = r.rising && recent > uniform_loss();
}

void trainer::check_count(std::size_t count, const std::string& fn) const {
    if (count < 1 || count > max_steps_per_call) {
        fail(error_text(fn) << ": count = " << count << "; expected a whole number from 1 to " << max_steps_per_call);
    }
}

step_result trainer::step(std::size_t count, const step_record& record, const std::string& fn) {
    check_count(count, fn);
    if (diverged_) {
        fail(error_text(fn) << ": the run diverged at step " << diverged_at_ << " (loss " << diverged_loss_
            << "); expected a new run: reset, or a smaller lr");
    }
    step_result r;
    for (std::size_t i = 0; i < count; ++i) {
        task_.sample(data_rng_, options_.batch, batch_);
        model_.forward(batch_.tokens.data(), batch_.batch, batch_.n);
        const grad::cross_entropy_totals totals = model_.loss(batch_.targets.data(), batch_.scored.data());
        const double loss = totals.loss / static_cast<double>(totals.scored);
        model_.backward();
        if (!std::isfinite(loss) || loss > divergence_limit() ||
            !kernels::all_finite(model_.grads(), model_.param_count())) {
            diverged_ = true;
            diverged_at_ = optimiser_.updates() + 1;
            diverged_loss_ = loss;
            r.diverged = true;
            r.loss = loss;
            break;
        }
        adam_options now = options_.optimiser;
        now.lr = scheduled_lr(now.lr, options_.schedule, optimiser_.updates() + 1);
        optimiser_.update(model_.params(), model_.grads(), model_.parameters(), now);
        r.loss = loss;
        note_loss(loss, r);
        if (record.losses) record.losses[i] = loss;
        if (record.accuracies) record.accuracies[i] = static_cast<double>(totals.correct) / static_cast<double>(totals.scored);
        if (!records_heads()) continue;
        score_probe(reports_);
        const head_report* best = &reports_[0];
        double previous = 0;
        for (const head_report& h : reports_) {
            if (h.induction > best->induction) best = &h;
            previous = std::max(previous, h.previous_token_first_copy);
        }
        if (record.induction) record.induction[i] = best->induction;
        if (record.previous) record.previous[i] = previous;
        if (formed_.step == 0 && best->induction >= formed_threshold) {
            formed_ = formed_head{optimiser_.updates(), best->layer, best->head, best->induction};
        }
    }
    r.step = optimiser_.updates();
    if (r.diverged) read_window(r, false);  // the state after the last update made
    return r;
}

evaluation trainer::evaluate() {
    grad::cross_entropy_totals sum;
    const std::size_t T = eval_.n, cap = model_.batch_capacity();
    for (std::size_t b0 = 0; b0 < eval_.batch; b0 += cap) {
        const std::size_t b = std::min(cap, eval_.batch - b0);
        model_.forward(eval_.tokens.data() + b0 * T, b, T);
        const grad::cross_entropy_totals t = model_.loss(eval_.targets.data() + b0 * T, eval_.scored.data() + b0 * T);
        sum.loss += t.loss;
        sum.scored += t.scored;
        sum.correct += t.correct;
    }
    evaluation e;
    e.scored = sum.scored;
    e.loss = sum.loss / static_cast<double>(sum.scored);
    e.accuracy = static_cast<double>(sum.correct) / static_cast<double>(sum.scored);
    return e;
}

position_loss trainer::loss_by_position(std::size_t length, std::size_t examples, const std::string& fn) {
    const transformer_config& c = options_.model;
    if (length < 2 || length > max_eval_length) {
        fail(error_text(fn) << ": length = " << length << "; expected a whole number from 2 to " << max_eval_length);
    }
    if (examples < 1 || examples > max_eval_examples) {
        fail(error_text(fn) << ": examples = " << examples << "; expected a whole number from 1 to " << max_eval_examples);
    }
    if (c.positions == position_kind::learned && length > c.seq_len) {
        fail(error_text(fn) << ": length = " << length << " is past the learned position table, which has vectors for "
            << c.seq_len << " positions (seqLen): a learned table knows nothing of position " << c.seq_len
            << " and beyond; expected a length up to " << c.seq_len
            << ", or a model trained with positions 'sinusoidal', 'rope', 'alibi' or 'none'");
    }
    const std::size_t stream = options_.task.stream.size();
    if (options_.task.kind == task_kind::text && stream < length + 1) {
        fail(error_text(fn) << ": length = " << length << " needs windows of " << length + 1 << " tokens, and text has "
            << stream << "; expected a length up to " << stream - 1);
    }
    // Every head's weights of one sequence are kept, as in training: refused here with the
    // length to blame rather than by the model's plan.
    const double weights = double(c.layers) * double(c.heads) * double(length) * double(length);
    if (weights > double(max_plan_floats / 2)) {
        fail(error_text(fn) << ": length = " << length << " needs layers x heads x length^2 = " << weights
            << " attention weights for one sequence, more than " << max_plan_floats / 2 << "; expected a shorter length");
    }
    // The same weights in a model at least as long as the sequences (only a learned table
    // depends on seqLen, and then length <= seqLen keeps it), a few sequences at a time.
    transformer_config lc = c;
    lc.seq_len = std::max(c.seq_len, length);
    const std::size_t per_pass = std::max<std::size_t>(
        1, std::min<std::size_t>(examples, (std::size_t(1) << 22) / (lc.seq_len * lc.seq_len * c.heads * c.layers)));
    transformer model(lc, per_pass, fn, max_eval_length);
    std::copy(model_.params(), model_.params() + model_.param_count(), model.params());
    const task_sampler task(options_.task, c.vocab, length, fn);
    normal_generator rng(eval_stream_seed ^ static_cast<std::uint64_t>(length));
    task_batch batch;
    position_loss out;
    out.loss.assign(length, 0.0);
    out.scored.assign(length, 0);
    double total = 0;
    std::size_t count = 0;
    const std::size_t V = c.vocab;
    for (std::size_t e0 = 0; e0 < examples; e0 += per_pass) {
        task.sample(rng, std::min(per_pass, examples - e0), batch);
        model.forward(batch.tokens.data(), batch.batch, batch.n);
        for (std::size_t r = 0; r < batch.batch * batch.n; ++r) {
            if (!batch.scored[r]) continue;
            // -log softmax(logits)[target], in double
            const float* z = model.logits() + r * V;
            double top = z[0], sum = 0;
            for (std::size_t t = 1; t < V; ++t) top = std::max(top, double(z[t]));
            for (std::size_t t = 0; t < V; ++t) sum += std::exp(double(z[t]) - top);
            const double loss = std::log(sum) + top - double(z[batch.targets[r]]);
            out.loss[r % batch.n] += loss;
            out.scored[r % batch.n] += 1;
            total += loss;
            ++count;
        }
    }
    for (std::size_t p = 0; p < length; ++p) {
        if (out.scored[p]) out.loss[p] /= static_cast<double>(out.scored[p]);
    }
    out.mean = count ? total / static_cast<double>(count) : 0;
    return out;
}

void trainer::attention(const std::int32_t* tokens, std::size_t n, float* out, const std::string& fn) {
    read_attention(model_, tokens, n, out, fn);
}

std::vector<head_report> trainer::head_scores(const char* fn) {
    std::vector<head_report> out;
    score_probe(out);
    for (const head_report& h : out) {
        if (std::isfinite(h.previous_token) && std::isfinite(h.induction) && std::isfinite(h.previous_token_first_copy)) continue;
        fail(error_text(fn) << ": layer " << h.layer << " head " << h.head
            << "'s attention on the probe is not a number: these weights overflow the forward pass"
            << (diverged() ? " (the run diverged)" : "") << "; expected weights whose attention is finite");
    }
    return out;
}

// Not inlined: step() and head_scores() share one copy (the wasm is built at -Oz with LTO).
__attribute__((noinline)) void trainer::score_probe(std::vector<head_report>& out) {
    const transformer_config& c = options_.model;
    const std::size_t T = c.seq_len, H = c.layers * c.heads, B = probe_block_;
    std::vector<head_score_sums> sums(H);
    // rows 1..B: the token after each token of the first copy (fewer when the block fills the context)
    const std::size_t first_rows = std::min(B, T - 1);
    std::vector<double> first_copy(H, 0.0);
    // The probe in as few passes as the model's batch allows: one for the usual sizes.
    for (std::size_t e0 = 0; e0 < probe_examples; e0 += model_.batch_capacity()) {
        const std::size_t b = std::min(model_.batch_capacity(), probe_examples - e0);
        model_.forward(probe_.data() + e0 * T, b, T);
        for (std::size_t e = 0; e < b; ++e) {
            const std::int32_t* tokens = probe_.data() + (e0 + e) * T;
            for (std::size_t k = 0; k < H; ++k) {
                const float* p = model_.weights(k / c.heads) + (e * c.heads + k % c.heads) * T * T;
                sums[k].add_self(p, T, tokens);
                for (std::size_t i = 1; i <= first_rows; ++i) first_copy[k] += p[i * T + i - 1];
            }
        }
    }
    out.clear();
    for (std::size_t k = 0; k < H; ++k) {
        // Both are defined: seqLen >= 2 gives rows i >= 1, and every probe row past the first
        // block repeats a token.
        const attnlab::head_scores s = scores_of(sums[k]);
        out.push_back(head_report{k / c.heads, k % c.heads, s.previous_token.value_or(0), s.prefix_matching.value_or(0),
                                  first_copy[k] / static_cast<double>(first_rows * probe_examples)});
    }
}

void trainer::set_weights(const float* data, std::size_t size, const std::string& fn) {
    load_weights(model_, data, size, fn);
}

}  // namespace attnlab
