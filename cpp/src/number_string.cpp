#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "attnlab/tensor.hpp"

// The wasm build does not link this file: cpp/bindings/number_string.cpp asks the JavaScript
// engine instead, which keeps printf and its long-double arithmetic out of the module.

namespace attnlab {

std::string number_string(double x) {
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
    char buf[32];
    if (std::floor(x) == x && std::abs(x) < 1e21) {
        std::snprintf(buf, sizeof buf, "%.0f", x);  // JavaScript writes whole numbers below 1e21 in full
        return buf;
    }
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, x);
        if (std::strtod(buf, nullptr) == x) break;
    }
    return buf;
}

}  // namespace attnlab
