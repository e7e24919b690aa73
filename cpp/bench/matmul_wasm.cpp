// The engine's matrix product alone, for the training benchmark (scripts/bench-train.js):
// compiled to a standalone wasm with the flags the module's kernels get (-O3 -msimd128,
// linked at -Oz), and timed from JavaScript. One call of run() does what grad::linear does
// without its bias: pack b, then c = a b on the packed panels.

#include <cstddef>
#include <vector>

#include "attnlab/kernels.hpp"

namespace {

std::vector<float> a, b, packed, c;
std::size_t rows = 0, depth = 0, cols = 0;

}  // namespace

extern "C" {

/// @brief Sizes the operands a[m, k], b[k, n], c[m, n] and fills a and b with small values.
__attribute__((export_name("setup"))) void setup(int m, int k, int n) {
    rows = static_cast<std::size_t>(m);
    depth = static_cast<std::size_t>(k);
    cols = static_cast<std::size_t>(n);
    a.assign(rows * depth, 0.0f);
    b.assign(depth * cols, 0.0f);
    c.assign(rows * cols, 0.0f);
    packed.assign(attnlab::kernels::packed_size(depth, cols), 0.0f);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 17) / 17.0f - 0.5f;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 13) / 13.0f - 0.5f;
}

/// @brief `reps` products; returns one entry of c so the work cannot be dropped.
__attribute__((export_name("run"))) float run(int reps) {
    for (int r = 0; r < reps; ++r) {
        attnlab::kernels::pack_b(b.data(), depth, cols, packed.data());
        attnlab::kernels::matmul_packed(a.data(), packed.data(), c.data(), rows, depth, cols);
    }
    return c[c.size() / 2];
}

}  // extern "C"
