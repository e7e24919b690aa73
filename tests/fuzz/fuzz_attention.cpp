// libFuzzer harness over the core: decodes shapes, values and options from the fuzz bytes and
// checks the engine's promises against independent references.
//
//   - every stage of attention() against a float64 reference and the documented mask rules
//     (causal: key j visible to query i iff j <= i + n - m; validLens: keys < length, shape a
//     prefix of [...batch, m]; mask: NumPy broadcast to [...batch, m, n]; all combine with AND)
//   - nothing NaN or infinite comes out of a call that accepted finite inputs
//   - the only exception is argument_error, and inputs of moderate size never get one
//   - attention_workspace gives attention()'s stages bit for bit
//   - tiled attention (random block sizes) equals attention() and its lse follows the masks
//     (window: query at p = i + n - m sees p - w < j <= p)
//   - multi-head attention: the loop over heads equals the batched call bit for bit
//   - softmax along any axis matches a float64 reference
//
// Build and run with scripts/fuzz.js (clang++ -fsanitize=fuzzer,address,undefined).

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/multihead.hpp"
#include "attnlab/softmax.hpp"
#include "attnlab/tiled.hpp"
#include "../cpp/reference.hpp"

using namespace attnlab;

namespace {

[[noreturn]] void fail(const char* what, double got = 0, double want = 0) {
    std::fprintf(stderr, "fuzz check failed: %s (got %.9g, want %.9g)\n", what, got, want);
    std::abort();
}

void check(bool ok, const char* what, double got = 0, double want = 0) {
    if (!ok) fail(what, got, want);
}

// Magnitudes from ordinary to the edge of float32, so overflow paths are exercised.
constexpr double magnitudes[] = {1, 2, 10, 1e3, 1e10, 1e19, 1e30, 3.4e38};

struct values {
    FuzzedDataProvider& in;
    double magnitude = 1;
    tensor make(const shape_t& shape) {
        magnitude = magnitudes[in.ConsumeIntegralInRange<std::size_t>(0, 7)];
        tensor t = tensor::from_shape(shape);
        for (float& x : t) x = static_cast<float>(in.ConsumeIntegral<std::int16_t>() / 32768.0 * magnitude);
        return t;
    }
};

std::size_t product(const shape_t& s) {
    std::size_t p = 1;
    for (std::size_t x : s) p *= x;
    return p;
}

bool finite_or_neg_inf(const tensor& t) {
    for (float x : t) {
        if (std::isnan(x) || x == std::numeric_limits<float>::infinity()) return false;
    }
    return true;
}

bool all_finite(const tensor& t) {
    for (float x : t) {
        if (!std::isfinite(x)) return false;
    }
    return true;
}

bool same_bits(const tensor& a, const tensor& b) {
    return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Row-major offset of index `idx` into a tensor of `shape` broadcast (right-aligned) to a
// target of rank idx.size(): axes of extent 1 repeat.
std::size_t broadcast_offset(const shape_t& shape, const shape_t& idx, bool left_aligned) {
    std::size_t off = 0;
    const std::size_t pad = left_aligned ? 0 : idx.size() - shape.size();
    for (std::size_t d = 0; d < shape.size(); ++d) {
        const std::size_t i = shape[d] == 1 ? 0 : idx[pad + d];
        off = off * shape[d] + i;
    }
    return off;
}

struct case_attention {
    shape_t lead;
    std::size_t m, n, dk, dv;
    tensor q, k, v;
    attention_options opts;
    bool expect_ok = true;  // inputs of moderate size with valid masks: an error is a bug
};

void check_attention(const case_attention& c, const attention_result& r) {
    const std::size_t batches = product(c.lead), m = c.m, n = c.n;
    check(all_finite(r.scores) && all_finite(r.scaled) && all_finite(r.weights) && all_finite(r.output),
          "a stage is NaN or infinite for finite inputs");
    check(finite_or_neg_inf(r.masked), "masked holds NaN or +infinity");
    std::size_t fully_masked = 0;
    for (std::size_t b = 0; b < batches; ++b) {
        shape_t idx(c.lead.size() + 2);
        std::size_t rest = b;
        for (std::size_t d = c.lead.size(); d-- > 0;) {
            idx[d] = rest % c.lead[d];
            rest /= c.lead[d];
        }
        const auto allow = [&](std::size_t i, std::size_t j) {
            const long long p = static_cast<long long>(i + n) - static_cast<long long>(m), jj = static_cast<long long>(j);
            if ((c.opts.causal || c.opts.window) && jj > p) return false;
            if (c.opts.window && jj <= p - static_cast<long long>(*c.opts.window)) return false;
            shape_t at = idx;
            at[c.lead.size()] = i;
            at[c.lead.size() + 1] = j;
            if (c.opts.valid_lens) {
                const tensor& vl = *c.opts.valid_lens;
                const shape_t vs = shape_of(vl);
                std::size_t off = 0;
                for (std::size_t d = 0; d < vs.size(); ++d) off = off * vs[d] + at[d];
                if (j >= static_cast<std::size_t>(vl.data()[off])) return false;
            }
            if (c.opts.mask) {
                const tensor& mk = *c.opts.mask;
                if (mk.data()[broadcast_offset(shape_of(mk), at, false)] == 0.0f) return false;
            }
            return true;
        };
        const float* q = c.q.data() + b * m * c.dk;
        const float* k = c.k.data() + b * n * c.dk;
        const float* v = c.v.data() + b * n * c.dv;
        const float* scores = r.scores.data() + b * m * n;
        const float* scaled = r.scaled.data() + b * m * n;
        const float* masked = r.masked.data() + b * m * n;
        const float* weights = r.weights.data() + b * m * n;
        const float* out = r.output.data() + b * m * c.dv;
        for (std::size_t i = 0; i < m; ++i) {
            bool any = false;
            double best = -std::numeric_limits<double>::infinity();
            for (std::size_t j = 0; j < n; ++j) {
                double dot = 0, bound = 0;
                for (std::size_t d = 0; d < c.dk; ++d) {
                    dot += double(q[i * c.dk + d]) * k[j * c.dk + d];
                    bound += std::abs(double(q[i * c.dk + d]) * k[j * c.dk + d]);
                }
                const double tol = 1e-6 * bound * double(c.dk + 1) + 1e-30;
                check(std::abs(scores[i * n + j] - dot) <= tol, "scores differ from the float64 dot product", scores[i * n + j], dot);
                check(scaled[i * n + j] == scores[i * n + j] * r.scale, "scaled != scores * scale in float32");
                const bool a = allow(i, j);
                any = any || a;
                check(a ? masked[i * n + j] == scaled[i * n + j] : masked[i * n + j] == -std::numeric_limits<float>::infinity(),
                      "masked does not follow the documented mask rules");
                if (a) best = std::max(best, double(masked[i * n + j]));
            }
            if (!any) {
                ++fully_masked;
                for (std::size_t j = 0; j < n; ++j) check(weights[i * n + j] == 0.0f, "a fully masked row has a nonzero weight");
                for (std::size_t d = 0; d < c.dv; ++d) check(out[i * c.dv + d] == 0.0f, "a fully masked row has a nonzero output");
                continue;
            }
            // Softmax of the engine's own float32 masked scores, in float64.
            std::vector<double> w(n, 0.0);
            double total = 0;
            for (std::size_t j = 0; j < n; ++j) {
                if (masked[i * n + j] != -std::numeric_limits<float>::infinity()) total += (w[j] = std::exp(masked[i * n + j] - best));
            }
            for (std::size_t j = 0; j < n; ++j) {
                w[j] /= total;
                check(std::abs(weights[i * n + j] - w[j]) <= 2e-6 * double(n) + 1e-6, "weights differ from the float64 softmax", weights[i * n + j], w[j]);
            }
            for (std::size_t d = 0; d < c.dv; ++d) {
                double o = 0, bound = 0;
                for (std::size_t j = 0; j < n; ++j) {
                    o += double(weights[i * n + j]) * v[j * c.dv + d];
                    bound += std::abs(double(weights[i * n + j]) * v[j * c.dv + d]);
                }
                check(std::abs(out[i * c.dv + d] - o) <= 1e-6 * bound * double(n + 1) + 1e-30, "output differs from weights V in float64", out[i * c.dv + d], o);
            }
        }
    }
    check(fully_masked == r.fully_masked_rows.size(), "fullyMaskedRows does not list every fully masked row");
}

// Also against tests/cpp/reference.hpp end to end, when magnitudes are small enough that
// float32 rounding of the scores cannot move the weights much.
void check_against_reference(const case_attention& c, const attention_result& r) {
    if (c.opts.mask || c.opts.valid_lens || c.opts.causal || c.opts.window) return;
    const std::size_t batches = product(c.lead);
    for (std::size_t b = 0; b < batches; ++b) {
        const auto want = ref::attention(c.q.data() + b * c.m * c.dk, c.k.data() + b * c.n * c.dk,
                                         c.v.data() + b * c.n * c.dv, c.m, c.n, c.dk, c.dv, r.scale, ref::everything);
        check(ref::max_diff(r.weights, want.weights, b * c.m * c.n) <= 1e-4, "weights differ from ref::attention");
        double vmax = 0;
        for (std::size_t i = 0; i < c.n * c.dv; ++i) vmax = std::max(vmax, std::abs(double(c.v.data()[b * c.n * c.dv + i])));
        check(ref::max_diff(r.output, want.output, b * c.m * c.dv) <= 1e-4 * (vmax + 1), "output differs from ref::attention");
    }
}

// Tiled attention with block sizes from the input: the same output as attention() for moderate
// inputs, lse -infinity exactly on the fully masked rows, nothing NaN or infinite.
void check_tiled(const case_attention& c, const attention_result* full, bool moderate, FuzzedDataProvider& in) {
    tiled_options t;
    static_cast<attention_options&>(t) = c.opts;
    t.block_q = double(in.ConsumeIntegralInRange<std::size_t>(1, c.m));
    t.block_k = double(in.ConsumeIntegralInRange<std::size_t>(1, c.n));
    try {
        const tiled_result tr = tiled_attention(c.q, c.k, c.v, t);
        check(all_finite(tr.output), "tiled output is NaN or infinite for finite inputs");
        check(finite_or_neg_inf(tr.lse), "tiled lse holds NaN or +infinity");
        if (!full) return;  // e.g. weights V overflowed in full attention but not as o / l
        const std::size_t batches = product(c.lead);
        std::vector<bool> masked_rows(batches * c.m, false);
        for (const shape_t& row : full->fully_masked_rows) {
            std::size_t flat = 0;
            for (std::size_t d = 0; d < c.lead.size(); ++d) flat = flat * c.lead[d] + row[d];
            masked_rows[flat * c.m + row.back()] = true;
        }
        for (std::size_t i = 0; i < batches * c.m; ++i) {
            check((tr.lse.data()[i] == -std::numeric_limits<float>::infinity()) == masked_rows[i],
                  "tiled lse is -infinity on a row that is not fully masked, or finite on one that is");
        }
        if (moderate) {
            double vmax = 0;
            for (float x : c.v) vmax = std::max(vmax, std::abs(double(x)));
            check(max_abs_diff(tr.output, full->output) <= 1e-4 * (vmax + 1), "tiled output differs from attention()");
        }
    } catch (const argument_error& e) {
        check(std::string(e.what()).rfind("tiledAttention: ", 0) == 0, "a tiled error does not start with 'tiledAttention: '");
        if (full && moderate) {
            std::fprintf(stderr, "unexpected error: %s\n", e.what());
            fail("tiled attention refused moderate inputs that attention() accepted");
        }
    }
}

void fuzz_attention(FuzzedDataProvider& in) {
    case_attention c;
    const std::size_t rank = in.ConsumeIntegralInRange<std::size_t>(0, 2);
    for (std::size_t d = 0; d < rank; ++d) c.lead.push_back(in.ConsumeIntegralInRange<std::size_t>(1, 3));
    c.m = in.ConsumeIntegralInRange<std::size_t>(1, 9);
    c.n = in.ConsumeIntegralInRange<std::size_t>(1, 9);
    c.dk = in.ConsumeIntegralInRange<std::size_t>(1, 17);
    c.dv = in.ConsumeIntegralInRange<std::size_t>(1, 9);
    values gen{in};
    shape_t qs = c.lead, ks = c.lead, vs = c.lead;
    qs.insert(qs.end(), {c.m, c.dk});
    ks.insert(ks.end(), {c.n, c.dk});
    vs.insert(vs.end(), {c.n, c.dv});
    c.q = gen.make(qs);
    bool moderate = gen.magnitude <= 10;
    c.k = gen.make(ks);
    moderate = moderate && gen.magnitude <= 10;
    c.v = gen.make(vs);
    moderate = moderate && gen.magnitude <= 1e3;
    c.opts.causal = in.ConsumeBool();
    const std::uint8_t flags = in.ConsumeIntegral<std::uint8_t>();
    bool masks_valid = true;
    if (flags & 1) {
        // validLens: a prefix of [...lead, m]; lengths in [0, n], or one past it (an error).
        shape_t target = c.lead;
        target.push_back(c.m);
        const std::size_t r = in.ConsumeIntegralInRange<std::size_t>(0, target.size());
        tensor vl = tensor::from_shape(shape_t(target.begin(), target.begin() + r));
        for (float& x : vl) {
            x = static_cast<float>(in.ConsumeIntegralInRange<std::size_t>(0, c.n + (flags & 8 ? 1 : 0)));
            masks_valid = masks_valid && x <= float(c.n);
        }
        c.opts.valid_lens = vl;
    }
    if (flags & 2) {
        // mask: a suffix of [...lead, m, n], each axis full or 1.
        shape_t target = c.lead;
        target.insert(target.end(), {c.m, c.n});
        const std::size_t r = in.ConsumeIntegralInRange<std::size_t>(0, target.size());
        shape_t shape(target.end() - r, target.end());
        for (std::size_t& e : shape) e = in.ConsumeBool() ? 1 : e;
        tensor mk = tensor::from_shape(shape);
        for (float& x : mk) x = in.ConsumeBool() ? 1.0f : 0.0f;
        c.opts.mask = mk;
    }
    if (flags & 4) {
        constexpr double scales[] = {0, 1, 0.125, -1, 1e-3, 1e3, 1e-30, 1e30, 1e-60, 1e39};
        const std::size_t i = in.ConsumeIntegralInRange<std::size_t>(0, 9);
        c.opts.scale = scales[i];
        moderate = moderate && i <= 5;
    } else {
        c.opts.rule = static_cast<scaling>(in.ConsumeIntegralInRange<int>(0, 2));
        constexpr double temps[] = {1, 0.5, 2, 1e-2, 1e2, 1e-40, 1e40, 0};
        const std::size_t i = in.ConsumeIntegralInRange<std::size_t>(0, 7);
        c.opts.temperature = temps[i];
        moderate = moderate && i <= 4;
    }
    if (flags & 16) {
        // window: 1..n + 1, or 0 (an error).
        const std::size_t w = in.ConsumeIntegralInRange<std::size_t>(0, c.n + 1);
        c.opts.window = double(w);
        masks_valid = masks_valid && w >= 1;
    }
    c.expect_ok = moderate && masks_valid;

    std::optional<attention_result> r;
    std::string error;
    try {
        r = attention(c.q, c.k, c.v, c.opts);
    } catch (const argument_error& e) {
        error = e.what();
        check(error.rfind("attention: ", 0) == 0, "an error message does not start with 'attention: '");
        if (c.expect_ok) {
            std::fprintf(stderr, "unexpected error: %s\n", e.what());
            fail("moderate inputs with valid masks were refused");
        }
    }
    if (r) {
        check_attention(c, *r);
        if (moderate) check_against_reference(c, *r);
    }

    // The workspace computes the same stages bit for bit, or refuses the same call (it checks
    // masks before the scale, so with both wrong the message may name the other one).
    std::optional<attention_workspace> ws;
    try {
        ws.emplace(c.lead, c.m, c.n, c.dk, c.dv, c.opts);
        std::copy(c.q.begin(), c.q.end(), ws->q().begin());
        std::copy(c.k.begin(), c.k.end(), ws->k().begin());
        std::copy(c.v.begin(), c.v.end(), ws->v().begin());
        const attention_result& w = ws->run();
        check(r.has_value(), "the workspace accepted what attention() refused");
        check(same_bits(w.scores, r->scores) && same_bits(w.scaled, r->scaled) && same_bits(w.masked, r->masked) &&
                  same_bits(w.weights, r->weights) && same_bits(w.output, r->output),
              "the workspace differs from attention() bit for bit");
        check(w.fully_masked_rows == r->fully_masked_rows && w.scale == r->scale, "the workspace's masked rows or scale differ");
    } catch (const argument_error& e) {
        check(!r, "the workspace refused what attention() accepted");
        check(std::string(e.what()).rfind("attention: ", 0) == 0, "a workspace error does not start with 'attention: '");
    }
    if (!c.opts.mask) check_tiled(c, r ? &*r : nullptr, moderate, in);
}

void fuzz_multihead(FuzzedDataProvider& in) {
    mha_inputs mi;
    const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(1, 8);
    const std::size_t d_model = in.ConsumeIntegralInRange<std::size_t>(1, 8);
    const std::size_t h = in.ConsumeIntegralInRange<std::size_t>(1, 4);
    const std::size_t d_head = in.ConsumeIntegralInRange<std::size_t>(1, 4);
    const std::size_t d_vh = in.ConsumeIntegralInRange<std::size_t>(1, 4);
    values gen{in};
    mi.x = gen.make({n, d_model});
    bool moderate = gen.magnitude <= 10;
    mi.w_q = gen.make({d_model, h * d_head});
    moderate = moderate && gen.magnitude <= 2;
    mi.w_k = gen.make({d_model, h * d_head});
    moderate = moderate && gen.magnitude <= 2;
    mi.w_v = gen.make({d_model, h * d_vh});
    moderate = moderate && gen.magnitude <= 1e3;
    if (in.ConsumeBool()) {
        mi.w_o = gen.make({h * d_vh, in.ConsumeIntegralInRange<std::size_t>(1, 6)});
        moderate = moderate && gen.magnitude <= 1e3;
    }
    mi.heads = h;
    mi.causal = in.ConsumeBool();
    std::optional<mha_result> results[2];
    std::string errors[2];
    for (int method = 0; method < 2; ++method) {
        mi.method = method ? mha_method::batched : mha_method::loop;
        try {
            results[method] = multi_head_attention(mi);
        } catch (const argument_error& e) {
            errors[method] = e.what();
            check(errors[method].rfind("multiHeadAttention: ", 0) == 0, "an error message does not start with 'multiHeadAttention: '");
            if (moderate) {
                std::fprintf(stderr, "unexpected error: %s\n", e.what());
                fail("moderate multi-head inputs were refused");
            }
        }
    }
    check(results[0].has_value() == results[1].has_value(), "loop and batched disagree on refusing a call");
    if (!results[0]) return;
    const mha_result &a = *results[0], &b = *results[1];
    for (const tensor* t : {&b.q, &b.k, &b.v, &b.scores, &b.weights, &b.head_outputs, &b.concat, &b.output}) {
        check(all_finite(*t), "a multi-head stage is NaN or infinite for finite inputs");
    }
    check(same_bits(a.q, b.q) && same_bits(a.k, b.k) && same_bits(a.v, b.v) && same_bits(a.scores, b.scores) &&
              same_bits(a.weights, b.weights) && same_bits(a.head_outputs, b.head_outputs) &&
              same_bits(a.concat, b.concat) && same_bits(a.output, b.output),
          "loop and batched multi-head differ bit for bit");
}

void fuzz_softmax(FuzzedDataProvider& in) {
    shape_t shape(in.ConsumeIntegralInRange<std::size_t>(1, 3));
    for (std::size_t& e : shape) e = in.ConsumeIntegralInRange<std::size_t>(1, 6);
    values gen{in};
    const tensor x = gen.make(shape);
    const int rank = static_cast<int>(shape.size());
    const int axis = in.ConsumeIntegralInRange<int>(-rank, rank - 1);
    const tensor y = softmax(x, axis);
    check(all_finite(y), "softmax is NaN or infinite for finite input");
    const std::size_t ax = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
    std::size_t inner = 1;
    for (std::size_t d = ax + 1; d < shape.size(); ++d) inner *= shape[d];
    const std::size_t len = shape[ax], lines = x.size() / len;
    for (std::size_t line = 0; line < lines; ++line) {
        const std::size_t base = (line / inner) * len * inner + line % inner;
        double best = -std::numeric_limits<double>::infinity(), total = 0;
        for (std::size_t j = 0; j < len; ++j) best = std::max(best, double(x.data()[base + j * inner]));
        for (std::size_t j = 0; j < len; ++j) total += std::exp(x.data()[base + j * inner] - best);
        for (std::size_t j = 0; j < len; ++j) {
            const double want = std::exp(x.data()[base + j * inner] - best) / total;
            check(std::abs(y.data()[base + j * inner] - want) <= 1e-5, "softmax differs from float64", y.data()[base + j * inner], want);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // Any exception escaping here (softmax never refuses finite input) crashes the run.
    FuzzedDataProvider in(data, size);
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
        case 0:
        case 1: fuzz_attention(in); break;
        case 2: fuzz_multihead(in); break;
        default: fuzz_softmax(in); break;
    }
    return 0;
}
