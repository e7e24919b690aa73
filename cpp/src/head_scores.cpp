#include "attnlab/head_scores.hpp"

#include <cmath>

namespace attnlab {

namespace {

// -sum p log p over one row, and whether the row counts: a fully masked row (all 0) does not;
// a row that is not finite does, with a NaN entropy, so NaN weights give NaN scores, never
// the scores of fewer rows (or none, which a caller might read as 0).
bool row_entropy(const float* row, std::size_t n, double& entropy) {
    double h = 0, total = 0;
    for (std::size_t j = 0; j < n; ++j) {
        const double p = row[j];
        total += p;
        if (p > 0) h -= p * std::log(p);
    }
    entropy = total == total ? h : total;
    return total != 0;
}

std::optional<double> mean(double sum, std::size_t count) {
    if (count == 0) return std::nullopt;
    return sum / static_cast<double>(count);
}

}  // namespace

void head_score_sums::add_self(const float* p, std::size_t n, const std::int32_t* tokens, const std::int32_t* special_keys) {
    bool any_special = false;
    for (std::size_t j = 1; special_keys && j < n; ++j) any_special = any_special || special_keys[j] != 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float* row = p + i * n;
        double h = 0;
        if (!row_entropy(row, n, h)) continue;
        entropy += h;
        ++rows;
        if (i + 1 < n) {
            next += row[i + 1];
            ++next_rows;
        }
        if (i == 0) continue;
        if (any_special) {
            double on_special = 0;
            for (std::size_t j = 1; j < n; ++j) {
                if (special_keys[j]) on_special += row[j];
            }
            special += on_special;
            ++special_rows;
        }
        previous += row[i - 1];
        first += row[0];
        diagonal += row[i];
        ++later_rows;
        if (!tokens) continue;
        // keys j <= i just after an earlier occurrence of this row's token
        double weight = 0, apart = 0;
        bool seen = false, seen_apart = false;
        for (std::size_t j = 1; j <= i; ++j) {
            if (tokens[j - 1] == tokens[i]) {
                weight += row[j];
                seen = true;
                if (j + 2 <= i) {
                    apart += row[j];
                    seen_apart = true;
                }
            }
        }
        if (seen) {
            prefix += weight;
            ++prefix_rows;
        }
        if (seen_apart) {
            prefix_apart += apart;
            ++prefix_apart_rows;
        }
    }
}

void head_score_sums::add_cross(const float* p, std::size_t m, std::size_t n) {
    for (std::size_t i = 0; i < m; ++i) {
        double h = 0;
        if (!row_entropy(p + i * n, n, h)) continue;
        entropy += h;
        ++rows;
    }
}

head_scores scores_of(const head_score_sums& s) {
    head_scores r;
    r.entropy = mean(s.entropy, s.rows);
    r.previous_token = mean(s.previous, s.later_rows);
    r.first_token = mean(s.first, s.later_rows);
    r.diagonal = mean(s.diagonal, s.later_rows);
    r.prefix_matching = mean(s.prefix, s.prefix_rows);
    r.prefix_matching_apart = mean(s.prefix_apart, s.prefix_apart_rows);
    r.next_token = mean(s.next, s.next_rows);
    r.special_tokens = mean(s.special, s.special_rows);
    return r;
}

}  // namespace attnlab
