// attnlab::number_string for the wasm build, in place of cpp/src/number_string.cpp: the
// JavaScript engine's Number#toString is by definition "a number as JavaScript prints it",
// and it keeps snprintf, strtod and their soft-float long double out of the module
// (about 20 KB of code).

#include <string>

#include <emscripten/val.h>

#include "attnlab/tensor.hpp"

namespace attnlab {

std::string number_string(double x) { return emscripten::val(x).call<std::string>("toString"); }

}  // namespace attnlab
