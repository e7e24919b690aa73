#include "attnlab/mistakes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attnlab/attention.hpp"
#include "attnlab/errors.hpp"
#include "attnlab/kernels.hpp"

namespace attnlab {

namespace {

constexpr float neg_inf = -std::numeric_limits<float>::infinity();
constexpr double cell_tolerance = 1e-6;
constexpr double half_max = 65504.0;

const std::vector<mistake_info> catalog = {
    {"softmax-wrong-axis", "Softmax over the wrong axis",
     "Each column of the weights sums to 1 and the rows do not, so a query's output is no longer an average of the values.",
     "Normalise over the keys, the last axis: softmax(scores, dim=-1)."},
    {"mask-after-softmax", "Mask applied after the softmax",
     "Masked weights are 0 but nothing is renormalised: rows sum to less than 1 and the outputs shrink.",
     "Fill masked scores with -inf before the softmax, never zero weights after it."},
    {"no-scaling", "No scaling",
     "Rows of weights are sharper than they should be, nearly one-hot at the key widths of real models, where the gradient through the softmax all but vanishes.",
     "Multiply the scores by 1/sqrt(d_k) before the softmax."},
    {"scale-by-dk", "Dividing by d_k instead of sqrt(d_k)",
     "Rows of weights are flatter than they should be, towards uniform at the key widths of real models: every token attends to everything a little.",
     "Divide the scores by sqrt(d_k), not by d_k."},
    {"fp16-mask-fill", "A -1e9 mask fill in float16",
     "In half precision -1e9 becomes -inf; a row whose keys are all masked turns into NaN, and soon the loss does too.",
     "Fill with the dtype's most negative finite value (torch.finfo(dtype).min) and zero fully masked rows."},
    {"keys-not-transposed", "Keys not transposed (Q K instead of Q K^T)",
     "A shape error for most inputs; when the sequence length equals d_k it runs and the weights are silently wrong.",
     "Multiply by the transposed keys: Q @ K.transpose(-2, -1)."},
    {"no-causal-mask", "A decoder without its causal mask",
     "Each position sees the tokens after it: training loss looks too good, and generation, which has no future, fails.",
     "Hide every key after the query (j > i) with -inf before the softmax."},
    {"no-padding-mask", "Padding mask forgotten",
     "Real tokens put weight on pad tokens, so a sentence's output changes when it is padded.",
     "Mask the keys at or past each sequence's valid length before the softmax."},
};

// Entry (i, j) of a matrix, or of row i counted across the batch slices of [..., m, n]: plain
// indexing, since element access through xtensor's dynamic-rank strides costs code at every use.
float& at(tensor& t, std::size_t i, std::size_t j) { return t.data()[i * t.shape().back() + j]; }
float at(const tensor& t, std::size_t i, std::size_t j) { return t.data()[i * t.shape().back() + j]; }

void require_matrix(const tensor& t, const char* name, const char* axes, const std::string& fn) {
    if (t.dimension() != 2) {
        fail(error_text(fn) << ": " << name << " has shape " << shape_of(t) << "; expected a matrix " << axes
            << " (one head, no batch axes; only no-causal-mask and no-padding-mask take batch axes)");
    }
}

// output [m, d_v] = weights [m, n] V [n, d_v], refusing an overflow as attention() does.
tensor times_values(const tensor& weights, const tensor& v, const std::string& fn) {
    const std::size_t m = weights.shape()[0], n = weights.shape()[1], d_v = v.shape()[1];
    tensor out = empty({m, d_v});
    kernels::matmul(weights.data(), v.data(), out.data(), m, n, d_v);
    require_no_overflow(out.data(), {m, d_v}, fn, "the output", "V");
    return out;
}

bool hidden(const attention_result& r, std::size_t i, std::size_t j) {
    return at(r.masked, i, j) == neg_inf;
}

bool row_visible(const attention_result& r, std::size_t i) {
    return kernels::row_max(r.masked.data() + i * r.masked.shape().back(), r.masked.shape().back()) != neg_inf;
}

// Largest |row sum - 1| over the rows that see at least one key (`correct` says which).
double row_sum_error(const tensor& w, const attention_result& correct) {
    const std::size_t m = w.shape()[0], n = w.shape()[1];
    double worst = 0;
    for (std::size_t i = 0; i < m; ++i) {
        if (!row_visible(correct, i)) continue;
        double s = 0;
        for (std::size_t j = 0; j < n; ++j) s += at(w, i, j);
        worst = std::max(worst, std::abs(s - 1));
    }
    return worst;
}

// Largest |column sum - 1| over the columns some query may see.
double column_sum_error(const tensor& w, const attention_result& correct) {
    const std::size_t m = w.shape()[0], n = w.shape()[1];
    double worst = 0;
    for (std::size_t j = 0; j < n; ++j) {
        double s = 0;
        bool seen = false;
        for (std::size_t i = 0; i < m; ++i) {
            s += at(w, i, j);
            seen = seen || !hidden(correct, i, j);
        }
        if (seen) worst = std::max(worst, std::abs(s - 1));
    }
    return worst;
}

// Mean over visible rows of the largest weight, and of the entropy -sum w log w (nats).
std::pair<double, double> saturation(const tensor& w, const attention_result& correct) {
    const std::size_t m = w.shape()[0], n = w.shape()[1];
    double top = 0, entropy = 0;
    std::size_t rows = 0;
    for (std::size_t i = 0; i < m; ++i) {
        if (!row_visible(correct, i)) continue;
        double best = 0, h = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const double x = at(w, i, j);
            best = std::max(best, x);
            if (x > 0) h -= x * std::log(x);
        }
        top += best;
        entropy += h;
        ++rows;
    }
    return rows ? std::make_pair(top / rows, entropy / rows) : std::make_pair(0.0, 0.0);
}

// The largest total weight one row puts on keys that `with_mask` hides and `without` shows,
// over the rows `counted` marks, and that row (counted across the batch slices; the first on
// a tie; none when no row leaks anything).
struct leak {
    double value = 0;
    std::optional<std::size_t> row;
};

leak leaked_weight(const attention_result& with_mask, const attention_result& without, const std::vector<char>& counted) {
    const std::size_t n = without.weights.shape().back(), rows = counted.size();
    leak worst;
    for (std::size_t i = 0; i < rows; ++i) {
        if (!counted[i]) continue;
        double s = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (hidden(with_mask, i, j) && !hidden(without, i, j)) s += at(without.weights, i, j);
        }
        if (s > worst.value) worst = {s, i};
    }
    return worst;
}

// The query rows [...lead, m] that are real tokens, not padding. In self-attention (m = n)
// query i is the token at key position i, so it is real when i is below its valid length;
// with m != n the queries come from another sequence, which the keys' valid lengths say
// nothing about.
std::vector<char> real_query_rows(const mask_options& masks, const shape_t& lead, std::size_t m, std::size_t n,
                                  const std::string& fn) {
    std::size_t slices = 1;
    for (std::size_t x : lead) slices *= x;
    std::vector<char> real(slices * m, true);
    if (!masks.valid_lens || m != n) return real;
    mask_options lens_only;
    lens_only.valid_lens = masks.valid_lens;
    const row_masks rows(lens_only, lead, m, n, fn);
    for (std::size_t b = 0; b < slices; ++b) {
        for (std::size_t i = 0; i < m; ++i) real[b * m + i] = i < rows.limit(b, i);
    }
    return real;
}

std::size_t nan_count(const tensor& t) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < t.size(); ++i) count += std::isnan(t.data()[i]) ? 1 : 0;
    return count;
}

// Plain loops over the contiguous data: xtensor's iterators cost code size for nothing here.
void round_all_to_half(tensor& t) {
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = round_to_half(t.data()[i]);
}

// Smallest |mistaken row| / |correct row| of the outputs, over rows whose correct output is not 0.
double smallest_output_ratio(const tensor& mistaken, const tensor& correct) {
    const std::size_t m = correct.shape()[0], d_v = correct.shape()[1];
    double smallest = 1;
    for (std::size_t i = 0; i < m; ++i) {
        double a = 0, b = 0;
        for (std::size_t c = 0; c < d_v; ++c) {
            a += double(at(mistaken, i, c)) * at(mistaken, i, c);
            b += double(at(correct, i, c)) * at(correct, i, c);
        }
        if (b > 0) smallest = std::min(smallest, std::sqrt(a / b));
    }
    return smallest;
}

// Attention as a float16 kernel runs it: inputs and every stored value rounded to half
// precision, products summed in float32 (as GPU half kernels accumulate). Keys the
// float32 result hides get `fill` (itself rounded to half). With `zero_fully_masked`, a row
// whose keys are all hidden gets weights 0, as this engine does.
weights_and_output half_attention(const tensor& q, const tensor& k, const tensor& v, float scale,
                                  const attention_result& mask_from, float fill, bool zero_fully_masked,
                                  const std::string& fn) {
    const struct { const tensor* t; const char* name; } inputs[] = {{&q, "Q"}, {&k, "K"}, {&v, "V"}};
    for (const auto& in : inputs) {
        for (std::size_t i = 0; i < in.t->size(); ++i) {
            if (std::abs(in.t->data()[i]) > half_max) {
                fail(error_text(fn) << ": " << in.name << index_at{shape_of(*in.t), i} << " = "
                    << in.t->data()[i]
                    << " does not fit float16 (largest finite 65504); expected smaller values for 'fp16-mask-fill'");
            }
        }
    }
    auto half_copy = [](const tensor& t) {
        tensor h = t;
        round_all_to_half(h);
        return h;
    };
    const tensor qh = half_copy(q), kh = half_copy(k), vh = half_copy(v);
    const std::size_t m = q.shape()[0], n = k.shape()[0], d_k = q.shape()[1];
    std::vector<float> key_t(d_k * n), scores(m * n);
    kernels::transpose(kh.data(), key_t.data(), n, d_k);
    kernels::matmul(qh.data(), key_t.data(), scores.data(), m, d_k, n);
    const float s = round_to_half(scale), f = round_to_half(fill);
    weights_and_output r{empty({m, n}), tensor()};
    std::vector<float> row(n);
    for (std::size_t i = 0; i < m; ++i) {
        bool all_hidden = true;
        for (std::size_t j = 0; j < n; ++j) {
            const float x = round_to_half(round_to_half(scores[i * n + j]) * s);
            if (!std::isfinite(x)) {
                fail(error_text(fn) << ": the float16 score [" << i << ", " << j
                    << "] overflows (largest finite 65504); expected smaller Q or K for 'fp16-mask-fill'");
            }
            const bool masked = hidden(mask_from, i, j);
            all_hidden = all_hidden && masked;
            row[j] = masked ? f : x;
        }
        float mx = row[0];
        for (std::size_t j = 1; j < n; ++j) mx = std::max(mx, row[j]);
        // -inf - (-inf) is NaN: the mistake's NaN starts here, on a row with every key hidden.
        float sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
            row[j] = round_to_half(std::exp(round_to_half(row[j] - mx)));
            sum += row[j];
        }
        sum = round_to_half(sum);
        for (std::size_t j = 0; j < n; ++j) {
            at(r.weights, i, j) = zero_fully_masked && all_hidden ? 0.0f : round_to_half(row[j] / sum);
        }
    }
    r.output = empty({m, v.shape()[1]});
    kernels::matmul(r.weights.data(), vh.data(), r.output.data(), m, n, v.shape()[1]);
    round_all_to_half(r.output);
    return r;
}

// Out of line: a braced list of figures builds and destroys a temporary of each at every site.
void add_figure(mistake_result& r, const char* label, std::optional<double> value, double correct_value) {
    r.figures.push_back(mistake_figure{label, value, correct_value});
}

attention_options with_masks(const mask_options& masks) {
    attention_options o;
    static_cast<mask_options&>(o) = masks;
    return o;
}

}  // namespace

const std::vector<mistake_info>& mistake_catalog() { return catalog; }

float round_to_half(float x) {
    if (!std::isfinite(x) || x == 0) return x;
    const double a = std::abs(static_cast<double>(x));
    int e = 0;
    std::frexp(a, &e);  // a = f 2^e with f in [0.5, 1): its binade is 2^(e - 1)
    // 10 fraction bits; subnormals (below 2^-14) share the spacing 2^-24.
    const double step = std::ldexp(1.0, std::max(e - 1, -14) - 10);
    const double r = std::nearbyint(a / step) * step;  // the default rounding: ties to even
    const double out = r > half_max ? std::numeric_limits<double>::infinity() : r;
    return static_cast<float>(x < 0 ? -out : out);
}

mistake_result run_mistake(const std::string& name, const tensor& q, const tensor& k, const tensor& v,
                           const mask_options& masks, const std::string& fn) {
    const auto known = std::find_if(catalog.begin(), catalog.end(), [&](const mistake_info& m) { return name == m.name; });
    if (known == catalog.end()) {
        std::string names;
        for (const auto& m : catalog) names += std::string(names.empty() ? "" : ", ") + m.name;
        fail(error_text(fn) << ": name = \"" << given{name} << "\" is not a known mistake; expected one of "
            << names);
    }
    // The masking mistakes' figures are about rows, which a batch only adds more of; the
    // others' figures are one head's.
    const bool masking = name == "no-causal-mask" || name == "no-padding-mask";
    if (!masking) {
        require_matrix(q, "Q", "[m, d_k]", fn);
        require_matrix(k, "K", "[n, d_k]", fn);
        require_matrix(v, "V", "[n, d_v]", fn);
    }
    attention_options opts = with_masks(masks);
    if (name == "no-causal-mask") opts.causal = true;
    if (name == "no-padding-mask" && !opts.valid_lens) {
        fail(error_text(fn)
            << ": 'no-padding-mask' needs validLens (the padding the mistake forgets); expected spec.validLens");
    }
    const attention_result correct = attention(q, k, v, opts, fn);
    // Q [...lead, m, d_k], K [...lead, n, d_k]: attention() has checked the ranks and leading axes.
    const shape_t lead(q.shape().begin(), q.shape().end() - 2);
    const std::size_t m = q.shape()[lead.size()], n = k.shape()[lead.size()], d_k = q.shape().back();

    mistake_result r;
    r.name = name;
    r.correct = {correct.weights, correct.output};
    if (name == "softmax-wrong-axis") {
        // Column softmax of the same masked scores: transpose, softmax each row, transpose back.
        std::vector<float> cols(m * n);
        kernels::transpose(correct.masked.data(), cols.data(), m, n);
        for (std::size_t j = 0; j < n; ++j) kernels::softmax_row(cols.data() + j * m, cols.data() + j * m, m);
        r.mistaken.weights = empty({m, n});
        kernels::transpose(cols.data(), r.mistaken.weights.data(), n, m);
        r.mistaken.output = times_values(r.mistaken.weights, v, fn);
        add_figure(r, "largest |row sum - 1|", row_sum_error(r.mistaken.weights, correct), row_sum_error(correct.weights, correct));
        add_figure(r, "largest |column sum - 1|", column_sum_error(r.mistaken.weights, correct),
                   column_sum_error(correct.weights, correct));
    } else if (name == "mask-after-softmax") {
        const attention_result unmasked = attention(q, k, v, attention_options(), fn);
        r.mistaken.weights = unmasked.weights;
        for (std::size_t i = 0; i < m; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                if (hidden(correct, i, j)) at(r.mistaken.weights, i, j) = 0.0f;
            }
        }
        r.mistaken.output = times_values(r.mistaken.weights, v, fn);
        add_figure(r, "largest |row sum - 1|", row_sum_error(r.mistaken.weights, correct), row_sum_error(correct.weights, correct));
        add_figure(r, "smallest output length, mistaken / correct", smallest_output_ratio(r.mistaken.output, correct.output), 1.0);
    } else if (name == "no-scaling" || name == "scale-by-dk") {
        attention_options wrong = opts;
        wrong.rule = name == "no-scaling" ? scaling::none : scaling::inv_dk;
        const attention_result w = attention(q, k, v, wrong, fn);
        r.mistaken = {w.weights, w.output};
        const auto bad = saturation(w.weights, correct), good = saturation(correct.weights, correct);
        add_figure(r, "mean largest weight in a row", bad.first, good.first);
        add_figure(r, "mean row entropy (nats)", bad.second, good.second);
    } else if (name == "fp16-mask-fill") {
        r.correct = half_attention(q, k, v, correct.scale, correct, -float(half_max), true, fn);
        r.mistaken = half_attention(q, k, v, correct.scale, correct, -1e9f, false, fn);
        add_figure(r, "NaN weights", double(nan_count(r.mistaken.weights)), double(nan_count(r.correct.weights)));
        add_figure(r, "NaN outputs", double(nan_count(r.mistaken.output)), double(nan_count(r.correct.output)));
    } else if (name == "keys-not-transposed") {
        if (n != d_k) {
            r.error = (error_text("Q K: Q is ") << shape_t{m, d_k} << " and K is " << shape_t{n, d_k}
                       << "; a matrix product needs Q's " << d_k << " columns to match K's " << n << " rows").str();
            add_figure(r, "largest |weight difference|", std::nullopt, 0.0);
            r.cells = zeros({m, n});
            return r;
        }
        // Q K = Q (K^T)^T: attention over the transposed keys computes exactly the mistake.
        tensor key_t = empty({d_k, n});
        kernels::transpose(k.data(), key_t.data(), n, d_k);
        const attention_result w = attention(q, key_t, v, opts, fn);
        r.mistaken = {w.weights, w.output};
    } else if (masking) {
        attention_options wrong = opts;
        if (name == "no-causal-mask") wrong.causal = false;
        else wrong.valid_lens.reset();
        const attention_result w = attention(q, k, v, wrong, fn);
        r.mistaken = {w.weights, w.output};
        // The padding symptom is about real tokens: a pad query's own weights are never used.
        const std::vector<char> counted = name == "no-causal-mask" ? std::vector<char>(correct.weights.size() / n, true)
                                                                   : real_query_rows(opts, lead, m, n, fn);
        const leak leaked = leaked_weight(correct, w, counted);
        add_figure(r, name == "no-causal-mask" ? "largest weight on future tokens (one row's total)"
                                               : "largest weight a real token puts on pad tokens (one row's total)",
                   leaked.value, leaked_weight(correct, correct, counted).value);
        if (leaked.row) r.figures.back().row = detail::row_index(lead, *leaked.row / m, *leaked.row % m);
    }
    auto minus = [](const tensor& a, const tensor& b) {
        tensor d = a;
        for (std::size_t i = 0; i < d.size(); ++i) d.data()[i] -= b.data()[i];
        return d;
    };
    r.difference = {minus(r.mistaken.weights, r.correct.weights), minus(r.mistaken.output, r.correct.output)};
    double largest = 0;
    r.cells = zeros(shape_of(r.difference.weights));
    for (std::size_t i = 0; i < r.cells.size(); ++i) {
        const float d = r.difference.weights.data()[i];
        largest = std::max(largest, double(std::abs(d)));
        r.cells.data()[i] = std::isnan(d) || std::abs(d) > cell_tolerance ? 1.0f : 0.0f;
    }
    if (name == "keys-not-transposed") add_figure(r, "largest |weight difference|", largest, 0.0);
    return r;
}

}  // namespace attnlab
