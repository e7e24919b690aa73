#include "attnlab/patterns.hpp"

#include <cmath>

#include "attnlab/errors.hpp"
#include "attnlab/mask.hpp"

namespace attnlab {

namespace {

// [count, m, n] of `patterns`, after checking its rank and that nothing is empty.
shape_t pattern_shape(const tensor& patterns, const char* fn) {
    const shape_t shape = shape_of(patterns);
    if (shape.size() != 3 || patterns.size() == 0) {
        fail(error_text(fn) << ": attentions has shape " << shape << "; expected [patterns, queries, keys] with no zero extent");
    }
    return shape;
}

}  // namespace

double row_sum_tolerance(std::size_t n, std::optional<double> decimals) {
    double tolerance = 1e-3;
    if (!decimals) return tolerance;
    double unit = 1;  // 10^-decimals, without pulling pow into the wasm
    for (double d = 0; d < *decimals; ++d) unit /= 10;
    return tolerance + 0.5 * unit * static_cast<double>(n);
}

std::optional<pattern_problem> find_pattern_problem(const tensor& patterns, const pattern_rule& rule, const char* fn) {
    const shape_t shape = pattern_shape(patterns, fn);
    const std::size_t count = shape[0], m = shape[1], n = shape[2];
    if (rule.decimals) require_whole(*rule.decimals, 0, 8, fn, "decimals");
    mask_options causal;
    causal.causal = rule.causal;
    // The keys a causal row may see are the engine's causal mask's (one rule for both).
    const row_masks masks(causal, {}, m, n, fn);
    const double tolerance = row_sum_tolerance(n, rule.decimals);
    pattern_problem found;
    for (std::size_t k = 0; k < count; ++k) {
        for (std::size_t i = 0; i < m; ++i) {
            const float* row = patterns.data() + (k * m + i) * n;
            const std::size_t seen = masks.limit(0, i);
            double sum = 0;
            for (std::size_t j = 0; j < n; ++j) {
                const double w = row[j];
                if (!std::isfinite(w)) found.fault = pattern_fault::not_finite;
                else if (w < 0) found.fault = pattern_fault::negative;
                else if (j >= seen && w > causal_leak_tolerance) found.fault = pattern_fault::future_weight;
                else {
                    sum += w;
                    continue;
                }
                found.pattern = k;
                found.row = i;
                found.column = j;
                found.value = w;
                found.tolerance = found.fault == pattern_fault::future_weight ? causal_leak_tolerance : 0;
                return found;
            }
            // sum: in double, so a long row of float weights adds up without drift
            if (sum != 0 && std::fabs(sum - 1) > tolerance) {
                found.fault = pattern_fault::row_sum;
                found.pattern = k;
                found.row = i;
                found.value = sum;
                found.tolerance = tolerance;
                return found;
            }
        }
    }
    return std::nullopt;
}

std::vector<head_scores> score_patterns(const tensor& patterns, const pattern_rule& rule, bool self, const pattern_keys& keys,
                                        const char* fn) {
    const shape_t shape = pattern_shape(patterns, fn);
    const std::size_t count = shape[0], m = shape[1], n = shape[2];
    if (self && m != n) {
        fail(error_text(fn) << ": self-attention patterns are square; got " << m << " queries and " << n << " keys");
    }
    const auto sized = [n](const std::vector<std::int32_t>& v) { return v.empty() || v.size() == n; };
    if (!sized(keys.tokens) || !sized(keys.special)) {
        fail(error_text(fn) << ": tokens has " << keys.tokens.size() << " ids and special " << keys.special.size() << " flags but the patterns have " << n
                            << " keys; expected one per key (or none)");
    }
    std::vector<head_scores> out;
    out.reserve(count);
    for (std::size_t k = 0; k < count; ++k) {
        const float* p = patterns.data() + k * m * n;
        head_score_sums sums;
        if (self) sums.add_self(p, n, keys.tokens.empty() ? nullptr : keys.tokens.data(), keys.special.empty() ? nullptr : keys.special.data());
        else sums.add_cross(p, m, n);
        head_scores s = scores_of(sums);
        // What a causal mask decides: the next token is hidden (its weight is 0 by the mask, not
        // by the head), and without one prefix matching no longer tests for induction.
        if (rule.causal) s.next_token.reset();
        else {
            s.prefix_matching.reset();
            s.prefix_matching_apart.reset();
        }
        out.push_back(s);
    }
    return out;
}

}  // namespace attnlab
