#include "attnlab/kernels.hpp"

#include <cstdint>
#include <cstring>
#include <limits>

namespace attnlab::kernels {

namespace {

// Register tile for matmul: R rows of c by J columns stay in registers while p runs over k.
constexpr std::size_t R = 4;
constexpr std::size_t J = 8;

// c[0..Rows, 0..J) = a[0..Rows, :] b[:, 0..J): full-width tile, widths known at compile time.
template <std::size_t Rows>
inline void tile(const float* a, const float* b, float* c, std::size_t k, std::size_t n) {
    float acc[Rows][J] = {};
    for (std::size_t p = 0; p < k; ++p) {
        const float* brow = b + p * n;
        for (std::size_t r = 0; r < Rows; ++r) {
            const float av = a[r * k + p];
            for (std::size_t jj = 0; jj < J; ++jj) acc[r][jj] += av * brow[jj];
        }
    }
    for (std::size_t r = 0; r < Rows; ++r) {
        for (std::size_t jj = 0; jj < J; ++jj) c[r * n + jj] = acc[r][jj];
    }
}

// The last w < J columns: copied into a J-wide buffer so the same register tile applies.
template <std::size_t Rows>
inline void tail_tile(const float* a, const float* b, float* c, std::size_t k, std::size_t n, std::size_t w) {
    float acc[Rows][J] = {};
    for (std::size_t p = 0; p < k; ++p) {
        float bv[J] = {};
        for (std::size_t jj = 0; jj < w; ++jj) bv[jj] = b[p * n + jj];
        for (std::size_t r = 0; r < Rows; ++r) {
            const float av = a[r * k + p];
            for (std::size_t jj = 0; jj < J; ++jj) acc[r][jj] += av * bv[jj];
        }
    }
    for (std::size_t r = 0; r < Rows; ++r) {
        for (std::size_t jj = 0; jj < w; ++jj) c[r * n + jj] = acc[r][jj];
    }
}

template <std::size_t Rows>
inline void row_block(const float* a, const float* b, float* c, std::size_t k, std::size_t n) {
    std::size_t j0 = 0;
    for (; j0 + J <= n; j0 += J) tile<Rows>(a, b + j0, c + j0, k, n);
    if (j0 < n) tail_tile<Rows>(a, b + j0, c + j0, k, n, n - j0);
}

}  // namespace

void matmul(const float* a, const float* b, float* c, std::size_t m, std::size_t k,
            std::size_t n) {
    std::size_t i = 0;
    for (; i + R <= m; i += R) row_block<R>(a + i * k, b, c + i * n, k, n);
    for (; i < m; ++i) row_block<1>(a + i * k, b, c + i * n, k, n);
}

void transpose(const float* a, float* at, std::size_t rows, std::size_t cols) {
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) at[c * rows + r] = a[r * cols + c];
    }
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
