// Native timing of the same attention workspace the wasm module runs.
// Prints one JSON line per configuration: {"n":64,"d":64,"causal":false,"median_ms":0.05}.
// Usage: bench_native [d=64] [n ...]  (default n: 5 64 256 1024)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "attnlab/attention.hpp"

namespace {

double median_ms(attnlab::attention_workspace& ws, std::size_t n, std::size_t d) {
    using clock = std::chrono::steady_clock;
    // Enough repetitions per sample for ~2 ms of work, 15 samples, median of them.
    const double flops = 4.0 * n * n * d;
    const int inner = std::max(1, static_cast<int>(2e6 / (flops / 4.0)));
    std::vector<double> samples;
    ws.run();
    for (int s = 0; s < 15; ++s) {
        const auto t0 = clock::now();
        for (int i = 0; i < inner; ++i) ws.run();
        const auto t1 = clock::now();
        samples.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / inner);
    }
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
    return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t d = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
    std::vector<std::size_t> sizes;
    for (int i = 2; i < argc; ++i) sizes.push_back(std::strtoul(argv[i], nullptr, 10));
    if (sizes.empty()) sizes = {5, 64, 256, 1024};
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (std::size_t n : sizes) {
        for (bool causal : {false, true}) {
            attnlab::attention_options opts;
            opts.causal = causal;
            attnlab::attention_workspace ws({}, n, n, d, d, opts);
            for (auto* t : {&ws.q(), &ws.k(), &ws.v()}) {
                for (auto& x : *t) x = dist(gen);
            }
            std::printf("{\"n\":%zu,\"d\":%zu,\"causal\":%s,\"median_ms\":%.6f}\n", n, d, causal ? "true" : "false",
                        median_ms(ws, n, d));
            std::fflush(stdout);
        }
    }
    return 0;
}
