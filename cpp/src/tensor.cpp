#include "attnlab/tensor.hpp"

#include <cmath>
#include <limits>

#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"

namespace attnlab {

// No iostreams here: in wasm they pull in the whole locale machinery (about 70 KB of code).
std::string shape_string(const shape_t& shape) {
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) out += ", ";
        out += std::to_string(shape[i]);
    }
    return out + ']';
}

shape_t shape_of(const tensor& t) { return shape_t(t.shape().begin(), t.shape().end()); }

shape_t with_tail(const shape_t& lead, std::initializer_list<std::size_t> tail) {
    // Appended one by one: vector::insert of a range is about 1.2 KB of wasm.
    shape_t shape = lead;
    for (std::size_t x : tail) shape.push_back(x);
    return shape;
}

std::size_t checked_size(const shape_t& shape, std::size_t limit, const std::string& fn, const char* what) {
    std::size_t total = 1;
    for (std::size_t extent : shape) {
        if (extent != 0 && total > std::numeric_limits<std::size_t>::max() / extent) {
            fail(error_text(fn) << ": " << what << " " << shape << " is too large for memory");
        }
        total *= extent;
    }
    if (total > limit) {
        fail(error_text(fn) << ": " << what << " " << shape << " would take " << total
            << " floats, more than the limit of " << limit);
    }
    return total;
}

void require_no_overflow(const float* c, const shape_t& shape, const std::string& fn, const char* what,
                         const char* inputs) {
    std::size_t size = 1;
    for (std::size_t extent : shape) size *= extent;
    if (kernels::all_finite(c, size)) return;
    for (std::size_t i = 0; i < size; ++i) {
        if (!std::isfinite(c[i])) {
            fail(error_text(fn) << ": " << what << index_at{shape, i}
                << " overflows float32; expected smaller values in " << inputs);
        }
    }
}

std::string index_string(const shape_t& shape, std::size_t flat) {
    if (shape.empty()) return "";  // a scalar: "validLens = 3", not "validLens[] = 3"
    std::vector<std::size_t> index(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
        index[d] = flat % shape[d];
        flat /= shape[d];
    }
    return shape_string(index);
}

void require_finite(const tensor& t, const std::string& fn, const char* name, bool allow_neg_inf) {
    const float* p = t.data();
    const std::size_t size = t.size();
    if (kernels::all_finite(p, size)) return;  // the common case, vectorised
    for (std::size_t i = 0; i < size; ++i) {
        const float x = p[i];
        if (std::isfinite(x)) continue;
        if (allow_neg_inf && std::isinf(x) && x < 0) continue;
        const char* what = std::isnan(x) ? "NaN" : (x > 0 ? "Infinity" : "-Infinity");
        fail(error_text(fn) << ": " << name << index_at{shape_of(t), i} << " is " << what
            << "; expected finite numbers");
    }
}

void require_nonempty(const tensor& t, const std::string& fn, const char* name) {
    for (std::size_t extent : t.shape()) {
        if (extent == 0) {
            fail(error_text(fn) << ": " << name << " has shape " << shape_of(t)
                << "; expected no zero-sized axis");
        }
    }
}

tensor empty(const shape_t& shape) {
    return tensor::from_shape(tensor::shape_type(shape.data(), shape.data() + shape.size()));
}

tensor empty(std::initializer_list<std::size_t> shape) {
    return tensor::from_shape(tensor::shape_type(shape.begin(), shape.end()));
}

tensor zeros(const shape_t& shape) {
    tensor t = empty(shape);
    std::fill(t.begin(), t.end(), 0.0f);
    return t;
}

double max_abs_diff(const tensor& a, const tensor& b, const std::string& fn) {
    if (shape_of(a) != shape_of(b)) {
        fail(error_text(fn) << ": b has shape " << shape_of(b) << " but a has " << shape_of(a)
            << "; expected the same shape");
    }
    require_finite(a, fn, "a");
    require_finite(b, fn, "b");
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, std::abs(static_cast<double>(a.data()[i]) - b.data()[i]));
    }
    return worst;
}

}  // namespace attnlab
