#include "attnlab/kernels.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

// The matrix kernel: B packed into column panels, register tiles of R rows by J columns, and
// the transposed operand read in place (declared in kernels.hpp with the element-wise maps,
// which live in kernels.cpp).

#if defined(__clang__)
#define ATTNLAB_SCALAR _Pragma("clang loop vectorize(disable) unroll(disable)")
#else
#define ATTNLAB_SCALAR
#endif

namespace attnlab::kernels {

namespace {

// Register tile for matmul: R rows of c by J columns stay in registers while p runs over k.
// b is packed as column panels [k][J], so its loads are contiguous and at fixed offsets; a is
// read in place, one element of each of the R rows per step, broadcast to the lanes.
constexpr std::size_t R = 4;
constexpr std::size_t J = 8;
// Depth of one pass over a panel: R rows of a and the panel slice stay in L1 while every
// panel of a row block is visited.
constexpr std::size_t KC = 256;

#if defined(__GNUC__) && !defined(__AVX__)
// Four-lane vectors (GCC/clang vector extension: SIMD128 in wasm, SSE on x86). Spelled out
// because clang's own vectorisation of the scalar tile keeps each sum both before and after
// its last add live at the loop's branch (3 x 8 vectors), which V8 has to spill; this form
// keeps exactly the R x J / 4 sums live across iterations. With AVX (a native -march build)
// the compiler's eight-lane, fused multiply-add vectorisation of the plain tile is faster.
typedef float f4 __attribute__((vector_size(16)));
constexpr std::size_t V = J / 4;

inline f4 load4(const float* p) {
    f4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

inline void store4(float* p, f4 v) { std::memcpy(p, &v, sizeof v); }

// c[0..rows, 0..J) (row stride ldc) = (Add ? c : 0) + sum over p < kc of a[r][p] bp[p][0..J),
// rows a[r] given by pointer (all R are read; rows past `rows` are computed and dropped).
// With Strided, element p of row r is a[r][p * stride] instead (a transposed operand).
// With Add the sums continue from c in the same order, so splitting k into passes gives the
// same bits.
template <bool Add, bool Strided>
inline void tile(const float* const (&a)[R], std::size_t stride, const float* bp, std::size_t kc, float* c,
                 std::size_t ldc, std::size_t rows) {
    f4 acc[R][V] = {};
    if (Add) {
        for (std::size_t r = 0; r < R; ++r) {
            if (r < rows) {
                for (std::size_t v = 0; v < V; ++v) acc[r][v] = load4(c + r * ldc + 4 * v);
            }
        }
    }
    for (std::size_t p = 0; p < kc; ++p) {
        f4 b[V];
        for (std::size_t v = 0; v < V; ++v) b[v] = load4(bp + p * J + 4 * v);
        for (std::size_t r = 0; r < R; ++r) {
            const float x = Strided ? a[r][p * stride] : a[r][p];
            const f4 av = {x, x, x, x};
            for (std::size_t v = 0; v < V; ++v) acc[r][v] += av * b[v];
        }
    }
    for (std::size_t r = 0; r < R; ++r) {
        if (r < rows) {
            for (std::size_t v = 0; v < V; ++v) store4(c + r * ldc + 4 * v, acc[r][v]);
        }
    }
}
#else
template <bool Add, bool Strided>
inline void tile(const float* const (&a)[R], std::size_t stride, const float* bp, std::size_t kc, float* c,
                 std::size_t ldc, std::size_t rows) {
    float acc[R][J] = {};
    if (Add) {
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t jj = 0; jj < J; ++jj) acc[r][jj] = c[r * ldc + jj];
        }
    }
    for (std::size_t p = 0; p < kc; ++p) {
        const float* b = bp + p * J;
        for (std::size_t r = 0; r < R; ++r) {
            const float x = Strided ? a[r][p * stride] : a[r][p];
            for (std::size_t jj = 0; jj < J; ++jj) acc[r][jj] += x * b[jj];
        }
    }
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t jj = 0; jj < J; ++jj) c[r * ldc + jj] = acc[r][jj];
    }
}
#endif

// A tile at the right edge (w < J columns), through a full-width buffer.
template <bool Strided>
inline void edge_tile(const float* const (&a)[R], std::size_t stride, const float* bp, std::size_t kc, float* c,
                      std::size_t ldc, std::size_t rows, std::size_t w, bool add) {
    float buf[R * J] = {};
    if (add) {
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t jj = 0; jj < w; ++jj) buf[r * J + jj] = c[r * ldc + jj];
        }
    }
    tile<true, Strided>(a, stride, bp, kc, buf, J, rows);
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t jj = 0; jj < w; ++jj) c[r * ldc + jj] = buf[r * J + jj];
    }
}

}  // namespace

std::size_t packed_size(std::size_t k, std::size_t n) { return k * ((n + J - 1) / J * J); }

std::uint64_t packed_count(std::uint64_t k, std::uint64_t n) { return k * ((n + J - 1) / J * J); }

void pack_b(const float* b, std::size_t k, std::size_t n, float* bp) {
    for (std::size_t j0 = 0; j0 < n; j0 += J) {
        const std::size_t w = n - j0 < J ? n - j0 : J;
        float* panel = bp + j0 * k;
        for (std::size_t p = 0; p < k; ++p) {
            const float* src = b + p * n + j0;
            float* dst = panel + p * J;
            if (w == J) {
                for (std::size_t jj = 0; jj < J; ++jj) dst[jj] = src[jj];
            } else {
                for (std::size_t jj = 0; jj < J; ++jj) dst[jj] = jj < w ? src[jj] : 0.0f;
            }
        }
    }
}

void pack_bt(const float* bt, std::size_t n, std::size_t k, float* bp) {
    for (std::size_t j0 = 0; j0 < n; j0 += J) {
        const std::size_t w = n - j0 < J ? n - j0 : J;
        float* panel = bp + j0 * k;
        if (w == J) {
            // A full panel: read the J rows side by side and write the panel front to back
            // (the key-block packs of one tiled attention at n = 1024, d = 64: 0.33 -> 0.23 ms
            // in a standalone wasm build, against the column-at-a-time loop below).
            const float* src[J];
            for (std::size_t jj = 0; jj < J; ++jj) src[jj] = bt + (j0 + jj) * k;
            for (std::size_t p = 0; p < k; ++p) {
                for (std::size_t jj = 0; jj < J; ++jj) panel[p * J + jj] = src[jj][p];
            }
            continue;
        }
        // The last, partial panel of a call: rare, so kept scalar and small.
        ATTNLAB_SCALAR
        for (std::size_t jj = 0; jj < J; ++jj) {
            if (jj < w) {
                const float* src = bt + (j0 + jj) * k;
                ATTNLAB_SCALAR
                for (std::size_t p = 0; p < k; ++p) panel[p * J + jj] = src[p];
            } else {
                ATTNLAB_SCALAR
                for (std::size_t p = 0; p < k; ++p) panel[p * J + jj] = 0.0f;
            }
        }
    }
}

namespace {

// c[m, n] = A b over the packed panels of b, where row i of A is a + i * k read forward
// (Strided false: a is A[m, k] row-major), or a + i read with stride m (Strided true: a is
// A^T [k, m] row-major, so A = a^T is never written out).
template <bool Strided>
void matmul_panels(const float* a, const float* bp, float* c, std::size_t m, std::size_t k, std::size_t n) {
    if (k == 0) {
        for (std::size_t i = 0; i < m * n; ++i) c[i] = 0.0f;
        return;
    }
    const std::size_t stride = Strided ? m : 1;
    for (std::size_t i0 = 0; i0 < m; i0 += R) {
        const std::size_t rows = m - i0 < R ? m - i0 : R;
        for (std::size_t p0 = 0; p0 < k; p0 += KC) {
            const std::size_t kc = k - p0 < KC ? k - p0 : KC;
            const float* rowp[R];
            for (std::size_t r = 0; r < R; ++r) {
                const std::size_t i = i0 + (r < rows ? r : rows - 1);
                rowp[r] = Strided ? a + p0 * m + i : a + i * k + p0;
            }
            for (std::size_t j0 = 0; j0 < n; j0 += J) {
                const std::size_t w = n - j0 < J ? n - j0 : J;
                const float* panel = bp + j0 * k + p0 * J;
                float* ct = c + i0 * n + j0;
                if (w == J) {
                    if (p0 == 0) {
                        tile<false, Strided>(rowp, stride, panel, kc, ct, n, rows);
                    } else {
                        tile<true, Strided>(rowp, stride, panel, kc, ct, n, rows);
                    }
                } else {
                    edge_tile<Strided>(rowp, stride, panel, kc, ct, n, rows, w, p0 != 0);
                }
            }
        }
    }
}

}  // namespace

void matmul_packed(const float* a, const float* bp, float* c, std::size_t m, std::size_t k, std::size_t n) {
    matmul_panels<false>(a, bp, c, m, k, n);
}

void matmul_packed_at(const float* at, const float* bp, float* c, std::size_t m, std::size_t k, std::size_t n) {
    matmul_panels<true>(at, bp, c, m, k, n);
}

void matmul(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n) {
    std::vector<float> bp(packed_size(k, n));
    pack_b(b, k, n, bp.data());
    matmul_packed(a, bp.data(), c, m, k, n);
}

void transpose(const float* a, float* at, std::size_t rows, std::size_t cols) {
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) at[c * rows + r] = a[r * cols + c];
    }
}

}  // namespace attnlab::kernels
