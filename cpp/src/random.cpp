#include "attnlab/random.hpp"

#include <cmath>
#include <string>

#include "attnlab/errors.hpp"

namespace attnlab {

std::uint64_t normal_generator::next_bits() {
    // splitmix64 (Steele, Lea and Flood 2014): a Weyl sequence through a 64-bit mixer.
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double normal_generator::uniform() {
    // 53 random bits, shifted by half a step so the result is never exactly 0.
    return (static_cast<double>(next_bits() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double normal_generator::normal() {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    // Box-Muller: two uniforms give two independent standard normals.
    constexpr double two_pi = 6.283185307179586476925;
    const double radius = std::sqrt(-2.0 * std::log(uniform()));
    const double angle = two_pi * uniform();
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
}

tensor random_normal(const shape_t& shape, double stddev, double seed) {
    const std::string fn = "randomNormal";
    // Box-Muller draws stay within 8.7 standard deviations (the smallest uniform is 2^-54),
    // so stddev <= 1e37 keeps every entry inside float32.
    if (!(stddev >= 0 && stddev <= 1e37)) {
        fail(error_text(fn) << ": stddev = " << stddev << "; expected a number from 0 to 1e37");
    }
    const std::uint64_t first = size_arg(seed).to_count(fn, "seed", {0, 9007199254740991.0, "2^53 - 1"});
    checked_size(shape, default_max_elements, fn, "the tensor");
    tensor t = empty(shape);
    normal_generator gen(first);
    for (float& x : t) x = static_cast<float>(gen.normal() * stddev);
    return t;
}

}  // namespace attnlab
