#pragma once
/// @file positions.hpp
/// @brief How attention learns word order: sinusoidal tables, rotary embeddings (RoPE) and
/// ALiBi's linear biases.
///
/// Frequencies: theta_i = base^(-2i/d) for i = 0, 1, ..., shared by the sinusoidal table
/// (Vaswani et al. 2017, section 3.5: PE(p, 2i) = sin(p theta_i), PE(p, 2i+1) = cos(p theta_i))
/// and RoPE (Su et al. 2021: each pair of dimensions of q and k turned by the angle p theta_i).
/// Pairs of RoPE, by layout:
///   interleaved: dimensions (2i, 2i+1), as in the RoFormer paper and GPT-J;
///   half:        dimensions (i, i + d/2), as in GPT-NeoX and Llama's Hugging Face code.
/// The same maths up to a permutation of the dimensions, and different numbers for the same
/// weights. ALiBi (Press, Smith and Lewis 2022) adds -m_h |i - j| to head h's scaled score of
/// query position i on key position j; the slopes m_h are the paper's (alibi_slopes).
///
/// Angles are taken in double and their sines and cosines rounded once to float32, so a
/// rotation at position 10^6 is as exact as at position 3.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/tensor.hpp"

namespace attnlab {

/// @brief Which dimensions RoPE turns together.
enum class rope_layout {
    interleaved,  ///< pairs (2i, 2i + 1)
    half,         ///< pairs (i, i + d/2)
};

/// @brief The base of the frequencies when none is given (the papers' 10000).
inline constexpr double default_position_base = 10000.0;
/// @brief Positions are whole numbers from 0 to max_position - 1 (2^24: float32 still tells
/// neighbouring positions apart, and an angle's double keeps 29 bits after the point).
inline constexpr double max_position = 16777216.0;
/// @brief ALiBi's slopes are given for 1 to max_alibi_heads heads.
inline constexpr std::size_t max_alibi_heads = 1024;

/// @brief RoPE as an option of attention and of the KV cache.
struct rope_options {
    rope_layout layout = rope_layout::interleaved;
    double base = default_position_base;  ///< finite and > 0
    /// The position of the first key (a whole number >= 0): keys sit at offset, offset + 1, ...
    double offset = 0;
};

/// @brief The position schemes attention takes: RoPE on Q and K, ALiBi's biases, both or neither.
struct position_options {
    std::optional<rope_options> rope;
    bool alibi = false;
    bool any() const { return rope.has_value() || alibi; }
};

/// @brief How a trained model knows where each token is (the trainer's `positions`).
enum class position_kind {
    learned,     ///< a trained vector per position, added to the token embedding (GPT-2)
    sinusoidal,  ///< the fixed sinusoidal table, added to the token embedding
    rope,        ///< q and k of every head turned by RoPE (interleaved pairs, base 10000)
    alibi,       ///< ALiBi's bias on every head's scores, with the paper's slopes
    none,        ///< nothing: only the causal mask tells positions apart
};

/// @brief The name the API gives a kind: "learned", "sinusoidal", "rope", "alibi" or "none".
const char* position_kind_name(position_kind kind);

/// @brief The name the API gives a layout: "interleaved" or "half".
const char* rope_layout_name(rope_layout layout);

/// @brief Refuses a base that is not a finite number > 0, naming `fn` and `name`.
void require_position_base(double base, const std::string& fn, const char* name = "base");

/// @brief Refuses positions first, ..., first + count - 1 unless first is a whole number >= 0
/// and the last is below max_position, naming `fn` and `name` (the offset's).
void require_positions(double first, double count, const std::string& fn, const char* name = "offset");

/// @brief ALiBi's slopes for `heads` heads (Press et al. 2022, and their code for counts that
/// are not powers of two): for a power of two h, 2^(-8k/h) for k = 1..h; otherwise the slopes
/// of the power of two p just below h, then every other slope of 2p, until there are h; each
/// taken in double and rounded once to float32 (exact for the powers of two).
/// @throws argument_error naming `fn` and `name` for heads outside 1..max_alibi_heads
std::vector<float> alibi_slopes(std::size_t heads, const std::string& fn = "positions", const char* name = "heads");

/// @brief The sinusoidal table [n, d]: PE(p, 2i) = sin(p theta_i), PE(p, 2i+1) = cos(p theta_i),
/// positions 0..n-1 (an odd d ends with a sine).
/// @throws argument_error naming `fn` for sizes of 0, over the float limit, positions past
/// max_position, or a bad base
tensor sinusoidal_table(std::size_t n, std::size_t d, double base, const std::string& fn = "positions");

/// @brief RoPE's angles [n, d/2]: (offset + p) theta_i, in radians, for pair i of position offset + p.
/// @throws argument_error naming `fn` for an odd d (RoPE turns pairs), sizes of 0 or over the
/// float limit, positions past max_position, or a bad base
tensor rope_angles(std::size_t n, std::size_t d, double base, double offset, const std::string& fn = "positions");

/// @brief x [..., n, d] with row p of each matrix turned by RoPE to position opts.offset + p
/// (what attention does to Q and K before their scores; exposed so a lesson can show the turned
/// vectors, or turn a query and a key with different layouts, the classic porting bug).
/// @throws argument_error naming `fn` for a tensor of fewer than 2 axes, an odd d, a bad base,
/// or positions past max_position
tensor rope_rotate(const tensor& x, const rope_options& opts, const std::string& fn = "rope");

/// @brief The cosines and sines RoPE turns rows by, for `count` consecutive positions from
/// `first`: made once, applied to Q, K (and their gradients) in place.
class rope_table {
public:
    rope_table() = default;
    /// Unchecked: callers check d (even), base and the positions first.
    rope_table(double first, std::size_t count, std::size_t d, double base, rope_layout layout);

    /// @brief Turns rows x[rows, d] in place, row r by the angles of position first + row0 + r;
    /// `inverse` turns them back (the transpose: how a gradient goes through the rotation).
    void rotate(float* x, std::size_t rows, std::size_t row0, bool inverse = false) const;

    std::size_t d() const { return d_; }

private:
    std::size_t d_ = 0;
    rope_layout layout_ = rope_layout::interleaved;
    std::vector<float> cos_, sin_;  // [count, d/2]
};

/// @brief ALiBi's bias on the scaled scores: scaled[i, j] -= slope |position(i) - position(j)|
/// for the rows [rows, n] of queries at positions q0, q0 + 1, ... over keys 0..n-1.
void add_alibi(float* scaled, std::size_t rows, std::size_t n, double q0, float slope);

}  // namespace attnlab
