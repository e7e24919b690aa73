#pragma once
/// @file circuits.hpp
/// @brief How a trained transformer's heads compose, and which copy, read from the weights
/// alone (Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits").
///
/// The engine's convention is rows: x [n, d_model], q = x W_Q, out = softmax(...) (x W_V) W_O.
/// For head h, with W_Q^h, W_K^h, W_V^h its d_head columns of the layer's qkv and W_O^h its
/// d_head rows of the layer's out:
///   W_QK^h = W_Q^h W_K^hT  (d x d: the score of query x_i on key x_j is x_i W_QK x_j^T / sqrt(d_head))
///   W_OV^h = W_V^h W_O^h   (d x d: what the head writes for a key row x_j is x_j W_OV)
/// For an earlier head h1 and a later head h2 (a higher layer), with ||.|| the Frobenius norm:
///   Q-composition  ||W_OV^h1 W_QK^h2  || / (||W_OV^h1|| ||W_QK^h2||)
///   K-composition  ||W_OV^h1 W_QK^h2^T|| / (||W_OV^h1|| ||W_QK^h2||)
///   V-composition  ||W_OV^h1 W_OV^h2  || / (||W_OV^h1|| ||W_OV^h2||)
/// These are Elhage et al.'s ||W_QK^T W_OV||, ||W_QK W_OV|| and ||W_OV^h2 W_OV^h1|| in their
/// column convention (their W_OV is our W_OV^T; a matrix and its transpose have one norm).
/// The scores read the raw weights: layer norm, if the model has it, is not folded in, and no
/// baseline for random matrices is subtracted.
///
/// Copying: the OV circuit W_E W_OV^h W_U (vocab x vocab; row t: how attending to token t moves
/// every logit). Elhage et al. summarise its eigenvalues lambda by sum(lambda) / sum(|lambda|),
/// from -1 to 1: near 1 when attending to a token raises that same token's logit. Its nonzero
/// eigenvalues are those of the d_head x d_head matrix W_O^h W_U W_E W_V^h, which is what is
/// solved here.

#include <complex>
#include <cstddef>
#include <string>
#include <vector>

#include "attnlab/transformer.hpp"

namespace attnlab {

/// @brief One earlier head's composition with one later head.
struct head_composition {
    std::size_t from_layer = 0, from_head = 0, to_layer = 0, to_head = 0;
    double q = 0, k = 0, v = 0;  ///< NaN when a norm in the denominator is 0
};

/// @brief One head's OV circuit.
struct head_copying {
    std::size_t layer = 0, head = 0;
    double score = 0;  ///< sum(lambda) / sum(|lambda|); NaN when every eigenvalue is 0
    std::vector<std::complex<double>> eigenvalues;  ///< of W_O^h W_U W_E W_V^h: d_head of them
};

struct circuit_scores {
    /// every pair of heads in different layers, earlier first: by earlier head, then later head
    std::vector<head_composition> composition;
    /// every head, layer by layer
    std::vector<head_copying> copying;
};

/// Most multiply-adds circuits() takes on: about 3 s of CPU in the wasm build on the machine
/// this was written on (0.35 G a second).
inline constexpr double max_circuit_work = 1e9;

/// @brief The multiply-adds circuits() needs for a model of this shape (counted in double).
double circuit_work(const transformer_config& c);

/// @brief The composition and copying scores of a model's weights, in double.
/// @throws argument_error naming `fn` when circuit_work() is over max_circuit_work
circuit_scores circuits(const transformer& m, const std::string& fn);

/// @brief The eigenvalues of the real n x n matrix a (row-major), in no particular order:
/// reduction to Hessenberg form, then shifted QR. Entries NaN if the iteration does not
/// settle (it does for every matrix tried).
std::vector<std::complex<double>> eigenvalues(std::vector<double> a, std::size_t n);

}  // namespace attnlab
