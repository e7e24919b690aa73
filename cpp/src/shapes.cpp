#include "attnlab/shapes.hpp"

#include "attnlab/errors.hpp"

namespace attnlab {

shape_trace trace_shapes(const layer_sizes& sizes_in) {
    layer_sizes s = sizes_in;
    const auto check = [](const char* name, std::size_t value, std::size_t lo) {
        if (value < lo || value > 100000) {
            throw argument_error(std::string("traceShapes: ") + name + " = " + std::to_string(value) +
                                 "; expected a whole number from 1 to 100000");
        }
    };
    check("batch", s.batch, 1);
    check("n", s.n, 1);
    check("dModel", s.d_model, 1);
    check("heads", s.heads, 1);
    check("dk", s.d_k, 0);
    check("dv", s.d_v, 0);
    if (s.d_k == 0) {
        if (s.d_model % s.heads != 0) {
            throw argument_error("traceShapes: heads = " + std::to_string(s.heads) + " does not divide dModel = " +
                                 std::to_string(s.d_model) + "; give dk or a divisor");
        }
        s.d_k = s.d_model / s.heads;
    }
    if (s.d_v == 0) s.d_v = s.d_k;
    const std::size_t b = s.batch, n = s.n, h = s.heads;
    const shape_t lead = h > 1 ? shape_t{b, h} : shape_t{b};
    const auto per_head = [&](std::initializer_list<std::size_t> tail) {
        shape_t out = lead;
        out.insert(out.end(), tail);
        return out;
    };
    shape_trace t;
    const char* split = h > 1 ? ", split into heads" : "";
    t.steps = {
        {"ids", "token ids", "", {b, n}},
        {"X", "embeddings X", "one vector per token", {b, n, s.d_model}},
        {"Wq", "W_Q", "learned", {s.d_model, h * s.d_k}},
        {"Wk", "W_K", "learned", {s.d_model, h * s.d_k}},
        {"Wv", "W_V", "learned", {s.d_model, h * s.d_v}},
        {"Q", "queries Q", std::string("X W_Q") + split, per_head({n, s.d_k})},
        {"K", "keys K", std::string("X W_K") + split, per_head({n, s.d_k})},
        {"V", "values V", std::string("X W_V") + split, per_head({n, s.d_v})},
        {"Kt", "K\u1d40", "K transposed", per_head({s.d_k, n})},
        {"scores", "scores", "Q K\u1d40", per_head({n, n})},
        {"weights", "weights", "softmax(Q K\u1d40 / \u221ad_k), rows sum to 1", per_head({n, n})},
        {"heads", h > 1 ? "head outputs" : "attention output", "weights V", per_head({n, s.d_v})},
    };
    if (h > 1) t.steps.push_back({"concat", "heads merged", "move the head axis back, reshape", {b, n, h * s.d_v}});
    t.steps.push_back({"Wo", "W_O", "learned", {h * s.d_v, s.d_model}});
    t.steps.push_back({"output", "output", h > 1 ? "merged heads W_O" : "attention output W_O", {b, n, s.d_model}});
    const double dm = static_cast<double>(s.d_model), hd = static_cast<double>(h);
    t.parameters = dm * hd * s.d_k * 2 + dm * hd * s.d_v * 2;
    t.score_entries = static_cast<double>(b) * hd * static_cast<double>(n) * static_cast<double>(n);
    return t;
}

}  // namespace attnlab
