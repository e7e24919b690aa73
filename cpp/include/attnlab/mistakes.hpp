#pragma once
/// @file mistakes.hpp
/// @brief Classic implementation mistakes in attention, each computed next to the correct
/// result so a view can show both, their difference and the figure a practitioner would notice.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/mask.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief A mistake's name (as the API takes it), title, the symptom a practitioner sees,
/// and the one-line fix.
struct mistake_info {
    const char* name;
    const char* title;
    const char* symptom;
    const char* fix;
};

/// @brief Every mistake, in teaching order.
const std::vector<mistake_info>& mistake_catalog();

/// @brief A number that shows the mistake, for the mistaken and the correct computation.
/// `value` is empty when the mistaken computation failed loudly (no number to show).
struct mistake_figure {
    std::string label;
    std::optional<double> value;
    double correct_value = 0;
    /// For a figure that is one query row's (the leaked weight of no-causal-mask and
    /// no-padding-mask): that row of the mistaken computation, as its index [...batch, i];
    /// the first such row on a tie. Empty when no row leaks anything (value 0) or the figure
    /// is not one row's.
    std::optional<shape_t> row;
};

/// @brief Weights [m, n] and output [m, d_v] of one computation.
struct weights_and_output {
    tensor weights;
    tensor output;
};

/// @brief One mistake beside the correct computation, for 2-D Q [m, d_k], K [n, d_k], V [n, d_v]
/// (no-causal-mask and no-padding-mask also take leading batch axes, as attention() does; their
/// tensors then have them too).
struct mistake_result {
    std::string name;
    weights_and_output correct;     ///< always finite
    weights_and_output mistaken;    ///< empty when `error` is set; may hold NaN (fp16-mask-fill)
    std::string error;              ///< the mistake's own failure (keys-not-transposed, n != d_k)
    weights_and_output difference;  ///< mistaken - correct; empty when `error` is set
    tensor cells;                   ///< [..., m, n]: 1 where the weights differ by more than 1e-6 (or NaN)
    std::vector<mistake_figure> figures;  ///< figures[0] is the headline
};

/// @brief Runs mistake `name` and the correct attention on the same inputs.
/// @param q queries [m, d_k], @param k keys [n, d_k], @param v values [n, d_v]; with leading
/// batch axes [..., m, d_k] etc. for no-causal-mask and no-padding-mask
/// @param masks the masks the correct computation uses (no-causal-mask always uses causal;
/// no-padding-mask needs valid lengths)
/// @param fn the public function named in errors
/// @throws argument_error for an unknown name, bad inputs (as attention() would), batch axes
/// for a mistake that shows one head, a
/// no-padding-mask without valid lengths, or fp16-mask-fill inputs float16 cannot hold
mistake_result run_mistake(const std::string& name, const tensor& q, const tensor& k, const tensor& v,
                           const mask_options& masks, const std::string& fn = "mistake");

/// @brief `x` rounded to the nearest float16 value (ties to even), returned as a float:
/// beyond 65504 by half a step it becomes +/-infinity, below 2^-25 it becomes 0.
float round_to_half(float x);

}  // namespace attnlab
