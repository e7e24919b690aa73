#include "attnlab/stats.hpp"

#include <cmath>
#include <string>

#include "attnlab/errors.hpp"
#include "attnlab/random.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

namespace {

const std::string fn = "dotProductStats";

void require_whole(double x, double lo, double hi, const char* name, const char* hi_text) {
    if (!(std::floor(x) == x && x >= lo && x <= hi)) {
        throw argument_error(fn + ": " + name + " = " + number_string(x) + "; expected a whole number from " +
                             number_string(lo) + " to " + hi_text);
    }
}

}  // namespace

dot_stats dot_product_stats(double d_k, double samples, double seed) {
    require_whole(d_k, 1, 65536, "dk", "65536");
    require_whole(samples, 2, 1e7, "samples", "10,000,000");
    require_whole(seed, 0, 9007199254740991.0, "seed", "2^53 - 1");
    if (d_k * samples > 1e8) {
        throw argument_error(fn + ": dk * samples = " + number_string(d_k * samples) +
                             "; expected at most 100,000,000 draws per call");
    }
    normal_generator gen(static_cast<std::uint64_t>(seed));
    const auto dims = static_cast<std::size_t>(d_k);
    const auto count = static_cast<std::size_t>(samples);
    // Welford's running mean and sum of squared deviations: stable for any sample count.
    double mean = 0, m2 = 0;
    for (std::size_t s = 0; s < count; ++s) {
        double dot = 0;
        for (std::size_t i = 0; i < dims; ++i) {
            const double q = gen.normal();
            dot += q * gen.normal();
        }
        const double delta = dot - mean;
        mean += delta / static_cast<double>(s + 1);
        m2 += delta * (dot - mean);
    }
    dot_stats r;
    r.mean = mean;
    r.variance = m2 / static_cast<double>(count - 1);
    r.std = std::sqrt(r.variance);
    return r;
}

}  // namespace attnlab
