#pragma once
/// @file attention.hpp
/// @brief Scaled dot-product attention with every intermediate stage kept by name.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/mask.hpp"
#include "attnlab/positions.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief How the scores are scaled when no explicit scale is given.
enum class scaling {
    inv_sqrt_dk,  ///< 1/sqrt(d_k), the transformer's choice
    none,         ///< 1: raw dot products
    inv_dk,       ///< 1/d_k: the common mistake
};

/// @brief Options for attention(): masks, scale and a memory limit.
struct attention_options : mask_options {
    /// Multiplies the scores. When set, `rule` and `temperature` are ignored. A double, so a
    /// value that float32 cannot hold (1e-60, 1e39) is refused by name rather than rounded.
    std::optional<double> scale;
    /// The scale when `scale` is not set: rule / temperature.
    scaling rule = scaling::inv_sqrt_dk;
    /// Divides the scaled scores: above 1 flattens the weights, below 1 sharpens them.
    double temperature = 1.0;
    /// Largest number of floats the results may hold together.
    std::size_t max_elements = default_max_elements;
    /// RoPE on Q and K, ALiBi's biases (positions.hpp). Key j sits at position rope.offset + j
    /// and query i at rope.offset + (n - m) + i: the last query and the last key share a
    /// position, as under `causal`. With alibi, `scaled` holds scores * scale - m_h |i - j|,
    /// with one slope m_h per head: the heads are Q's axis -3 (one head for a 2-D Q).
    position_options positions;
};

/// @brief Every stage of one attention call. Shapes for Q [..., m, d_k], V [..., n, d_v].
struct attention_result {
    tensor scores;   ///< Q K^T: [..., m, n]
    tensor scaled;   ///< scores * scale: [..., m, n]
    tensor masked;   ///< scaled, with -infinity where a mask hides the key: [..., m, n]
    tensor weights;  ///< row softmax of masked; fully masked rows are 0: [..., m, n]
    tensor output;   ///< weights V: [..., m, d_v]
    float scale = 1.0f;  ///< the scale actually used
    /// Each fully masked row as its index [...batch, i]; its weights and output are 0.
    std::vector<shape_t> fully_masked_rows;
};

/// @brief Scaled dot-product attention: softmax(mask(Q K^T * scale)) V.
/// @param q queries [..., m, d_k]
/// @param k keys [..., n, d_k] with the same leading axes as q
/// @param v values [..., n, d_v] with the same leading axes as q
/// @param opts masks, scale (default 1/sqrt(d_k)) and memory limit
/// @param fn the public function named at the start of every error message
/// @return every stage by name; all finite
/// @throws argument_error naming the argument for bad ranks, shapes, values or sizes, a scale
/// outside float32, and scores or outputs that overflow float32
attention_result attention(const tensor& q, const tensor& k, const tensor& v,
                           const attention_options& opts = {}, const std::string& fn = "attention");

/// @brief The scale attention() uses for these options and d_k: `scale` if set, else the
/// rule divided by the temperature; the one place that refuses a scale float32 cannot hold.
/// @throws argument_error naming `fn` and scale or temperature
float attention_scale(const attention_options& opts, std::size_t d_k, const std::string& fn);

/// @brief Fixed-shape attention whose inputs and results stay allocated between runs.
///
/// For code that recomputes every frame: fill q(), k(), v() in place, call run(), read the
/// stages from result(). Nothing is allocated after construction.
class attention_workspace {
public:
    /// @param lead leading batch/head axes, @param m queries, @param n keys,
    /// @param d_k query/key width, @param d_v value width, @param opts masks and scale,
    /// @param fn the function named in construction errors
    /// @throws argument_error for zero sizes, bad masks or sizes over opts.max_elements
    attention_workspace(const shape_t& lead, std::size_t m, std::size_t n, std::size_t d_k,
                        std::size_t d_v, const attention_options& opts = {},
                        const std::string& fn = "attention");

    tensor& q() { return q_; }
    tensor& k() { return k_; }
    tensor& v() { return v_; }

    /// @brief Computes every stage from the current inputs.
    /// @throws argument_error if an input holds NaN or infinity, or the scores overflow
    const attention_result& run();

    const attention_result& result() const { return result_; }

private:
    shape_t lead_;
    std::size_t m_, n_, d_k_, d_v_;
    tensor q_, k_, v_;
    row_masks masks_;
    attention_result result_;
    std::vector<float> packed_;  // scratch: one head's K, then V, packed for the matmul kernel
};

namespace detail {

/// @brief The sizes of one call's Q [...lead, m, d_k], K [...lead, n, d_k], V [...lead, n, d_v].
struct qkv_shapes {
    shape_t lead;
    std::size_t m = 0, n = 0, d_k = 0, d_v = 0;
};

/// @brief Checks ranks, leading axes, widths, emptiness and finiteness of Q, K, V with
/// attention()'s rules and messages (attention_setup.cpp); tiled attention asks the same.
qkv_shapes check_qkv(const tensor& q, const tensor& k, const tensor& v, const std::string& fn);

/// @brief Allocates every stage of r for [...lead, m, n] scores and a [...lead, m, d_v]
/// output, refusing inputs (Q, K, V of these sizes) and stages over max_elements before
/// touching memory: attention() and attention_workspace accept the same calls.
void allocate_stages(attention_result& r, const qkv_shapes& s, std::size_t max_elements, const std::string& fn);

/// @brief The index [...batch, row] of query `row` in batch slice `batch` (slices counted in
/// row-major order over `lead`): how fully masked rows and mistake figures name a row.
shape_t row_index(const shape_t& lead, std::size_t batch, std::size_t row);

/// @brief A call's position options, checked against its shapes: RoPE's table over every
/// position the call's queries and keys sit at, and ALiBi's slope per head.
struct position_setup {
    /// @throws argument_error naming `fn` and the option: an odd d_k with rope, a bad base or
    /// offset, positions past max_position, a head count ALiBi's slopes do not cover
    position_setup(const position_options& o, const qkv_shapes& s, const std::string& fn);
    /// @brief Turns every batch slice of q [..., m, d_k] and k [..., n, d_k] to its positions.
    void rotate(tensor& q, tensor& k, const qkv_shapes& s) const;
    const float* slopes_or_null() const { return slopes.empty() ? nullptr : slopes.data(); }
    rope_table table;
    std::vector<float> slopes;
};

/// @brief Floats of scratch for one head's K and V, packed for kernels::matmul_packed.
std::size_t packed_floats(std::size_t n, std::size_t d_k, std::size_t d_v);

/// @brief The hot path (attention.cpp): every batch slice of one call, into stages that
/// allocate_stages made; `packed` is scratch. `slopes`, when not null, holds ALiBi's slope of
/// each head (the last axis of `lead`, or one head when lead is empty).
void compute(const tensor& q, const tensor& k, const tensor& v, const row_masks& masks, const shape_t& lead,
             std::size_t m, std::size_t n, std::size_t d_k, std::size_t d_v, std::vector<float>& packed,
             attention_result& r, const std::string& fn, const float* slopes = nullptr);

}  // namespace detail

}  // namespace attnlab
