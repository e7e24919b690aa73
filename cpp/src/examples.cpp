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
