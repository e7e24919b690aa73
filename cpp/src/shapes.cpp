#include "attnlab/shapes.hpp"

#include "attnlab/errors.hpp"

namespace attnlab {

shape_trace trace_shapes(const layer_sizes& sizes_in) {
    layer_sizes s = sizes_in;
    const auto check = [](const char* name, std::size_t value, std::size_t lo) {
        if (value < lo || value > 100000) {
            fail(error_text("traceShapes: ") << name << " = " << value
                << "; expected a whole number from 1 to 100000");
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
            fail(error_text("traceShapes: heads = ") << s.heads << " does not divide dModel = " << s.d_model
                << "; give dk or a divisor");
        }
        s.d_k = s.d_model / s.heads;
    }
    if (s.d_v == 0) s.d_v = s.d_k;
    const std::size_t b = s.batch, n = s.n, h = s.heads;
    // The pipeline as data: each step's extents as letters (b batch, n tokens, m d_model,
    // k d_k, v d_v, K h d_k, V h d_v); per-head steps get the head axis after the batch when
    // h > 1. A table rather than one initializer per step keeps the wasm build small.
    struct spec {
        const char *id, *name, *formula;
        bool per_head;
        const char* extents;
    };
    static const spec pipeline[] = {
        {"ids", "token ids", "", false, "bn"},
        {"X", "embeddings X", "one vector per token", false, "bnm"},
        {"Wq", "W_Q", "learned", false, "mK"},
        {"Wk", "W_K", "learned", false, "mK"},
        {"Wv", "W_V", "learned", false, "mV"},
        {"Q", "queries Q", "X W_Q", true, "nk"},
        {"K", "keys K", "X W_K", true, "nk"},
        {"V", "values V", "X W_V", true, "nv"},
        {"Kt", "K\u1d40", "K transposed", true, "kn"},
        {"scores", "scores", "Q K\u1d40", true, "nn"},
        {"weights", "weights", "softmax(Q K\u1d40 / \u221ad_k), rows sum to 1", true, "nn"},
        {"heads", "head outputs", "weights V", true, "nv"},
        {"concat", "heads merged", "move the head axis back, reshape", false, "bnV"},
        {"Wo", "W_O", "learned", false, "Vm"},
        {"output", "output", "merged heads W_O", false, "bnm"},
    };
    shape_trace t;
    for (const spec& p : pipeline) {
        const std::string id = p.id;
        if (id == "concat" && h == 1) continue;
        shape_step step{id, p.name, p.formula, {}};
        if (h > 1 && (id == "Q" || id == "K" || id == "V")) step.formula += ", split into heads";
        if (h == 1 && id == "heads") step.name = "attention output";
        if (h == 1 && id == "output") step.formula = "attention output W_O";
        if (p.per_head) step.shape = h > 1 ? shape_t{b, h} : shape_t{b};
        for (const char* e = p.extents; *e; ++e) {
            step.shape.push_back(*e == 'b' ? b : *e == 'n' ? n : *e == 'm' ? s.d_model : *e == 'k' ? s.d_k
                                 : *e == 'v' ? s.d_v : *e == 'K' ? h * s.d_k : h * s.d_v);
        }
        t.steps.push_back(std::move(step));
    }
    const double dm = static_cast<double>(s.d_model), hd = static_cast<double>(h);
    t.parameters = dm * hd * s.d_k * 2 + dm * hd * s.d_v * 2;
    t.score_entries = static_cast<double>(b) * hd * static_cast<double>(n) * static_cast<double>(n);
    return t;
}

}  // namespace attnlab
