#include "attnlab/positions.hpp"

// Position tables and RoPE's rotation: cold code, built for size. The one hot loop, ALiBi's
// bias on a score matrix, lives in attention.cpp (built at -O3).

#include <cmath>

#include "attnlab/errors.hpp"
#include "attnlab/size.hpp"

namespace attnlab {

namespace {

// theta_i = base^(-2i/d), through exp and log: libm's pow is not otherwise in the module.
double frequency(std::size_t i, std::size_t d, double base) {
    return std::exp(-2.0 * static_cast<double>(i) / static_cast<double>(d) * std::log(base));
}

// Rows between exact sines and cosines; between them each row is the last turned by one
// step (an angle addition in double, about 1e-16 of error a step).
constexpr std::size_t anchor_rows = 64;

// cos and sin of (first + p) theta_i for p < count and i < pairs, theta_i = base^(-2i/d), into
// [count, pairs] arrays (float32, rounded once from double).
void sines(double first, std::size_t count, std::size_t pairs, std::size_t d, double base, float* cos_out,
           float* sin_out) {
    for (std::size_t i = 0; i < pairs; ++i) {
        const double theta = frequency(i, d, base);
        const double step_c = std::cos(theta), step_s = std::sin(theta);
        double c = 0, s = 0;
        for (std::size_t p = 0; p < count; ++p) {
            if (p % anchor_rows == 0) {
                const double angle = (first + static_cast<double>(p)) * theta;
                c = std::cos(angle);
                s = std::sin(angle);
            } else {
                const double next_c = c * step_c - s * step_s;
                s = s * step_c + c * step_s;
                c = next_c;
            }
            cos_out[p * pairs + i] = static_cast<float>(c);
            sin_out[p * pairs + i] = static_cast<float>(s);
        }
    }
}

void require_table(std::size_t n, std::size_t d, std::size_t width, double offset, double base, const std::string& fn) {
    if (n == 0) fail(error_text(fn) << ": n = 0; expected a whole number of positions >= 1");
    if (d == 0) fail(error_text(fn) << ": d = 0; expected a whole number of dimensions >= 1");
    require_position_base(base, fn);
    require_positions(offset, static_cast<double>(n), fn);
    checked_size({n, width}, default_max_elements, fn, "the table");
}

}  // namespace

const char* position_kind_name(position_kind kind) {
    static const char* const names[] = {"learned", "sinusoidal", "rope", "alibi", "none"};
    return names[static_cast<int>(kind)];
}

const char* rope_layout_name(rope_layout layout) {
    return layout == rope_layout::half ? "half" : "interleaved";
}

void require_position_base(double base, const std::string& fn, const char* name) {
    if (!(std::isfinite(base) && base > 0)) {
        fail(error_text(fn) << ": " << name << " = " << base
            << "; expected a finite number > 0 (the papers use 10000, Llama 3 500000)");
    }
}

void require_positions(double first, double count, const std::string& fn, const char* name) {
    require_whole(first, 0, max_position - 1, fn, name, "2^24 - 1", "the last position");
    if (first + count > max_position) {
        fail(error_text(fn) << ": positions " << first << " to " << first + count - 1
            << " pass the last position, 2^24 - 1 = " << max_position - 1 << "; expected fewer tokens or a smaller offset");
    }
}

std::vector<float> alibi_slopes(std::size_t heads, const std::string& fn, const char* name) {
    if (heads < 1 || heads > max_alibi_heads) {
        fail(error_text(fn) << ": " << name << " = " << heads << "; ALiBi's slopes are defined here for 1 to "
            << max_alibi_heads << " heads; expected a head count in that range");
    }
    // p: the largest power of two <= heads; its slopes 2^(-8k/p), then every other slope of 2p.
    std::size_t p = 1;
    while (p * 2 <= heads) p *= 2;
    std::vector<float> out(heads);
    for (std::size_t k = 0; k < heads; ++k) {
        // 2^-e, exact where e is whole (ldexp), else through exp (no exp2 or pow in the module)
        const double e = k < p ? 8.0 * double(k + 1) / double(p) : 8.0 * double(2 * (k - p) + 1) / double(2 * p);
        out[k] = static_cast<float>(std::floor(e) == e ? std::ldexp(1.0, -static_cast<int>(e)) : std::exp(-e * 0.69314718055994530942));
    }
    return out;
}

tensor sinusoidal_table(std::size_t n, std::size_t d, double base, const std::string& fn) {
    require_table(n, d, d, 0, base, fn);
    const std::size_t pairs = (d + 1) / 2;
    std::vector<float> c(n * pairs), s(n * pairs);
    sines(0, n, pairs, d, base, c.data(), s.data());
    tensor t = empty({n, d});
    float* out = t.data();
    for (std::size_t p = 0; p < n; ++p) {
        for (std::size_t k = 0; k < d; ++k) {
            out[p * d + k] = (k % 2 == 0 ? s : c)[p * pairs + k / 2];
        }
    }
    return t;
}

tensor rope_angles(std::size_t n, std::size_t d, double base, double offset, const std::string& fn) {
    if (d % 2 != 0) {
        fail(error_text(fn) << ": d = " << d << " is odd; expected an even number of dimensions (RoPE turns them in pairs)");
    }
    require_table(n, d, d / 2, offset, base, fn);
    const std::size_t pairs = d / 2;
    tensor t = empty({n, pairs});
    for (std::size_t i = 0; i < pairs; ++i) {
        const double theta = frequency(i, d, base);
        for (std::size_t p = 0; p < n; ++p) t.data()[p * pairs + i] = static_cast<float>((offset + double(p)) * theta);
    }
    return t;
}

rope_table::rope_table(double first, std::size_t count, std::size_t d, double base, rope_layout layout)
    : d_(d), layout_(layout), cos_(count * (d / 2)), sin_(count * (d / 2)) {
    sines(first, count, d / 2, d, base, cos_.data(), sin_.data());
}

tensor rope_rotate(const tensor& x, const rope_options& opts, const std::string& fn) {
    if (x.dimension() < 2) {
        fail(error_text(fn) << ": X has " << x.dimension() << (x.dimension() == 1 ? " axis" : " axes")
            << "; expected [..., n, d]: rows of vectors, row p turned to position offset + p");
    }
    const std::size_t n = x.shape()[x.dimension() - 2], d = x.shape()[x.dimension() - 1];
    if (d % 2 != 0) {
        fail(error_text(fn) << ": X has d = " << d << "; expected an even number of dimensions (RoPE turns them in pairs)");
    }
    require_position_base(opts.base, fn);
    tensor out = x;
    if (n == 0 || d == 0) return out;
    require_positions(opts.offset, static_cast<double>(n), fn);
    const rope_table table(opts.offset, n, d, opts.base, opts.layout);
    for (std::size_t m = 0; m < out.size() / (n * d); ++m) table.rotate(out.data() + m * n * d, n, 0);
    return out;
}

void rope_table::rotate(float* x, std::size_t rows, std::size_t row0, bool inverse) const {
    const std::size_t pairs = d_ / 2;
    // interleaved: pair i is (2i, 2i + 1); half: (i, i + d/2)
    const std::size_t stride = layout_ == rope_layout::half ? 1 : 2, partner = layout_ == rope_layout::half ? pairs : 1;
    const float sign = inverse ? -1.0f : 1.0f;
    for (std::size_t r = 0; r < rows; ++r) {
        float* row = x + r * d_;
        const float* c = cos_.data() + (row0 + r) * pairs;
        const float* s = sin_.data() + (row0 + r) * pairs;
        for (std::size_t i = 0; i < pairs; ++i) {
            float& a = row[i * stride];
            float& b = row[i * stride + partner];
            const float x0 = a, x1 = b, si = sign * s[i];
            a = x0 * c[i] - x1 * si;
            b = x0 * si + x1 * c[i];
        }
    }
}

}  // namespace attnlab
