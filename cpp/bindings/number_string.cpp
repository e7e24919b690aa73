// attnlab::number_string for the wasm build, in place of cpp/src/number_string.cpp: the
// JavaScript engine's String(x) is by definition "a number as JavaScript prints it", and it
// keeps snprintf, strtod and their soft-float long double out of the module (about 20 KB of
// code). The text comes back into a stack buffer, so formatting allocates nothing.

#include <string>

#include <emscripten/emscripten.h>

#include "attnlab/tensor.hpp"

EM_JS(int, attnlab_number_text, (double x, char* out, int size), { return stringToUTF8(String(x), out, size); });

namespace attnlab {

std::string number_string(double x) {
    char text[32];  // the longest is 24 characters: "-1.7976931348623157e+308"
    attnlab_number_text(x, text, sizeof text);
    return text;
}

}  // namespace attnlab
