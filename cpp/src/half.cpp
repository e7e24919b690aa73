#include "attnlab/half.hpp"

#include <cstring>

namespace attnlab {

std::uint16_t float_to_half(float x) {
    std::uint32_t f;
    std::memcpy(&f, &x, sizeof f);
    const std::uint16_t sign = static_cast<std::uint16_t>((f >> 16) & 0x8000u);
    const std::uint32_t exponent = (f >> 23) & 0xFFu;
    std::uint32_t mantissa = f & 0x7FFFFFu;
    if (exponent == 0xFFu) return static_cast<std::uint16_t>(sign | 0x7C00u | (mantissa ? 0x200u : 0u));  // inf, NaN
    const int e = static_cast<int>(exponent) - 127 + 15;  // the half's biased exponent
    if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);
    if (e <= 0) {
        // subnormal half: shift the mantissa (with its implicit 1) right by 14 - e, rounding to even
        if (e < -10) return sign;
        mantissa |= 0x800000u;
        const unsigned shift = static_cast<unsigned>(14 - e);
        std::uint32_t h = mantissa >> shift;
        const std::uint32_t rest = mantissa & ((1u << shift) - 1), half_way = 1u << (shift - 1);
        if (rest > half_way || (rest == half_way && (h & 1u))) ++h;
        return static_cast<std::uint16_t>(sign | h);
    }
    // normal: drop 13 mantissa bits, rounding to even; a carry may reach the exponent (and infinity)
    std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
    const std::uint32_t rest = mantissa & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
}

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1Fu;
    std::uint32_t mantissa = h & 0x3FFu;
    std::uint32_t f;
    if (exponent == 0x1Fu) {
        f = sign | 0x7F800000u | (mantissa << 13);
    } else if (exponent != 0) {
        f = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        f = sign;
    } else {
        // subnormal half: normalise into a float
        int e = -1;
        do {
            mantissa <<= 1;
            ++e;
        } while (!(mantissa & 0x400u));
        f = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mantissa & 0x3FFu) << 13);
    }
    float x;
    std::memcpy(&x, &f, sizeof x);
    return x;
}

void floats_to_halves(const float* x, std::uint16_t* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = float_to_half(x[i]);
}

void halves_to_floats(const std::uint16_t* h, float* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = half_to_float(h[i]);
}

}  // namespace attnlab
