#include "staging.hpp"

#include <cstdint>
#include <new>

#include <emscripten/val.h>

#include "attnlab/errors.hpp"
#include "convert.hpp"

namespace attnlab::bindings {

namespace {

double address(const void* p) { return static_cast<double>(reinterpret_cast<std::uintptr_t>(p)); }

}  // namespace

emscripten::val staging::memory_view() const {
    return emscripten::val(emscripten::typed_memory_view(0, static_cast<const float*>(nullptr)));
}

void staging::set_name(int index, const std::string& name) {
    if (index < 0) return;
    if (names_.size() <= static_cast<std::size_t>(index)) names_.resize(index + 1);
    names_[index] = name;
}

const std::string& staging::name(int index) const {
    static const std::string unknown = "?";
    return index >= 0 && static_cast<std::size_t>(index) < names_.size() ? names_[index] : unknown;
}

double staging::input(int slot, int fn, int name_index, int rank, double length) {
    try {
        if (slot < 0 || static_cast<std::size_t>(slot) >= slots || rank < 0 ||
            static_cast<std::size_t>(rank) > scratch_size) {
            throw std::logic_error(name(fn) + ": internal error (bad staging slot or rank)");
        }
        inputs_[slot] = make_input(scratch_.data(), rank, length, name(fn), name(name_index));
        return address(inputs_[slot]->data());
    } catch (const std::bad_alloc&) {
        error_ = name(fn) + ": out of memory; expected smaller inputs";
    } catch (const std::exception& e) {
        error_ = e.what();
    }
    return -1;
}

bool staging::attention(int fn, bool causal, bool has_scale, double scale, int rule, double temperature,
                        bool has_valid_lens, bool has_mask) {
    try {
        attention_options opts;
        opts.causal = causal;
        if (has_scale) opts.scale = scale;
        opts.rule = rule == 1 ? scaling::none : rule == 2 ? scaling::inv_dk : scaling::inv_sqrt_dk;
        opts.temperature = temperature;
        for (int slot = 0; slot < 3; ++slot) {
            if (!inputs_[slot]) throw std::logic_error(name(fn) + ": internal error (input not staged)");
        }
        if (has_valid_lens && inputs_[3]) opts.valid_lens = std::move(*inputs_[3]);
        if (has_mask && inputs_[4]) opts.mask = std::move(*inputs_[4]);
        result_ = attnlab::attention(*inputs_[0], *inputs_[1], *inputs_[2], opts, name(fn));
        const attention_result& r = *result_;
        const shape_t shape = shape_of(r.scores);
        if (10 + shape.size() > scratch_size) throw std::logic_error(name(fn) + ": internal error (rank)");
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
        return true;
    } catch (const std::bad_alloc&) {
        error_ = name(fn) + ": out of memory; expected smaller inputs";
    } catch (const std::exception& e) {
        error_ = e.what();
    }
    return false;
}

void staging::release() {
    for (auto& t : inputs_) t.reset();
    result_.reset();
    fully_masked_ = std::vector<double>();
    error_ = std::string();
}

}  // namespace attnlab::bindings
