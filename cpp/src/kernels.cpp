#include "attnlab/kernels.hpp"

#include <cstdint>
#include <cstring>
#include <limits>

// Four vectors of the exp map in flight at once: its polynomial is one long chain of
// dependent multiply-adds, and clang's wasm cost model interleaves it only once
// (exp_shifted_sum 1.19 -> 0.87 ns per element in a standalone wasm build).
#if defined(__clang__)
#define ATTNLAB_INTERLEAVE_4 _Pragma("clang loop interleave_count(4)")
#else
#define ATTNLAB_INTERLEAVE_4
#endif

// For a map y[i] = f(x[i]) whose x and y are the same array or do not overlap: no iteration
// reads what another writes, and this tells clang so. Without it clang guards the loop with
// an overlap check that exact aliasing (in place) fails, and runs the scalar loop instead:
// 5-6x slower for the exp map (tiled attention's softmax pass, n = 1024: 8.7 -> 1.3 ms).
#if defined(__clang__)
// The pragma also asks for vectorisation; a sanitizer build (tests/fuzz) cannot give it and
// would warn, which says nothing about these loops there.
#pragma clang diagnostic ignored "-Wpass-failed"
#define ATTNLAB_SAME_OR_DISJOINT _Pragma("clang loop vectorize(assume_safety)")
#else
#define ATTNLAB_SAME_OR_DISJOINT
#endif

namespace attnlab::kernels {

// add, move_heads and softmax_backward_row are the training step's memory-bound loops: here
// they are built at -O3 and vectorise, where grad.cpp and transformer.cpp are built for size
// (-Oz, CMakeLists.txt), at which move_heads alone was 13% of a default step (node --cpu-prof).
void add(float* y, const float* x, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) y[i] += x[i];
}

// Each copy is d_head floats and there are thousands a step: loops, not a call to memcpy per
// copy, which clang would otherwise make of them (no_builtin).
#if defined(__clang__)
__attribute__((no_builtin("memcpy", "memmove")))
#endif
void move_heads(float* rows, float* heads, bool to_rows, std::size_t parts, std::size_t batch, std::size_t n,
                std::size_t heads_count, std::size_t d_head) {
    const std::size_t d = heads_count * d_head, slab = batch * n * d;
    for (std::size_t r = 0; r < batch * n; ++r) {
        const std::size_t b = r / n, t = r % n;
        for (std::size_t part = 0; part < parts; ++part) {
            for (std::size_t h = 0; h < heads_count; ++h) {
                float* row = rows + r * parts * d + part * d + h * d_head;
                float* head = heads + part * slab + ((b * heads_count + h) * n + t) * d_head;
                const float* from = to_rows ? head : row;
                float* to = to_rows ? row : head;
                for (std::size_t c = 0; c < d_head; ++c) to[c] = from[c];
            }
        }
    }
}

void softmax_backward_row(const float* p, float* ds, std::size_t n, float dot) {
    for (std::size_t j = 0; j < n; ++j) ds[j] = p[j] * (ds[j] - dot);
}

bool all_finite(const float* x, std::size_t n) {
    // x - x is 0 for finite x and NaN for infinity or NaN; NaN sticks in a lane.
    constexpr std::size_t L = 8;
    float lanes[L] = {};
    std::size_t i = 0;
    for (; i + L <= n; i += L) {
        for (std::size_t l = 0; l < L; ++l) lanes[l] += x[i + l] - x[i + l];
    }
    float check = 0.0f;
    for (std::size_t l = 0; l < L; ++l) check += lanes[l];
    for (; i < n; ++i) check += x[i] - x[i];
    return check == 0.0f;
}

bool scale(const float* x, float* y, std::size_t n, float s) {
    ATTNLAB_SAME_OR_DISJOINT
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i] * s;
    return all_finite(y, n);
}

float row_max(const float* x, std::size_t n) {
    constexpr std::size_t L = 8;
    float lanes[L];
    for (std::size_t l = 0; l < L; ++l) lanes[l] = -std::numeric_limits<float>::infinity();
    std::size_t i = 0;
    for (; i + L <= n; i += L) {
        for (std::size_t l = 0; l < L; ++l) lanes[l] = lanes[l] < x[i + l] ? x[i + l] : lanes[l];
    }
    float best = -std::numeric_limits<float>::infinity();
    for (std::size_t l = 0; l < L; ++l) best = best < lanes[l] ? lanes[l] : best;
    for (; i < n; ++i) best = best < x[i] ? x[i] : best;
    return best;
}

float exp_nonpositive(float x) {
    // exp(x) = 2^t * exp(r) with t = round(x / ln 2) and |r| <= ln(2) / 2.
    constexpr float log2e = 1.44269504088896341f;
    constexpr float ln2_hi = 0.693145751953125f;  // ln 2 split so t * ln2_hi is exact
    constexpr float ln2_lo = 1.42860682030941723e-6f;
    constexpr float round_magic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
    const bool underflow = x < -87.3f;           // also catches -infinity
    const float xc = underflow ? 0.0f : x;
    const float shifted = xc * log2e + round_magic;
    const float t = shifted - round_magic;
    const float r = (xc - t * ln2_hi) - t * ln2_lo;
    // Taylor series to degree 6: the r^7 term is below 1.3e-7 relative on this interval.
    float p = 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    std::int32_t shifted_bits;
    std::memcpy(&shifted_bits, &shifted, sizeof shifted_bits);
    // The low mantissa bits of `shifted` hold t (two's complement); build 2^t as a float.
    const std::int32_t exponent = (shifted_bits - 0x4B400000 + 127) << 23;
    float two_t;
    std::memcpy(&two_t, &exponent, sizeof two_t);
    return underflow ? 0.0f : p * two_t;
}

float exp_shifted_sum(const float* x, float* y, std::size_t n, float shift) {
    // A pure map (vectorises, with exp_nonpositive inlined in this file), then the sum in
    // lanes (no reassociation needed).
    ATTNLAB_INTERLEAVE_4
    ATTNLAB_SAME_OR_DISJOINT
    for (std::size_t j = 0; j < n; ++j) y[j] = exp_nonpositive(x[j] - shift);
    constexpr std::size_t L = 8;
    float lanes[L] = {};
    std::size_t j = 0;
    for (; j + L <= n; j += L) {
        for (std::size_t l = 0; l < L; ++l) lanes[l] += y[j + l];
    }
    float sum = 0.0f;
    for (std::size_t l = 0; l < L; ++l) sum += lanes[l];
    for (; j < n; ++j) sum += y[j];
    return sum;
}

void tanh_map(const float* x, float* y, std::size_t n) {
    // tanh(z) = sign(z) (1 - e) / (1 + e) with e = exp(-2 |z|) in (0, 1]: a branch-free map on
    // exp_nonpositive that vectorises, where std::tanh is a libc call per element (tanhf and
    // its expm1f were half of a training step with a GELU MLP of 256 in wasm). Absolute
    // error below 2e-7: that of e, which 1 - e and 1 + e do not grow.
    ATTNLAB_INTERLEAVE_4
    ATTNLAB_SAME_OR_DISJOINT
    for (std::size_t i = 0; i < n; ++i) {
        const float z = x[i];
        const float e = exp_nonpositive(-2.0f * (z < 0.0f ? -z : z));
        const float t = (1.0f - e) / (1.0f + e);
        y[i] = z < 0.0f ? -t : t;
    }
}

bool softmax_row(const float* x, float* y, std::size_t n) {
    // Subtract the row maximum so the largest exponent is exp(0) = 1: no overflow for
    // scores near 1000, and at least one term of the sum is 1, so it is never 0.
    const float mx = row_max(x, n);
    if (mx == -std::numeric_limits<float>::infinity()) {
        for (std::size_t j = 0; j < n; ++j) y[j] = 0.0f;
        return false;
    }
    const float sum = exp_shifted_sum(x, y, n, mx);
    const float inv = 1.0f / sum;
    for (std::size_t i = 0; i < n; ++i) y[i] *= inv;
    return true;
}

bool scaled_dots(const float* q, const float* rows, std::size_t stride, std::size_t n, std::size_t d, float scale,
                 float* s) {
    constexpr std::size_t L = 8;  // independent lanes: vectorises without reassociating a sum
    for (std::size_t j = 0; j < n; ++j) {
        const float* r = rows + j * stride;
        float lanes[L] = {};
        std::size_t i = 0;
        for (; i + L <= d; i += L) {
            for (std::size_t l = 0; l < L; ++l) lanes[l] += q[i + l] * r[i + l];
        }
        float sum = 0.0f;
        for (std::size_t l = 0; l < L; ++l) sum += lanes[l];
        for (; i < d; ++i) sum += q[i] * r[i];
        s[j] = sum * scale;
    }
    return all_finite(s, n);
}

bool add_weighted_rows(const float* w, const float* rows, std::size_t stride, std::size_t n, std::size_t d,
                       float* out) {
    for (std::size_t j = 0; j < n; ++j) {
        const float wj = w[j];
        const float* r = rows + j * stride;
        for (std::size_t c = 0; c < d; ++c) out[c] += wj * r[c];
    }
    return all_finite(out, d);
}

}  // namespace attnlab::kernels
