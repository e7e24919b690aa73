#include "attnlab/stats.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attnlab/errors.hpp"
#include "attnlab/random.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

namespace {

const std::string fn = "dotProductStats";
// A generator's seed: 53 bits, as many as a JavaScript number holds exactly.
const whole_range seed_range{0, 9007199254740991.0, "2^53 - 1"};

}  // namespace

dot_stats dot_product_stats(double d_k, double samples, double seed) {
    require_whole(d_k, 1, 65536, fn, "dk", "65536");
    require_whole(samples, 2, 1e7, fn, "samples", "10,000,000");
    require_whole(seed, 0, 9007199254740991.0, fn, "seed", "2^53 - 1");
    if (d_k * samples > 1e8) {
        fail(error_text(fn) << ": dk * samples = " << d_k * samples
            << "; expected at most 100,000,000 draws per call");
    }
    dot_product_sampler sampler(d_k, seed);
    sampler.add(samples);
    return sampler.result();
}

namespace {

const std::string sampler_fn = "createDotProductStats";

std::uint64_t checked_seed(double d_k, double seed) {
    require_whole(d_k, 1, 65536, sampler_fn, "dk", "65536");
    return size_arg(seed).to_count(sampler_fn, "seed", seed_range);
}

}  // namespace

dot_product_sampler::dot_product_sampler(double d_k, double seed) : gen_(checked_seed(d_k, seed)), d_k_(d_k) {}

void dot_product_sampler::add(double count) {
    const double room = std::min(1e7, std::floor(1e8 / d_k_)) - static_cast<double>(count_);
    if (room < 1) {
        fail(error_text(sampler_fn) << ": add: " << count_ << " samples drawn, the most for dk = " << d_k_
            << "; expected no more calls to add");
    }
    const std::size_t end = count_ + size_arg(count).to_size(sampler_fn + ": add", "count", {1, room});
    const std::size_t dims = size_arg(d_k_).to_size(sampler_fn, "dk");
    for (; count_ < end; ++count_) {
        double dot = 0;
        for (std::size_t i = 0; i < dims; ++i) {
            const double q = gen_.normal();
            dot += q * gen_.normal();
        }
        const double delta = dot - mean_;
        mean_ += delta / static_cast<double>(count_ + 1);
        m2_ += delta * (dot - mean_);
    }
}

dot_stats dot_product_sampler::result() const {
    if (count_ < 2) {
        fail(error_text(sampler_fn) << ": result: " << count_
            << " samples drawn; expected add() to reach at least 2 first");
    }
    dot_stats r;
    r.mean = mean_;
    r.variance = m2_ / static_cast<double>(count_ - 1);
    r.std = std::sqrt(r.variance);
    r.expected_std = std::sqrt(d_k_);
    return r;
}

namespace {

// Largest weight and largest |Jacobian entry| of softmax(scores).
std::pair<double, double> saturation_of(const std::vector<double>& scores) {
    double best = scores[0];
    for (double s : scores) best = std::max(best, s);
    std::vector<double> p(scores.size());
    double total = 0;
    for (std::size_t j = 0; j < p.size(); ++j) total += (p[j] = std::exp(scores[j] - best));
    double max_weight = 0, max_grad = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        p[i] /= total;
        max_weight = std::max(max_weight, p[i]);
    }
    for (std::size_t i = 0; i < p.size(); ++i) {
        for (std::size_t j = 0; j < p.size(); ++j) {
            const double entry = (i == j ? p[i] : 0.0) - p[i] * p[j];  // d p_i / d s_j
            max_grad = std::max(max_grad, std::abs(entry));
        }
    }
    return {max_weight, max_grad};
}

}  // namespace

std::vector<saturation_point> softmax_saturation(const std::vector<double>& d_ks, double keys,
                                                 double trials, double seed) {
    const std::string where = "softmaxSaturation";
    if (d_ks.empty() || d_ks.size() > 64) {
        fail(error_text(where) << ": dks has " << d_ks.size() << " entries; expected 1 to 64 values of d_k");
    }
    for (double dk : d_ks) {
        require_whole(dk, 1, 4096, where, "an entry of dks", "4096");
    }
    require_whole(keys, 2, 256, where, "keys", "256");
    require_whole(trials, 1, 1000, where, "trials", "1000");
    const std::uint64_t first_seed = size_arg(seed).to_count(where, "seed", seed_range);
    const std::size_t count = size_arg(keys).to_size(where, "keys"), runs = size_arg(trials).to_size(where, "trials");
    std::vector<saturation_point> out;
    for (double dk : d_ks) {
        normal_generator gen(first_seed);
        saturation_point pt;
        pt.d_k = dk;
        const std::size_t dims = size_arg(dk).to_size(where, "an entry of dks");
        std::vector<double> q(dims), raw(count), scaled(count);
        for (std::size_t t = 0; t < runs; ++t) {
            for (double& x : q) x = gen.normal();
            for (std::size_t j = 0; j < count; ++j) {
                double s = 0;
                for (std::size_t d = 0; d < dims; ++d) s += q[d] * gen.normal();
                raw[j] = s;
                scaled[j] = s / std::sqrt(dk);
            }
            const auto with = saturation_of(scaled), without = saturation_of(raw);
            pt.max_weight_scaled += with.first / trials;
            pt.max_grad_scaled += with.second / trials;
            pt.max_weight_unscaled += without.first / trials;
            pt.max_grad_unscaled += without.second / trials;
        }
        out.push_back(pt);
    }
    return out;
}

}  // namespace attnlab
