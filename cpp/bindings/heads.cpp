// embind layer for attention patterns made elsewhere: converts the spec, calls
// find_pattern_problem and score_patterns, converts back.

#include "heads.hpp"

#include <cstdint>
#include <vector>

#include <emscripten/bind.h>

#include "attnlab/patterns.hpp"
#include "convert.hpp"

namespace attnlab::bindings {

namespace {

const char* fault_name(pattern_fault f) {
    switch (f) {
        case pattern_fault::not_finite: return "not-finite";
        case pattern_fault::negative: return "negative";
        case pattern_fault::future_weight: return "future-weight";
        case pattern_fault::row_sum: return "row-sum";
    }
    return "";
}

val score(const std::optional<double>& x) { return x ? val(*x) : val::null(); }

// spec: { attentions: { shape: [count, m, n], data }, self, causal, decimals?,
// tokens?: { shape: [n], data: token ids }, special?: { shape: [n], data: 0/1 flags } }, built by web/src/api/heads.js. Returns
// { problem: null | { fault, pattern, row, column, value, tolerance }, heads: [scores] };
// the heads are scored only when there is no problem.
val head_summary_js(const val& spec) {
    const char* fn = "headSummary";
    return guarded(fn, [&] {
        const tensor w = to_tensor(spec["attentions"], fn, "attentions");
        pattern_rule rule;
        rule.causal = spec["causal"].as<bool>();
        if (!spec["decimals"].isUndefined()) rule.decimals = spec["decimals"].as<double>();
        val out = val::object();
        const auto problem = find_pattern_problem(w, rule, fn);
        if (problem) {
            val p = val::object();
            p.set("fault", std::string(fault_name(problem->fault)));
            p.set("pattern", static_cast<double>(problem->pattern));
            p.set("row", static_cast<double>(problem->row));
            p.set("column", static_cast<double>(problem->column));
            p.set("value", problem->value);
            p.set("tolerance", problem->tolerance);
            out.set("problem", p);
            out.set("heads", val::array());
            return out;
        }
        pattern_keys keys;
        if (!spec["tokens"].isUndefined()) {
            const tensor t = to_tensor(spec["tokens"], fn, "tokens");
            keys.tokens.assign(t.data(), t.data() + t.size());
        }
        if (!spec["special"].isUndefined()) {
            const tensor t = to_tensor(spec["special"], fn, "special");
            keys.special.assign(t.data(), t.data() + t.size());
        }
        const auto scores = score_patterns(w, rule, spec["self"].as<bool>(), keys, fn);
        val heads = val::array();
        for (std::size_t k = 0; k < scores.size(); ++k) {
            val h = val::object();
            h.set("entropy", score(scores[k].entropy));
            h.set("previousToken", score(scores[k].previous_token));
            h.set("firstToken", score(scores[k].first_token));
            h.set("diagonal", score(scores[k].diagonal));
            h.set("prefixMatching", score(scores[k].prefix_matching));
            h.set("prefixMatchingApart", score(scores[k].prefix_matching_apart));
            h.set("nextToken", score(scores[k].next_token));
            h.set("specialTokens", score(scores[k].special_tokens));
            heads.set(k, h);
        }
        out.set("problem", val::null());
        out.set("heads", heads);
        return out;
    });
}

}  // namespace

void register_heads() { emscripten::function("headSummary", &head_summary_js); }

}  // namespace attnlab::bindings
