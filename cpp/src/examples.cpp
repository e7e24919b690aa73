#include "attnlab/examples.hpp"

#include <algorithm>

namespace attnlab {

namespace {

// A [rows, cols] tensor copied from a row-major table: nested initializer lists would
// become one store per number in the wasm build.
tensor matrix(std::size_t rows, std::size_t cols, const float* values) {
    tensor t = empty({rows, cols});
    std::copy_n(values, rows * cols, t.data());
    return t;
}

}  // namespace

example_inputs time_flies_example() {
    example_inputs ex;
    ex.tokens = {"time", "flies", "like", "an", "arrow"};
    // Queries: "flies" looks along feature 1, where only "flies" (2) and "arrow" (3) have keys.
    // "like" and "an" ask weakly for everything, so their weights come out spread.
    static const float queries[] = {
        1.0f, 0.0f, 0.0f, 1.0f,   // time
        0.0f, 3.0f, 0.0f, 0.0f,   // flies
        0.5f, 0.0f, 0.5f, 0.5f,   // like
        0.3f, 0.3f, 0.3f, 0.3f,   // an
        0.0f, 1.0f, 1.0f, 0.0f,   // arrow
    };
    ex.q = matrix(5, 4, queries);
    static const float keys[] = {
        2.0f, 0.0f, 0.0f, 1.0f,   // time
        0.0f, 2.0f, 1.0f, 0.0f,   // flies
        1.0f, 0.0f, 1.0f, 0.0f,   // like
        0.0f, 0.0f, 1.0f, 1.0f,   // an
        0.0f, 3.0f, 0.0f, 0.0f,   // arrow
    };
    ex.k = matrix(5, 4, keys);
    // Values: each token carries a distinct mix of four features.
    static const float values[] = {
        1.0f, 0.0f, 0.0f, 0.5f,   // time
        0.0f, 1.0f, 0.5f, 0.0f,   // flies
        0.0f, 0.0f, 1.0f, 0.0f,   // like
        0.0f, 0.0f, 0.0f, 1.0f,   // an
        0.5f, 0.5f, 0.0f, 0.0f,   // arrow
    };
    ex.v = matrix(5, 4, values);
    // Embeddings: 2 * one-hot in columns 0-4, and column 5 = 1 for content words.
    static const float embeddings[] = {
        2, 0, 0, 0, 0, 1,   // time
        0, 2, 0, 0, 0, 1,   // flies
        0, 0, 2, 0, 0, 0,   // like
        0, 0, 0, 2, 0, 0,   // an
        0, 0, 0, 0, 2, 1,   // arrow
    };
    ex.x = matrix(5, 6, embeddings);
    // W = [M / 2; 0]: row t of M / 2 picks token t's vector, and the content column adds
    // nothing, so X W reproduces Q, K, V exactly (halving and doubling are exact in float).
    const auto project = [](const tensor& m) {
        const std::size_t cols = m.shape()[1];
        tensor w = zeros({6, cols});
        for (std::size_t i = 0; i < 5 * cols; ++i) w.data()[i] = m.data()[i] / 2;
        return w;
    };
    ex.w_q = project(ex.q);
    ex.w_k = project(ex.k);
    ex.w_v = project(ex.v);
    return ex;
}

example_inputs worked_example() {
    example_inputs ex;
    ex.tokens = {"k1", "k2"};
    static const float queries[] = {
        1.0f, 0.0f,
    };
    ex.q = matrix(1, 2, queries);
    static const float keys[] = {
        1.0f, 0.0f,
        0.0f, 1.0f,
    };
    ex.k = matrix(2, 2, keys);
    static const float values[] = {
        10.0f, 0.0f,
        0.0f, 6.0f,
    };
    ex.v = matrix(2, 2, values);
    return ex;
}

}  // namespace attnlab
