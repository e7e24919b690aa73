#pragma once
// Conversions between JavaScript values and the core's types.
//
// Who checks what: web/src checks JavaScript types and structure (only it can see a cycle, a
// BigInt, a getter or an inherited property) and hands over plain objects it built itself;
// the C++ side checks every value and shape: whole numbers before narrowing them (to_size),
// ranges, finiteness, and the core's own rules. Nothing here re-checks a JS type.
//
// Tensors cross as { shape: number[], data: Float32Array } in both directions.

#include <string>
#include <vector>
#include <type_traits>
#include <utility>

#include <emscripten/val.h>

#include "attnlab/attention.hpp"
#include "attnlab/examples.hpp"
#include "attnlab/explain.hpp"
#include "attnlab/multihead.hpp"
#include "attnlab/shapes.hpp"
#include "attnlab/stats.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab::bindings {

using emscripten::val;

/// An uninitialised tensor for an input given as `rank` extents (doubles, as JS numbers
/// arrive) and a data length: checks each extent is a whole number before narrowing it, the
/// total against default_max_elements, and that the data length matches. (In staging.cpp.)
tensor make_input(const double* extents, std::size_t rank, double length, const char* fn, const char* name);

/// make_input's checks with their messages, for inputs its fast path did not accept: throws
/// argument_error, or returns the tensor if every check passes after all. (In convert.cpp.)
tensor checked_input(const double* extents, std::size_t rank, double length, const char* fn, const char* name);

/// Copies { shape, data } into a new tensor with one bulk TypedArray.set().
tensor to_tensor(const val& js, const char* fn, const char* name);

/// A JS-owned copy: { shape, data: Float32Array }.
val to_js(const tensor& t);

/// A shape or an index as a JS array of numbers.
val shape_to_js(const shape_t& shape);

attention_options to_attention_options(const val& js, const char* fn);
mha_inputs to_mha_inputs(const val& js);

val to_js(const mha_result& r);
val to_js(const dot_stats& s);
val to_js(const example_inputs& ex);
val to_js(const std::vector<saturation_point>& pts);
val to_js(const shape_trace& t);
val to_js(const row_derivation& d);
layer_sizes to_layer_sizes(const val& js);
std::vector<double> to_numbers(const val& js);

/// { error: message } for the JS wrapper to throw as an Error.
val error_value(const std::string& message);

/// Runs body(context), turning any C++ exception into error_value so none escapes to JS
/// (an escaping exception reaches JS as a bare number). One copy of the catch clauses for
/// every entry point: `guarded` below only adds a small thunk per call site.
val guarded_call(const char* fn, val (*body)(void*), void* context);

/// guarded_call for a callable returning val.
template <class Body>
val guarded(const char* fn, Body&& body) {
    using body_t = std::remove_reference_t<Body>;
    return guarded_call(fn, [](void* c) -> val { return (*static_cast<body_t*>(c))(); },
                        const_cast<void*>(static_cast<const void*>(&body)));
}

}  // namespace attnlab::bindings
