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
//   - the KV cache: sizes from a table that includes 2^31, 2^32 - 1, 2^32, 2^32 + 1 and 2^53
//     are refused by name or held exactly (never narrowed), and every attend() step equals a
//     float64 reference of grouped-query attention over the tokens appended so far
//   - every size conversion (size_arg) and the cost figures: a size is refused or kept exactly,
//     and a figure is refused or exact (checked in 128-bit integers)
//
// Build and run with scripts/fuzz.js: natively with libFuzzer (clang++ -fsanitize=fuzzer,
// address,undefined), and as wasm32 (em++ with ASan and UBSan, run by wasm_driver.cpp), where
// size_t has 32 bits as in the browser, so a narrowing of 2^32 + 2 to 2 is undefined behaviour
// that UBSan stops at, and an accepted size that does not read back the same fails a check.

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
#include "attnlab/cost.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/kv_cache.hpp"
#include "attnlab/language_model.hpp"
#include "attnlab/multihead.hpp"
#include "attnlab/softmax.hpp"
#include "attnlab/tiled.hpp"
#include "../cpp/reference.hpp"

using namespace attnlab;

namespace {

}  // namespace

// Defined by wasm_driver.cpp, which saves the input; libFuzzer saves it itself.
extern "C" __attribute__((weak)) void attnlab_fuzz_failed();

namespace {

[[noreturn]] void fail(const char* what, double got = 0, double want = 0) {
    std::fprintf(stderr, "fuzz check failed: %s (got %.9g, want %.9g)\n", what, got, want);
    if (attnlab_fuzz_failed) attnlab_fuzz_failed();
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
        const float* q = c.q.data() + b * c.m * c.dk;
        const float* k = c.k.data() + b * c.n * c.dk;
        const float* v = c.v.data() + b * c.n * c.dv;
        const auto want = ref::attention(q, k, v, c.m, c.n, c.dk, c.dv, r.scale, ref::everything);
        // float32 rounds each score (a sum of d_k products) and then its scaling, so a logit can
        // be off by about |scale| * ((d_k + 1) * sum_k |q_k k_k| + |score|) * 2^-24, and a weight
        // by a factor up to exp(2 * that). With large scales (1e3, temperature 1e-2) this rounding,
        // not the engine, dominates the difference from the float64 reference.
        double logit = 0, vmax = 0;
        for (std::size_t i = 0; i < c.m; ++i) {
            for (std::size_t j = 0; j < c.n; ++j) {
                double abs_sum = 0, dot = 0;
                for (std::size_t d = 0; d < c.dk; ++d) {
                    abs_sum += std::abs(double(q[i * c.dk + d]) * double(k[j * c.dk + d]));
                    dot += double(q[i * c.dk + d]) * double(k[j * c.dk + d]);
                }
                logit = std::max(logit, std::abs(double(r.scale)) * (double(c.dk + 1) * abs_sum + std::abs(dot)) * 0x1p-24);
            }
        }
        for (std::size_t i = 0; i < c.n * c.dv; ++i) vmax = std::max(vmax, std::abs(double(v[i])));
        const double weight_tol = 1e-4 + std::expm1(2 * logit);
        const double dw = ref::max_diff(r.weights, want.weights, b * c.m * c.n);
        check(dw <= weight_tol, "weights differ from ref::attention (got the difference, want at most the tolerance)", dw, weight_tol);
        const double out_tol = 1e-4 * (vmax + 1) + std::expm1(2 * logit) * vmax;
        const double dout = ref::max_diff(r.output, want.output, b * c.m * c.dv);
        check(dout <= out_tol, "output differs from ref::attention (got the difference, want at most the tolerance)", dout, out_tol);
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

// Sizes as JavaScript may pass them: small ones, and the edges of 32 and 53 bits.
constexpr double edge_sizes[] = {0, 1.5, -1, 2147483648.0, 4294967295.0, 4294967296.0, 4294967297.0,
                                 4294967298.0, 9007199254740992.0, 1e20};

double fuzz_size(FuzzedDataProvider& in, std::size_t small_max) {
    if (in.ConsumeIntegralInRange<int>(0, 7) != 0) return double(in.ConsumeIntegralInRange<std::size_t>(1, small_max));
    return edge_sizes[in.ConsumeIntegralInRange<std::size_t>(0, sizeof(edge_sizes) / sizeof(edge_sizes[0]) - 1)];
}

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// The KV cache against grouped-query attention in float64 over the tokens so far.
void fuzz_kv_cache(FuzzedDataProvider& in) {
    const double heads = fuzz_size(in, 4), kv_heads = fuzz_size(in, 4), d_head = fuzz_size(in, 5),
                 max_length = fuzz_size(in, 6);
    const auto small = [](double x, double most) { return x >= 1 && x <= most && std::floor(x) == x; };
    const bool moderate = small(heads, 4) && small(kv_heads, 4) && small(d_head, 5) && small(max_length, 6) &&
                          std::fmod(heads, kv_heads) == 0;
    std::optional<kv_cache> cache;
    try {
        cache.emplace(heads, kv_heads, d_head, max_length, std::nullopt);
    } catch (const argument_error& e) {
        check(starts_with(e.what(), "createKVCache: "), "a cache error does not start with 'createKVCache: '");
        check(!moderate, "a cache of moderate sizes was refused");
        return;
    }
    // Accepted: every size reads back exactly as given (no narrowing), and is small enough to hold.
    check(double(cache->heads()) == heads && double(cache->kv_heads()) == kv_heads &&
              double(cache->d_head()) == d_head && double(cache->max_length()) == max_length,
          "the cache holds other sizes than it was given");
    const std::size_t h = cache->heads(), g = cache->kv_heads(), d = cache->d_head();
    check(double(h) * double(d) <= double(default_max_elements), "the cache accepted heads x dHead past the limit");
    values gen{in};
    std::vector<tensor> keys, vals;
    bool cached_small = true;  // every token appended so far has magnitudes <= 10
    const std::size_t steps = in.ConsumeIntegralInRange<std::size_t>(1, 7);
    for (std::size_t step = 0; step < steps && in.remaining_bytes() > 0; ++step) {
        const bool wrong = in.ConsumeIntegralInRange<int>(0, 15) == 0;  // a token of the wrong width
        const tensor k = gen.make({g, wrong ? d + 1 : d});
        const bool k_small = gen.magnitude <= 10;
        const tensor v = gen.make({g, d});
        const bool token_small = k_small && gen.magnitude <= 10;
        try {
            cache->append(k, v);
            check(!wrong && keys.size() < cache->max_length(), "append accepted a wrong token or a full cache");
            keys.push_back(k);
            vals.push_back(v);
            cached_small = cached_small && token_small;
        } catch (const argument_error& e) {
            check(starts_with(e.what(), "KVCache.append: "), "an append error does not start with 'KVCache.append: '");
            check(wrong || keys.size() == cache->max_length(), "append refused a good token");
            continue;
        }
        check(cache->length() == keys.size(), "length() differs from the appends");
        const tensor q = gen.make({h, d});
        const bool q_small = cached_small && gen.magnitude <= 10;
        try {
            const kv_step r = cache->attend(q);
            check(shape_of(r.output) == shape_t{h, d} && shape_of(r.weights) == shape_t{h, keys.size()},
                  "attend's output or weights have the wrong shape");
            check(all_finite(r.output) && all_finite(r.weights), "attend gave NaN or infinity");
            const std::size_t n = keys.size(), group = h / g;
            for (std::size_t head = 0; head < h; ++head) {
                const std::size_t kv = head / group;
                if (!q_small) continue;
                std::vector<double> w(n);
                double best = -std::numeric_limits<double>::infinity(), total = 0, logit = 0;
                for (std::size_t j = 0; j < n; ++j) {
                    double dot = 0, abs_sum = 0;
                    for (std::size_t c = 0; c < d; ++c) {
                        const double p = double(q.data()[head * d + c]) * keys[j].data()[kv * d + c];
                        dot += p;
                        abs_sum += std::abs(p);
                    }
                    w[j] = dot * double(cache->scale());
                    best = std::max(best, w[j]);
                    // float32 rounding of the score and its scaling (as in check_against_reference)
                    logit = std::max(logit, double(cache->scale()) * (double(d + 1) * abs_sum + std::abs(dot)) * 0x1p-24);
                }
                for (double& x : w) total += (x = std::exp(x - best));
                const double weight_tol = 1e-5 + std::expm1(2 * logit);
                for (std::size_t j = 0; j < n; ++j) {
                    check(std::abs(r.weights.data()[head * n + j] - w[j] / total) <= weight_tol, "attend's weights differ from float64", r.weights.data()[head * n + j], w[j] / total);
                }
                for (std::size_t c = 0; c < d; ++c) {
                    double o = 0, bound = 0;
                    for (std::size_t j = 0; j < n; ++j) {
                        o += w[j] / total * vals[j].data()[kv * d + c];
                        bound += std::abs(vals[j].data()[kv * d + c]);
                    }
                    check(std::abs(r.output.data()[head * d + c] - o) <= 1e-5 * (bound + 1) + weight_tol * bound, "attend's output differs from float64", r.output.data()[head * d + c], o);
                }
            }
        } catch (const argument_error& e) {
            check(starts_with(e.what(), "KVCache.attend: "), "an attend error does not start with 'KVCache.attend: '");
            check(!q_small, "attend refused small inputs");
        }
    }
}

// size_arg and the cost figures: every size is refused or kept exactly; every figure is
// refused or exact.
void fuzz_sizes(FuzzedDataProvider& in) {
    const double x = in.ConsumeBool() ? fuzz_size(in, 1000) : in.ConsumeFloatingPoint<double>();
    const double lo = double(in.ConsumeIntegralInRange<int>(0, 2));
    const double hi = in.ConsumeBool() ? max_exact_whole : fuzz_size(in, 1000);
    try {
        const std::size_t s = size_arg(x).to_size("f", "n", {lo, hi});
        check(double(s) == x && x >= lo && x <= hi && x <= max_index, "to_size kept a size it should have refused, or changed it");
    } catch (const argument_error&) {
        check(!(std::floor(x) == x && x >= lo && x <= hi && x <= max_index), "to_size refused a whole number in range");
    }
    try {
        const std::uint64_t c = size_arg(x).to_count("f", "n", {lo, hi});
        check(double(c) == x && x <= max_exact_whole, "to_count kept a count it should have refused, or changed it");
    } catch (const argument_error&) {
        check(!(std::floor(x) == x && x >= lo && x <= hi && x <= max_exact_whole), "to_count refused a whole number in range");
    }
    cost_spec spec;
    spec.batch = fuzz_size(in, 4);
    spec.heads = fuzz_size(in, 4);
    spec.m = fuzz_size(in, 300);
    spec.n = fuzz_size(in, 300);
    spec.d_k = fuzz_size(in, 64);
    if (in.ConsumeBool()) spec.d_v = fuzz_size(in, 64);
    if (in.ConsumeBool()) spec.window = fuzz_size(in, 300);
    if (in.ConsumeBool()) spec.block_q = fuzz_size(in, 64);
    if (in.ConsumeBool()) spec.block_k = fuzz_size(in, 64);
    spec.causal = in.ConsumeBool();
    try {
        const cost_report r = cost_figures(spec);
        // Accepted: the sizes were whole and held exactly, and the totals are exact products.
        using wide = unsigned __int128;
        const wide slices = wide(std::uint64_t(spec.batch)) * wide(std::uint64_t(spec.heads));
        const wide mn = wide(std::uint64_t(spec.m)) * wide(std::uint64_t(spec.n));
        const wide dv = spec.d_v ? wide(std::uint64_t(*spec.d_v)) : wide(std::uint64_t(spec.d_k));
        const wide full = slices * mn * (wide(std::uint64_t(spec.d_k)) + dv);
        check(double(full) == r.full.multiply_adds && full <= wide(std::uint64_t(1) << 53), "the full multiply-adds are not the exact product");
        check(r.full.peak_extra_floats == double(mn), "the full peak is not one slice's m x n");
        check(r.tiled.multiply_adds <= r.full.multiply_adds, "tiled attention does more multiply-adds than full");
    } catch (const argument_error& e) {
        check(starts_with(e.what(), "costFigures: "), "a cost error does not start with 'costFigures: '");
    }
}

}  // namespace

// Weight loading (language_model.hpp, the path of loadModel and loadTrainer): a small model of
// any shape and position scheme, weights drawn at any magnitude (some set to one huge value, as
// float16's 65504 or 1e10 in a real file), and any tokens. The promise: weights are refused by
// an argument_error naming a parameter, or else the forward pass is finite for every input, so
// the attention rows are distributions and the next-token probabilities sum to 1.
void fuzz_weights(FuzzedDataProvider& in) {
    transformer_config c;
    c.vocab = in.ConsumeIntegralInRange<std::size_t>(2, 12);
    c.seq_len = in.ConsumeIntegralInRange<std::size_t>(2, 8);
    c.layers = in.ConsumeIntegralInRange<std::size_t>(1, 2);
    c.heads = in.ConsumeIntegralInRange<std::size_t>(1, 2);
    c.d_model = c.heads * 2 * in.ConsumeIntegralInRange<std::size_t>(1, 3);  // d_head even, as RoPE needs
    c.mlp = in.ConsumeBool() ? in.ConsumeIntegralInRange<std::size_t>(1, 8) : 0;
    c.act = in.ConsumeBool() ? grad::activation::gelu : grad::activation::relu;
    c.layer_norm = in.ConsumeBool();
    c.positions = static_cast<position_kind>(in.ConsumeIntegralInRange<int>(0, 4));
    language_model model(c, "fuzz");
    std::vector<float> w(model.param_count());
    values gen{in};
    const tensor drawn = gen.make({w.size()});
    std::copy(drawn.begin(), drawn.end(), w.begin());
    // A few entries set to one large value, as a file in float16 or a diverged run would hold.
    constexpr double spikes[] = {65504, 1e4, -1e4, 1e10, 1e6, 3e38};
    for (int k = in.ConsumeIntegralInRange<int>(0, 3); k > 0; --k)
        w[in.ConsumeIntegralInRange<std::size_t>(0, w.size() - 1)] = static_cast<float>(spikes[in.ConsumeIntegralInRange<std::size_t>(0, 5)]);
    try {
        model.set_weights(w.data(), w.size(), "fuzz");
    } catch (const argument_error& e) {
        const std::string what = e.what();
        bool named = false;
        for (const parameter& p : model.parameters()) named = named || what.find(p.name) != std::string::npos;
        check(named, "a refused weight file names no parameter");
        return;
    }
    const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(1, c.seq_len);
    std::vector<std::int32_t> tokens(n);
    for (auto& t : tokens) t = in.ConsumeIntegralInRange<std::int32_t>(0, static_cast<std::int32_t>(c.vocab) - 1);
    std::vector<float> att(c.layers * c.heads * n * n);
    model.attention(tokens.data(), n, att.data(), "fuzz");
    for (std::size_t row = 0; row < c.layers * c.heads * n; ++row) {
        double total = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const float x = att[row * n + j];
            check(std::isfinite(x) && x >= 0, "accepted weights give an attention weight that is not a finite probability", x);
            total += x;
        }
        check(std::abs(total - 1) <= 1e-4, "an attention row of accepted weights does not sum to 1", total, 1);
    }
    std::vector<float> logits(c.vocab);
    model.next_logits(tokens.data(), n, logits.data(), "fuzz");
    for (float x : logits) check(std::isfinite(x), "accepted weights give a logit that is not finite", x);
    double total = 0;
    for (double p : probabilities_of(logits.data(), c.vocab)) total += p;
    check(std::abs(total - 1) <= 1e-9, "next-token probabilities of accepted weights do not sum to 1", total, 1);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // Any exception escaping here (softmax never refuses finite input) crashes the run.
    FuzzedDataProvider in(data, size);
    switch (in.ConsumeIntegralInRange<int>(0, 6)) {
        case 0:
        case 1: fuzz_attention(in); break;
        case 2: fuzz_multihead(in); break;
        case 3: fuzz_softmax(in); break;
        case 4: fuzz_kv_cache(in); break;
        case 5: fuzz_sizes(in); break;
        default: fuzz_weights(in); break;
    }
    return 0;
}
