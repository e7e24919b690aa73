#pragma once
// Obviously-correct references in double precision, written independently of the kernels:
// plain nested loops, std::exp, no tiling. Tests compare the engine against these.

#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "attnlab/tensor.hpp"

namespace ref {

struct head {
    std::vector<double> scores, scaled, weights, output;  // [m, n] x3, [m, d_v]
    std::vector<bool> fully_masked;                       // [m]
};

// One head of attention. allow(i, j) says whether query i may see key j.
inline head attention(const float* q, const float* k, const float* v, std::size_t m, std::size_t n,
                      std::size_t dk, std::size_t dv, double scale,
                      const std::function<bool(std::size_t, std::size_t)>& allow) {
    head r;
    r.scores.assign(m * n, 0.0);
    r.scaled.assign(m * n, 0.0);
    r.weights.assign(m * n, 0.0);
    r.output.assign(m * dv, 0.0);
    r.fully_masked.assign(m, false);
    for (std::size_t i = 0; i < m; ++i) {
        double best = -std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < n; ++j) {
            double s = 0;
            for (std::size_t d = 0; d < dk; ++d) s += double(q[i * dk + d]) * double(k[j * dk + d]);
            r.scores[i * n + j] = s;
            r.scaled[i * n + j] = s * scale;
            if (allow(i, j)) best = std::max(best, s * scale);
        }
        if (best == -std::numeric_limits<double>::infinity()) {
            r.fully_masked[i] = true;
            continue;
        }
        double total = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const double e = allow(i, j) ? std::exp(r.scaled[i * n + j] - best) : 0.0;
            r.weights[i * n + j] = e;
            total += e;
        }
        for (std::size_t j = 0; j < n; ++j) r.weights[i * n + j] /= total;
        for (std::size_t j = 0; j < n; ++j) {
            for (std::size_t d = 0; d < dv; ++d) r.output[i * dv + d] += r.weights[i * n + j] * v[j * dv + d];
        }
    }
    return r;
}

inline bool everything(std::size_t, std::size_t) { return true; }

// Largest |a[i] - b[i]| over a float tensor and a double vector of the same size.
inline double max_diff(const attnlab::tensor& a, const std::vector<double>& b, std::size_t offset = 0) {
    double worst = 0;
    for (std::size_t i = 0; i < b.size(); ++i) worst = std::max(worst, std::abs(double(a.data()[offset + i]) - b[i]));
    return worst;
}

inline attnlab::tensor random_tensor(const attnlab::shape_t& shape, std::mt19937& gen, float lo = -2, float hi = 2) {
    std::uniform_real_distribution<float> dist(lo, hi);
    attnlab::tensor t = attnlab::tensor::from_shape(shape);
    for (auto& x : t) x = dist(gen);
    return t;
}

}  // namespace ref
