#include "attnlab/multihead.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attnlab/attention.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"

namespace attnlab {

namespace {

const std::string fn = "multiHeadAttention";

void require_rank2(const tensor& t, const char* name, const char* expected) {
    if (t.dimension() != 2) {
        fail(error_text(fn) << ": " << name << " has shape " << shape_of(t) << "; expected a matrix "
            << expected);
    }
    require_nonempty(t, fn, name);
    require_finite(t, fn, name);
}

// Copies a rows x width block between row-major buffers with the given row strides. The
// head splits and merges below are such copies; plain loops keep xtensor's transpose and
// view machinery out of the wasm build on this cold path.
void copy_block(const float* src, std::size_t src_stride, float* dst, std::size_t dst_stride, std::size_t rows,
                std::size_t width) {
    for (std::size_t r = 0; r < rows; ++r) std::copy_n(src + r * src_stride, width, dst + r * dst_stride);
}

// [n, h * d] -> [h, n, d]: head i takes columns [i * d, (i + 1) * d).
tensor split_heads(const tensor& t, std::size_t h) {
    const std::size_t n = t.shape()[0], d = t.shape()[1] / h;
    tensor r = empty({h, n, d});
    for (std::size_t i = 0; i < h; ++i) copy_block(t.data() + i * d, h * d, r.data() + i * n * d, d, n, d);
    return r;
}

// [h, n, d] -> [n, h * d], the inverse of split_heads; forgetting the transpose reshapes
// the [h, n, d] memory as it lies.
tensor merge_heads(const tensor& t, bool forget_transpose) {
    const std::size_t h = t.shape()[0], n = t.shape()[1], d = t.shape()[2];
    tensor r = empty({n, h * d});
    if (forget_transpose) {
        std::copy_n(t.data(), t.size(), r.data());
        return r;
    }
    for (std::size_t i = 0; i < h; ++i) copy_block(t.data() + i * n * d, d, r.data() + i * d, h * d, n, d);
    return r;
}

// Columns [c0, c0 + w) of matrix t, as a contiguous [rows, w] tensor.
tensor columns(const tensor& t, std::size_t c0, std::size_t w) {
    const std::size_t rows = t.shape()[0];
    tensor r = empty({rows, w});
    copy_block(t.data() + c0, t.shape()[1], r.data(), w, rows, w);
    return r;
}

}  // namespace

tensor matmul(const tensor& a, const tensor& b, const std::string& where, const char* a_name, const char* b_name) {
    if (a.shape()[1] != b.shape()[0]) {
        fail(error_text(where) << ": " << b_name << " has " << b.shape()[0] << " rows but " << a_name
            << " has " << a.shape()[1] << " columns; expected them to match");
    }
    tensor c = empty({a.shape()[0], b.shape()[1]});
    kernels::matmul(a.data(), b.data(), c.data(), a.shape()[0], a.shape()[1], b.shape()[1]);
    if (!kernels::all_finite(c.data(), c.size())) {
        require_no_overflow(c.data(), shape_of(c), where, (error_text(a_name) << ' ' << b_name << " at ").str().c_str(),
                            (error_text(a_name) << " or " << b_name).str().c_str());
    }
    return c;
}

mha_result multi_head_attention(const mha_inputs& in) {
    require_rank2(in.x, "X", "[n, d_model]");
    require_rank2(in.w_q, "Wq", "[d_model, D_k]");
    require_rank2(in.w_k, "Wk", "[d_model, D_k]");
    require_rank2(in.w_v, "Wv", "[d_model, D_v]");
    const std::size_t n = in.x.shape()[0], d_model = in.x.shape()[1], h = in.heads;
    const struct { const tensor* w; const char* name; } projections[] = {
        {&in.w_q, "Wq"}, {&in.w_k, "Wk"}, {&in.w_v, "Wv"}};
    for (const auto& p : projections) {
        if (p.w->shape()[0] != d_model) {
            fail(error_text(fn) << ": " << p.name << " has " << p.w->shape()[0]
                << " rows but X has d_model = " << d_model);
        }
    }
    const std::size_t d_qk = in.w_q.shape()[1], d_v = in.w_v.shape()[1];
    if (in.w_k.shape()[1] != d_qk) {
        fail(error_text(fn) << ": Wk has " << in.w_k.shape()[1] << " columns but Wq has " << d_qk
            << "; expected the same D_k");
    }
    if (h == 0) fail(error_text(fn) << ": heads = 0; expected a whole number >= 1");
    if (d_qk % h != 0) {
        fail(error_text(fn) << ": heads = " << h << " does not divide "
            << (d_qk == d_model ? "d_model = " : "D_k = ") << d_qk
            << "; expected a divisor so every head gets the same width");
    }
    if (d_v % h != 0) {
        fail(error_text(fn) << ": heads = " << h << " does not divide D_v = " << d_v
            << " (the columns of Wv)");
    }
    if (in.w_o) {
        require_rank2(*in.w_o, "Wo", "[D_v, d_out]");
        if (in.w_o->shape()[0] != d_v) {
            fail(error_text(fn) << ": Wo has " << in.w_o->shape()[0]
                << " rows but the heads concatenate to D_v = " << d_v);
        }
    }
    const std::size_t d_head = d_qk / h, d_vh = d_v / h;
    attention_options opts;
    opts.causal = in.causal;
    opts.scale = in.scale ? *in.scale : 1.0f / std::sqrt(static_cast<float>(d_head));

    mha_result r;
    if (in.method == mha_method::batched) {
        r.q = split_heads(matmul(in.x, in.w_q, fn, "X", "Wq"), h);  // [h, n, d_head]
        r.k = split_heads(matmul(in.x, in.w_k, fn, "X", "Wk"), h);  // [h, n, d_head]
        r.v = split_heads(matmul(in.x, in.w_v, fn, "X", "Wv"), h);  // [h, n, d_vh]
        attention_result a = attention(r.q, r.k, r.v, opts, fn);
        r.scale = a.scale;
        r.scores = std::move(a.scores);
        r.weights = std::move(a.weights);
        r.head_outputs = std::move(a.output);
        r.concat = merge_heads(r.head_outputs, in.forget_merge_transpose);  // [n, D_v]
    } else {
        r.q = empty({h, n, d_head});
        r.k = empty({h, n, d_head});
        r.v = empty({h, n, d_vh});
        r.scores = empty({h, n, n});
        r.weights = empty({h, n, n});
        r.head_outputs = empty({h, n, d_vh});
        r.concat = empty({n, d_v});
        for (std::size_t i = 0; i < h; ++i) {
            // Head i uses only its own column slice of each projection.
            const tensor qi = matmul(in.x, columns(in.w_q, i * d_head, d_head), fn, "X", "Wq");
            const tensor ki = matmul(in.x, columns(in.w_k, i * d_head, d_head), fn, "X", "Wk");
            const tensor vi = matmul(in.x, columns(in.w_v, i * d_vh, d_vh), fn, "X", "Wv");
            attention_result a = attention(qi, ki, vi, opts, fn);
            r.scale = a.scale;
            std::copy_n(qi.data(), qi.size(), r.q.data() + i * qi.size());
            std::copy_n(ki.data(), ki.size(), r.k.data() + i * ki.size());
            std::copy_n(vi.data(), vi.size(), r.v.data() + i * vi.size());
            std::copy_n(a.scores.data(), a.scores.size(), r.scores.data() + i * a.scores.size());
            std::copy_n(a.weights.data(), a.weights.size(), r.weights.data() + i * a.weights.size());
            std::copy_n(a.output.data(), a.output.size(), r.head_outputs.data() + i * a.output.size());
            copy_block(a.output.data(), d_vh, r.concat.data() + i * d_vh, d_v, n, d_vh);
        }
    }
    r.output = in.w_o ? matmul(r.concat, *in.w_o, fn, "the concatenated heads", "Wo") : r.concat;  // [n, d_out]
    return r;
}

}  // namespace attnlab
