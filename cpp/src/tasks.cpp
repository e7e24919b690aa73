#include "attnlab/tasks.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attnlab/errors.hpp"

namespace attnlab {

namespace {

// A whole number in [0, k), from 53 random bits.
std::size_t below(normal_generator& rng, std::size_t k) {
    return static_cast<std::size_t>(rng.uniform() * static_cast<double>(k)) % k;
}

bool separated(task_kind k) { return k == task_kind::copy || k == task_kind::reverse || k == task_kind::sort; }

void check_tokens(const std::vector<std::int32_t>& s, std::size_t vocab, const std::string& fn, const char* what,
                  std::size_t index) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] >= 0 && static_cast<std::size_t>(s[i]) < vocab) continue;
        error_text where(what);
        if (index != static_cast<std::size_t>(-1)) where << "[" << index << "]";
        to_token(s[i], vocab, fn, (where << "[" << i << "]").str());
    }
}

}  // namespace

std::int32_t to_token(double x, std::size_t vocab, const std::string& fn, const std::string& where) {
    if (!(x >= 0 && x < static_cast<double>(vocab) && x == std::floor(x))) {
        fail(error_text(fn) << ": " << where << " = " << x << "; expected a token id from 0 to " << (vocab - 1)
            << " (vocab = " << vocab << ")");
    }
    return static_cast<std::int32_t>(x);
}

const char* task_name(task_kind kind) {
    switch (kind) {
        case task_kind::induction: return "induction";
        case task_kind::copy: return "copy";
        case task_kind::reverse: return "reverse";
        case task_kind::sort: return "sort";
        case task_kind::sequences: return "sequences";
        case task_kind::text: return "text";
    }
    return "?";
}

block_range induction_block_range(std::size_t vocab, std::size_t seq_len) {
    const std::size_t half = seq_len / 2 > 3 ? seq_len / 2 - 1 : 2;
    const std::size_t longest = std::min(vocab, half);
    return {std::min<std::size_t>(4, longest), longest};
}

task_sampler::task_sampler(const task_spec& spec, std::size_t vocab, std::size_t seq_len, const std::string& fn)
    : spec_(spec), vocab_(vocab), seq_len_(seq_len), ids_(vocab), example_(seq_len + 1) {
    const char* name = task_name(spec.kind);
    if (spec.kind == task_kind::induction && seq_len < 4) {
        fail(error_text(fn) << ": seqLen = " << seq_len << "; expected at least 4 for the induction task (a block of 2 tokens and its repeat)");
    }
    if (separated(spec.kind)) {
        if (vocab < 3) {
            fail(error_text(fn) << ": vocab = " << vocab << "; expected at least 3 for the " << name
                << " task (2 token ids and the separator)");
        }
        if (seq_len < 3) {
            fail(error_text(fn) << ": seqLen = " << seq_len << "; expected at least 3 for the " << name << " task");
        }
    }
    if (spec.kind == task_kind::sequences) {
        if (spec_.sequences.empty()) fail(error_text(fn) << ": sequences is empty; expected at least one sequence of token ids");
        for (std::size_t i = 0; i < spec_.sequences.size(); ++i) {
            const std::size_t len = spec_.sequences[i].size();
            if (len < 2 || len > seq_len + 1) {
                fail(error_text(fn) << ": sequences[" << i << "] has " << len << " tokens; expected 2 to "
                    << (seq_len + 1) << " (seqLen + 1: the model reads seqLen tokens and predicts each next one)");
            }
            check_tokens(spec_.sequences[i], vocab, fn, "sequences", i);
            if (len < spec.score_from + 2) {
                fail(error_text(fn) << ": sequences[" << i << "] has " << len << " tokens, so with scoreFrom = "
                    << spec.score_from << " none of its positions is scored; expected at least scoreFrom + 2 tokens");
            }
        }
    }
    if (spec.kind == task_kind::text) {
        if (spec_.stream.size() < seq_len + 1) {
            fail(error_text(fn) << ": text has " << spec_.stream.size() << " tokens; expected at least "
                << (seq_len + 1) << " (seqLen + 1)");
        }
        check_tokens(spec_.stream, vocab, fn, "text", static_cast<std::size_t>(-1));
    }
    if (!(spec.repeats >= 0 && spec.repeats <= 1)) {
        fail(error_text(fn) << ": repeats = " << spec.repeats << "; expected a fraction from 0 to 1");
    }
    if (spec.repeats > 0 && spec.kind != task_kind::text) {
        fail(error_text(fn) << ": repeats = " << spec.repeats << " but task is '" << name
            << "'; expected repeats only with task 'text'");
    }
    if ((spec.kind == task_kind::sequences || spec.kind == task_kind::text) && spec.score_from >= seq_len) {
        fail(error_text(fn) << ": scoreFrom = " << spec.score_from << "; expected a position from 0 to " << (seq_len - 1));
    }
}

std::size_t task_sampler::content_tokens() const { return separated(spec_.kind) ? vocab_ - 1 : vocab_; }

void task_sampler::example(normal_generator& rng, std::int32_t* s, std::uint8_t* scored) const {
    const std::size_t T = seq_len_;
    std::fill(scored, scored + T, 0);
    switch (spec_.kind) {
        case task_kind::induction: {
            const block_range range = induction_block_range(vocab_, T);
            const std::size_t L = range.shortest + below(rng, range.longest - range.shortest + 1);
            // L distinct tokens: the first L of a partial Fisher-Yates shuffle of the vocabulary
            std::vector<std::int32_t>& ids = ids_;
            std::iota(ids.begin(), ids.end(), 0);
            for (std::size_t i = 0; i < L; ++i) std::swap(ids[i], ids[i + below(rng, vocab_ - i)]);
            for (std::size_t t = 0; t <= T; ++t) s[t] = ids[t % L];
            for (std::size_t t = L; t < T; ++t) scored[t] = 1;
            return;
        }
        case task_kind::copy:
        case task_kind::reverse:
        case task_kind::sort: {
            const std::size_t k = T / 2;
            const std::int32_t sep = static_cast<std::int32_t>(vocab_ - 1);
            for (std::size_t i = 0; i < k; ++i) s[i] = static_cast<std::int32_t>(below(rng, vocab_ - 1));
            s[k] = sep;
            for (std::size_t i = 0; i < k; ++i) s[k + 1 + i] = s[i];
            if (spec_.kind == task_kind::reverse) std::reverse(s + k + 1, s + 2 * k + 1);
            if (spec_.kind == task_kind::sort) {
                // A heap sort: std::sort's introsort is about 1.6 KB of wasm (as in cost.cpp)
                std::make_heap(s + k + 1, s + 2 * k + 1);
                std::sort_heap(s + k + 1, s + 2 * k + 1);
            }
            for (std::size_t t = 2 * k + 1; t <= T; ++t) s[t] = sep;  // an odd seqLen ends on one more separator
            for (std::size_t t = k; t < 2 * k; ++t) scored[t] = 1;
            return;
        }
        case task_kind::sequences: {
            const auto& seq = spec_.sequences[below(rng, spec_.sequences.size())];
            std::fill(s, s + T + 1, 0);
            std::copy(seq.begin(), seq.end(), s);
            for (std::size_t t = spec_.score_from; t + 1 < seq.size(); ++t) scored[t] = 1;
            return;
        }
        case task_kind::text: {
            const std::size_t at = below(rng, spec_.stream.size() - T);
            const auto from = spec_.stream.begin() + static_cast<std::ptrdiff_t>(at);
            // a repeat: s = w[0..L) w[0..L) w[L..T + 1 - L), where w is the window at `at`
            const bool repeat = spec_.repeats > 0 && rng.uniform() < spec_.repeats;
            const std::size_t shortest = std::max<std::size_t>(2, T / 8), longest = std::max(shortest, T / 2);
            const std::size_t L = repeat ? shortest + below(rng, longest - shortest + 1) : 0;
            std::copy(from, from + static_cast<std::ptrdiff_t>(L), s);
            std::copy(from, from + static_cast<std::ptrdiff_t>(T + 1 - L), s + L);
            for (std::size_t t = spec_.score_from; t < T; ++t) scored[t] = 1;
            return;
        }
    }
}

void task_sampler::sample(normal_generator& rng, std::size_t batch, task_batch& out) const {
    const std::size_t T = seq_len_;
    out.batch = batch;
    out.n = T;
    out.tokens.resize(batch * T);
    out.targets.resize(batch * T);
    out.scored.resize(batch * T);
    std::vector<std::int32_t>& s = example_;
    for (std::size_t b = 0; b < batch; ++b) {
        example(rng, s.data(), out.scored.data() + b * T);
        std::copy(s.begin(), s.begin() + T, out.tokens.begin() + b * T);
        std::copy(s.begin() + 1, s.end(), out.targets.begin() + b * T);
    }
}

}  // namespace attnlab
