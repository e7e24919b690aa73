#include "staging.hpp"
#include "position_tables.hpp"

#include <cmath>
#include <cstdint>
#include <new>

#include <emscripten/em_macros.h>
#include <emscripten/val.h>

#include "attnlab/errors.hpp"
#include "convert.hpp"
#include "object_functions.hpp"

namespace attnlab::bindings {

namespace {

double address(const void* p) { return static_cast<double>(reinterpret_cast<std::uintptr_t>(p)); }

}  // namespace

// Declared in convert.hpp; defined here, with the per-call path built at -O3, since every
// lab.attention call stages its inputs through it. Inputs that pass every check take the
// plain loop below, which builds no text; anything else goes to checked_input (convert.cpp,
// built for size), which makes the same checks with their messages and throws.
tensor make_input(const double* extents, std::size_t rank, double length, const char* fn, const char* name) {
    shape_t shape(rank);
    std::size_t size = 1;
    for (std::size_t i = 0; i < rank; ++i) {
        const double x = extents[i];
        // Whole, and small enough that the running product cannot pass the limit unseen.
        if (!(x >= 0 && x <= static_cast<double>(default_max_elements) && std::floor(x) == x)) {
            return checked_input(extents, rank, length, fn, name);
        }
        shape[i] = static_cast<std::size_t>(x);
        size *= shape[i];
        if (size > default_max_elements) return checked_input(extents, rank, length, fn, name);
    }
    if (length != static_cast<double>(size)) return checked_input(extents, rank, length, fn, name);
    return empty(shape);
}

emscripten::val staging::memory_view() const {
    return emscripten::val(emscripten::typed_memory_view(0, static_cast<const float*>(nullptr)));
}

// The names in messages, by the numbers web/src/api/staging.js passes: the function (0), then the
// input slots plus one. Constant, so nothing is registered from JS while the engine starts.
const std::string& staging::name(int index) const {
    static const std::string names[] = {"attention", "Q", "K", "V", "validLens", "mask", "?"};
    constexpr int count = static_cast<int>(sizeof(names) / sizeof(names[0])) - 1;
    return names[index >= 0 && index < count ? index : count];
}

double staging::input(int slot, int fn, int name_index, int rank, double length) {
    try {
        if (slot < 0 || static_cast<std::size_t>(slot) >= slots || rank < 0 ||
            static_cast<std::size_t>(rank) > scratch_size) {
            throw std::logic_error(name(fn) + ": internal error (bad staging slot or rank)");
        }
        inputs_[slot] = make_input(scratch_.data(), rank, length, name(fn).c_str(), name(name_index).c_str());
        return address(inputs_[slot]->data());
    } catch (const std::bad_alloc&) {
        error_ = name(fn) + ": out of memory; expected smaller inputs";
    } catch (const std::exception& e) {
        error_ = e.what();
    }
    return -1;
}

bool staging::attention(int fn, bool causal, bool has_scale, double scale, int rule, double temperature,
                        bool has_valid_lens, bool has_mask, bool has_window, double window) {
    try {
        attention_options opts;
        opts.causal = causal;
        if (has_scale) opts.scale = scale;
        opts.rule = rule == 1 ? scaling::none : rule == 2 ? scaling::inv_dk : scaling::inv_sqrt_dk;
        opts.temperature = temperature;
        if (has_window) opts.window = window;
        for (int slot = 0; slot < 3; ++slot) {
            if (!inputs_[slot]) throw std::logic_error(name(fn) + ": internal error (input not staged)");
        }
        if (has_valid_lens && inputs_[3]) opts.valid_lens = std::move(*inputs_[3]);
        if (has_mask && inputs_[4]) opts.mask = std::move(*inputs_[4]);
        opts.positions = positions_;
        result_ = attnlab::attention(*inputs_[0], *inputs_[1], *inputs_[2], opts, name(fn));
        write_header(*result_);
        const shape_t q = shape_of(*inputs_[0]);
        const std::size_t floats = result_->scores.size() * 4 + result_->output.size() + inputs_[0]->size() +
                                   inputs_[1]->size() + inputs_[2]->size();
        if (!has_valid_lens && !has_mask && !has_window && !opts.positions.any() && fn == 0 && floats <= cache_max_floats) {
            // Validated by the call that just succeeded: later calls of these shapes and options
            // can reuse one workspace (same kernels, bit-identical stages) with no allocation.
            cache_key key{q, shape_of(*inputs_[1]), shape_of(*inputs_[2]), causal, has_scale, scale, temperature, rule};
            if (!(cached_ && key == cached_key_)) {
                cached_.reset();
                const shape_t lead(q.begin(), q.end() - 2);
                cached_.emplace(lead, q[q.size() - 2], key.k[key.k.size() - 2], q.back(), key.v.back(), opts, name(fn));
                cached_key_ = std::move(key);
            }
        }
        return true;
    } catch (const std::bad_alloc&) {
        error_ = name(fn) + ": out of memory; expected smaller inputs";
    } catch (const std::exception& e) {
        error_ = e.what();
    }
    return false;
}

int staging::lookup(bool causal, bool has_scale, double scale, int rule, double temperature, double len_q,
                    double len_k, double len_v) {
    // What an earlier call staged and could not release (its JavaScript ran out of stack
    // between input() and release()) goes now: nothing staged outlives the next call.
    if (result_ || inputs_[0] || inputs_[1] || inputs_[2] || inputs_[3] || inputs_[4]) release();
    if (!cached_ || cached_key_.causal != causal || cached_key_.has_scale != has_scale ||
        cached_key_.scale != scale || cached_key_.rule != rule || cached_key_.temperature != temperature) {
        return 0;
    }
    // The three shapes as [rank, ...extents], compared without building shape_t.
    std::size_t at = 0;
    const shape_t* shapes[] = {&cached_key_.q, &cached_key_.k, &cached_key_.v};
    const double lens[] = {len_q, len_k, len_v};
    for (int t = 0; t < 3; ++t) {
        const shape_t& want = *shapes[t];
        if (scratch_[at] != static_cast<double>(want.size()) || at + 1 + want.size() > scratch_size) return 0;
        double size = 1;
        for (std::size_t i = 0; i < want.size(); ++i) {
            if (scratch_[at + 1 + i] != static_cast<double>(want[i])) return 0;
            size *= static_cast<double>(want[i]);
        }
        if (lens[t] != size) return 0;
        at += 1 + want.size();
    }
    scratch_[0] = address(cached_->q().data());
    scratch_[1] = address(cached_->k().data());
    scratch_[2] = address(cached_->v().data());
    return 1;
}

bool staging::run_cached() {
    try {
        write_header(cached_->run());
        return true;
    } catch (const std::bad_alloc&) {
        error_ = "attention: out of memory; expected smaller inputs";
    } catch (const std::exception& e) {
        error_ = e.what();
    }
    return false;
}

void staging::write_header(const attention_result& r) {
    const auto& shape = r.scores.shape();
    if (10 + shape.size() > scratch_size) throw std::logic_error("attention: internal error (rank)");
    fully_masked_.clear();
    for (const shape_t& row : r.fully_masked_rows) {
        for (std::size_t i : row) fully_masked_.push_back(static_cast<double>(i));
    }
    scratch_[0] = r.scale;
    scratch_[1] = static_cast<double>(r.fully_masked_rows.size());
    scratch_[2] = address(fully_masked_.data());
    scratch_[3] = static_cast<double>(shape.size());
    scratch_[4] = address(r.scores.data());
    scratch_[5] = address(r.scaled.data());
    scratch_[6] = address(r.masked.data());
    scratch_[7] = address(r.weights.data());
    scratch_[8] = address(r.output.data());
    scratch_[9] = static_cast<double>(r.output.shape().back());
    for (std::size_t i = 0; i < shape.size(); ++i) scratch_[10 + i] = static_cast<double>(shape[i]);
}

void staging::positions(int rope_layout, bool has_base, double base, double offset, bool alibi) {
    positions_ = position_spec(rope_layout, has_base, base, offset, alibi);
}

void staging::release() {
    positions_ = position_options{};
    for (auto& t : inputs_) t.reset();
    result_.reset();
    fully_masked_ = std::vector<double>();
    error_ = std::string();
}

}  // namespace attnlab::bindings

// The calls of a repeated small lab.attention (web/src/api/staging.js), as plain wasm exports
// rather than embind functions: embind's invoker converts every argument through its type
// table, 0.15-0.25 us a call at n = 5, as long as copying the result out. These take numbers.
extern "C" {

EMSCRIPTEN_KEEPALIVE int attnlab_staging_lookup(double address, int causal, int has_scale, double scale, int rule,
                                                double temperature, double len_q, double len_k, double len_v) {
    return attnlab::bindings::object_at<attnlab::bindings::staging>(address).lookup(
        causal != 0, has_scale != 0, scale, rule, temperature, len_q, len_k, len_v);
}

EMSCRIPTEN_KEEPALIVE int attnlab_staging_run_cached(double address) {
    return attnlab::bindings::object_at<attnlab::bindings::staging>(address).run_cached() ? 1 : 0;
}

}  // extern "C"
