#include "attnlab/examples.hpp"

namespace attnlab {

example_inputs time_flies_example() {
    example_inputs ex;
    ex.tokens = {"time", "flies", "like", "an", "arrow"};
    // Queries: "flies" looks along feature 1, where only "flies" (2) and "arrow" (3) have keys.
    // "like" and "an" ask weakly for everything, so their weights come out spread.
    ex.q = {{1.0f, 0.0f, 0.0f, 1.0f},   // time
            {0.0f, 3.0f, 0.0f, 0.0f},   // flies
            {0.5f, 0.0f, 0.5f, 0.5f},   // like
            {0.3f, 0.3f, 0.3f, 0.3f},   // an
            {0.0f, 1.0f, 1.0f, 0.0f}};  // arrow
    ex.k = {{2.0f, 0.0f, 0.0f, 1.0f},   // time
            {0.0f, 2.0f, 1.0f, 0.0f},   // flies
            {1.0f, 0.0f, 1.0f, 0.0f},   // like
            {0.0f, 0.0f, 1.0f, 1.0f},   // an
            {0.0f, 3.0f, 0.0f, 0.0f}};  // arrow
    // Values: each token carries a distinct mix of four features.
    ex.v = {{1.0f, 0.0f, 0.0f, 0.5f},   // time
            {0.0f, 1.0f, 0.5f, 0.0f},   // flies
            {0.0f, 0.0f, 1.0f, 0.0f},   // like
            {0.0f, 0.0f, 0.0f, 1.0f},   // an
            {0.5f, 0.5f, 0.0f, 0.0f}};  // arrow
    // Embeddings: 2 * one-hot in columns 0-4, and column 5 = 1 for content words.
    ex.x = {{2, 0, 0, 0, 0, 1},   // time
            {0, 2, 0, 0, 0, 1},   // flies
            {0, 0, 2, 0, 0, 0},   // like
            {0, 0, 0, 2, 0, 0},   // an
            {0, 0, 0, 0, 2, 1}};  // arrow
    // W = [M / 2; 0]: row t of M / 2 picks token t's vector, and the content column adds
    // nothing, so X W reproduces Q, K, V exactly (halving and doubling are exact in float).
    const auto project = [](const tensor& m) {
        tensor w = zeros({6, m.shape()[1]});
        for (std::size_t t = 0; t < 5; ++t) {
            for (std::size_t c = 0; c < m.shape()[1]; ++c) w(t, c) = m(t, c) / 2;
        }
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
    ex.q = {{1.0f, 0.0f}};
    ex.k = {{1.0f, 0.0f}, {0.0f, 1.0f}};
    ex.v = {{10.0f, 0.0f}, {0.0f, 6.0f}};
    return ex;
}

}  // namespace attnlab
