#include "attnlab/mask.hpp"

#include <algorithm>
#include <cmath>

#include "attnlab/errors.hpp"

namespace attnlab {

namespace {

// Row-major strides of `shape`, in elements.
shape_t strides_of(const shape_t& shape) {
    shape_t s(shape.size());
    std::size_t step = 1;
    for (std::size_t d = shape.size(); d-- > 0;) {
        s[d] = shape[d] == 1 ? 0 : step;
        step *= shape[d];
    }
    return s;
}

}  // namespace

row_masks::row_masks(const mask_options& opts, const shape_t& lead, std::size_t m, std::size_t n,
                     const std::string& fn)
    : lead_(lead), m_(m), n_(n), causal_(opts.causal) {
    if (opts.window) {
        const std::uint64_t w =
            size_arg(*opts.window).to_count(fn, "window", {1, max_exact_whole, "2^53", "the number of keys a query sees"});
        // Past n, every window is the same as n: clamp so the arithmetic below cannot overflow.
        window_ = w > n ? n + 1 : static_cast<std::size_t>(w);
    }
    if (opts.valid_lens) {
        const tensor& vl = *opts.valid_lens;
        shape_t target = lead;
        target.push_back(m);
        const shape_t shape = shape_of(vl);
        bool prefix = shape.size() <= target.size();
        for (std::size_t d = 0; prefix && d < shape.size(); ++d) prefix = shape[d] == target[d];
        if (!prefix) {
            fail(error_text(fn) << ": validLens has shape " << shape << "; expected a prefix of " << target
                << " (one length per batch element, or one per query row)");
        }
        for (std::size_t i = 0; i < vl.size(); ++i) {
            const float len = vl.data()[i];
            if (!(len >= 0 && len <= float(n) && std::floor(len) == len)) {
                fail(error_text(fn) << ": validLens" << index_at{shape, i} << " = " << len
                    << "; expected an integer in [0, " << n << "] (the number of keys)");
            }
        }
        valid_lens_ = vl;
        // Left-aligned: axes present in valid_lens are indexed, the rest broadcast.
        shape_t full = shape;
        full.resize(target.size(), 1);
        valid_strides_ = strides_of(full);
    }
    if (opts.mask) {
        const tensor& mk = *opts.mask;
        shape_t target = lead;
        target.push_back(m);
        target.push_back(n);
        const shape_t shape = shape_of(mk);
        // NumPy broadcasting: right-aligned, each axis equal or 1.
        bool fits = shape.size() <= target.size();
        const std::size_t pad = fits ? target.size() - shape.size() : 0;
        for (std::size_t d = 0; fits && d < shape.size(); ++d) {
            fits = shape[d] == target[pad + d] || shape[d] == 1;
        }
        if (!fits) {
            fail(error_text(fn) << ": mask has shape " << shape << "; expected a shape that broadcasts to "
                << target);
        }
        for (std::size_t i = 0; i < mk.size(); ++i) {
            const float v = mk.data()[i];
            if (v != 0.0f && v != 1.0f) {
                fail(error_text(fn) << ": mask" << index_at{shape, i} << " = " << v
                    << "; expected true/false (1 or 0)");
            }
        }
        mask_ = mk;
        shape_t full(pad, 1);
        for (std::size_t x : shape) full.push_back(x);
        mask_strides_ = strides_of(full);
    }
}

std::size_t row_masks::offset(const shape_t& strides, std::size_t batch, std::size_t row) const {
    // strides covers [...lead, m] (valid lengths) or [...lead, m, n] (mask).
    std::size_t off = row * strides[lead_.size()];
    for (std::size_t d = lead_.size(); d-- > 0;) {
        off += (batch % lead_[d]) * strides[d];
        batch /= lead_[d];
    }
    return off;
}

key_range row_masks::range(std::size_t batch, std::size_t row) const {
    key_range r{0, n_};
    if (valid_lens_) {
        r.end = std::min(r.end, static_cast<std::size_t>(valid_lens_->data()[offset(valid_strides_, batch, row)]));
    }
    if (causal_ || window_) {
        // Query `row` sits at key position p = row + (n - m); it sees keys up to and including p,
        // and with a window only the last `window` of them: p - window < j <= p.
        const long long p = static_cast<long long>(row) + static_cast<long long>(n_) -
                            static_cast<long long>(m_);
        const std::size_t through = p < 0 ? 0 : static_cast<std::size_t>(p + 1);
        r.end = std::min(r.end, through);
        if (window_ && through > window_) r.begin = through - window_;
    }
    if (r.begin > r.end) r.begin = r.end;
    return r;
}

const float* row_masks::mask_row(std::size_t batch, std::size_t row) const {
    if (!mask_) return nullptr;
    return mask_->data() + offset(mask_strides_, batch, row);
}

}  // namespace attnlab
