#include <catch2/catch.hpp>

#include "attnlab/errors.hpp"
#include "attnlab/shapes.hpp"

using attnlab::shape_t;

namespace {
shape_t shape_of_step(const attnlab::shape_trace& t, const std::string& id) {
    for (const auto& s : t.steps) {
        if (s.id == id) return s.shape;
    }
    FAIL("no step " << id);
    return {};
}
}  // namespace

TEST_CASE("the lesson's single-head batch shapes come out of the trace", "[shapes][lesson]") {
    attnlab::layer_sizes s;
    s.batch = 32;
    s.n = 50;
    s.d_model = 64;
    s.heads = 1;
    s.d_k = 64;
    s.d_v = 128;
    const auto t = attnlab::trace_shapes(s);
    CHECK(shape_of_step(t, "Q") == shape_t{32, 50, 64});
    CHECK(shape_of_step(t, "V") == shape_t{32, 50, 128});
    CHECK(shape_of_step(t, "weights") == shape_t{32, 50, 50});
    CHECK(shape_of_step(t, "heads") == shape_t{32, 50, 128});
}

TEST_CASE("multi-head shapes and the parameter count for d_model = 512, h = 8", "[shapes][lesson]") {
    attnlab::layer_sizes s;
    s.batch = 1;
    s.n = 6;
    s.d_model = 512;
    s.heads = 8;
    s.d_k = 64;
    s.d_v = 64;
    const auto t = attnlab::trace_shapes(s);
    CHECK(t.parameters == 1048576);
    CHECK(shape_of_step(t, "Q") == shape_t{1, 8, 6, 64});
    CHECK(shape_of_step(t, "scores") == shape_t{1, 8, 6, 6});
    CHECK(shape_of_step(t, "concat") == shape_t{1, 6, 512});
    CHECK(shape_of_step(t, "output") == shape_t{1, 6, 512});
    CHECK(t.score_entries == 8 * 36);
    s.d_k = 0;  // derived: d_model / heads
    s.d_v = 0;  // derived: d_k
    const auto derived = attnlab::trace_shapes(s);
    CHECK(shape_of_step(derived, "K") == shape_t{1, 8, 6, 64});
    CHECK(shape_of_step(derived, "V") == shape_t{1, 8, 6, 64});
    s.heads = 3;
    CHECK_THROWS_MATCHES(attnlab::trace_shapes(s), attnlab::argument_error,
                         Catch::Matchers::Message("traceShapes: heads = 3 does not divide dModel = 512; give dk or a divisor"));
    s.heads = 0;
    CHECK_THROWS_MATCHES(attnlab::trace_shapes(s), attnlab::argument_error,
                         Catch::Matchers::Message("traceShapes: heads = 0; expected a whole number from 1 to 100000"));
}
