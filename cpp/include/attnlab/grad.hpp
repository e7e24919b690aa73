#pragma once
/// @file grad.hpp
/// @brief The stages of a small transformer, forward and backward, on contiguous row-major
/// float memory: what the trainer (transformer.hpp) is built from.
///
/// Each backward takes what its forward kept (inputs, weights, outputs) and the gradient of
/// the loss at the forward's output, and returns the gradients at its inputs and parameters.
/// Like kernels.hpp, these do no validation (the trainer checks its configuration once) and
/// run on the engine's packed matrix kernel; `scratch` is caller-owned memory of the size the
/// matching *_scratch function gives, so a training step allocates nothing.

#include <cstddef>
#include <cstdint>

namespace attnlab::grad {

/// @brief Floats of scratch that linear() and linear_backward() need for these sizes.
std::size_t linear_scratch(std::size_t rows, std::size_t in, std::size_t out);

/// @brief y[rows, out] = x[rows, in] w[in, out] (+ b[out] when b is not null).
void linear(const float* x, const float* w, const float* b, float* y, std::size_t rows, std::size_t in,
            std::size_t out, float* scratch);

/// @brief The backward of linear(): dx[rows, in] = dy w^T (skipped when dx is null),
/// dw[in, out] = x^T dy, db[out] = the column sums of dy (skipped when db is null).
/// dw and db are overwritten, not accumulated.
void linear_backward(const float* x, const float* w, const float* dy, float* dx, float* dw, float* db,
                     std::size_t rows, std::size_t in, std::size_t out, float* scratch);

/// @brief Floats of scratch that attention_forward() and attention_backward() need.
std::size_t attention_scratch(std::size_t m, std::size_t n, std::size_t d_k, std::size_t d_v);

/// @brief One causal head, as the trainer runs it: p[n, n] = softmax of the scaled scores of
/// q[n, d] against k[n, d] with row i seeing keys j <= i (p is 0 above the diagonal);
/// o[n, d_v] = p v. A nonzero `alibi_slope` m adds ALiBi's -m (i - j) to the scaled scores
/// (a constant: the backward is the same).
void causal_attention(const float* q, const float* k, const float* v, float* p, float* o, std::size_t n,
                      std::size_t d, std::size_t d_v, float scale, float* scratch, float alibi_slope = 0.0f);

/// @brief The backward of one attention slice whose weights p[m, n] already hold its masks (a
/// masked weight is 0), with o[m, d_v] = p v and d_o the gradient at o:
///   dv = p^T d_o; dp = d_o v^T; D = rowsum(d_o o); ds = p (dp - D);
///   dq = scale ds k; dk = scale ds^T q.
/// ds [m, n] is the gradient at the softmax's input (the scaled, masked scores): each row sums
/// to 0 and a masked entry is exactly 0, as its weight is. Writes dq [m, d_k], dk [n, d_k],
/// dv [n, d_v], ds [m, n].
void attention_backward(const float* p, const float* q, const float* k, const float* v, const float* o,
                        const float* d_o, std::size_t m, std::size_t n, std::size_t d_k, std::size_t d_v,
                        float scale, float* dq, float* dk, float* dv, float* ds, float* scratch);

/// @brief Layer norm of each row of x[rows, d]: y = (x - mean) / sqrt(var + eps) * gain + bias,
/// with the population variance and eps = 1e-5. Keeps each row's mean and 1/sqrt(var + eps)
/// in stats[rows, 2] for the backward.
void layer_norm(const float* x, const float* gain, const float* bias, float* y, float* stats, std::size_t rows,
                std::size_t d);

/// @brief The backward of layer_norm(): dx (overwritten) and dgain, dbias (overwritten).
void layer_norm_backward(const float* x, const float* gain, const float* stats, const float* dy, float* dx,
                         float* dgain, float* dbias, std::size_t rows, std::size_t d);

/// @brief The nonlinearity of the MLP block.
enum class activation {
    relu,  ///< max(0, x)
    gelu,  ///< 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), GPT-2's tanh approximation
};

/// @brief y[i] = f(x[i]) for i < n.
void activate(activation f, const float* x, float* y, std::size_t n);

/// @brief dx[i] = f'(x[i]) dy[i] for i < n (x is the activation's input).
void activate_backward(activation f, const float* x, const float* dy, float* dx, std::size_t n);

/// @brief Totals of softmax_cross_entropy() over the rows it scored.
struct cross_entropy_totals {
    double loss = 0;            ///< sum of -log p[target] over scored rows (nats)
    std::size_t scored = 0;     ///< rows scored
    std::size_t correct = 0;    ///< scored rows whose largest logit is the target's (first on a tie)
};

/// @brief Cross-entropy of logits[rows, vocab] against targets[rows], over the rows where
/// scored[r] is nonzero. dlogits[rows, vocab] receives the gradient of (sum of the scored
/// rows' losses) * grad_scale: (softmax - one_hot) * grad_scale on scored rows, 0 on the others.
cross_entropy_totals softmax_cross_entropy(const float* logits, const std::int32_t* targets,
                                           const std::uint8_t* scored, std::size_t rows, std::size_t vocab,
                                           float grad_scale, float* dlogits);

/// @brief x[r] = token_embedding[tokens[r]] + position_embedding[r % n] for the rows of tokens [batch, n]
/// (the token embedding alone when position_embedding is null).
void embed(const std::int32_t* tokens, const float* token_embedding, const float* position_embedding, float* x,
           std::size_t rows, std::size_t n, std::size_t d);

/// @brief The backward of embed(): the gradients of both tables (overwritten; vocab and
/// positions rows) from dx [rows, d]; d_position may be null (no table).
void embed_backward(const std::int32_t* tokens, const float* dx, float* d_token, float* d_position, std::size_t rows,
                    std::size_t n, std::size_t d, std::size_t vocab, std::size_t positions);

}  // namespace attnlab::grad
