#pragma once
/// @file transformer.hpp
/// @brief A small decoder-only transformer that the engine can train: token and learned
/// position embeddings, `layers` blocks of causal multi-head attention (optionally with layer
/// norm and an MLP), and an unembedding to next-token logits.
///
/// Every buffer a step needs (parameters, gradients, activations, scratch) is allocated once,
/// when the model is made, for up to `max_batch` sequences of `seq_len` tokens: plan() says how
/// much before anything runs, and a forward or backward pass allocates nothing.
///
/// One block, for the residual stream x [rows, d_model] (pre-norm when layer_norm is on):
///   a = layer_norm ? LN1(x) : x;  [q k v] = a Wqkv;  per head: o_h = softmax(q_h k_h^T / sqrt(d_head), causal) v_h
///   x = x + concat(o_h) Wo;  if mlp: m = layer_norm ? LN2(x) : x;  x = x + f(m W1 + b1) W2 + b2
/// and at the end logits = (layer_norm ? LNf(x) : x) Wu + bu.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/grad.hpp"
#include "attnlab/positions.hpp"
#include "attnlab/tensor.hpp"

namespace attnlab {

class head_patch;

/// @brief The shape of the model. Limits (each checked by name): vocab 2..max_vocab, seq_len
/// 2..max_seq_len, layers 1..max_layers, heads 1..max_heads dividing d_model, d_model
/// 1..max_d_model, mlp 0..max_mlp.
struct transformer_config {
    std::size_t vocab = 32;
    std::size_t seq_len = 32;
    std::size_t layers = 2;
    std::size_t heads = 2;
    std::size_t d_model = 32;
    std::size_t mlp = 0;  ///< hidden width of each block's MLP; 0: attention only
    grad::activation act = grad::activation::gelu;
    bool layer_norm = false;
    /// How positions enter (positions.hpp): only `learned` has a positionEmbedding parameter;
    /// `sinusoidal` adds a fixed table, `rope` turns every head's q and k, `alibi` biases every
    /// head's scores, `none` leaves order to the causal mask.
    position_kind positions = position_kind::learned;

    std::size_t d_head() const { return d_model / heads; }
};

inline constexpr std::size_t max_vocab = 8192;
inline constexpr std::size_t max_seq_len = 256;
inline constexpr std::size_t max_layers = 8;
inline constexpr std::size_t max_heads = 16;
inline constexpr std::size_t max_d_model = 512;
inline constexpr std::size_t max_mlp = 2048;
inline constexpr std::size_t max_batch = 512;
/// Most floats one model's plan may hold (256 MB).
inline constexpr std::size_t max_plan_floats = std::size_t(1) << 26;
/// Largest activation (and attention score, before the softmax) that weights may lead to, over
/// every input: far below float32's 3.4e38, so that layer norm's squares, GELU's cubes and
/// the scores' products stay finite (transformer::check_forward_bound).
inline constexpr double max_activation = 1e12;
inline constexpr double max_score = 1e30;

/// @brief One named parameter tensor inside the flat parameter vector.
struct parameter {
    std::string name;    ///< e.g. "layers.0.qkv"
    shape_t shape;
    std::size_t offset;  ///< into params() and grads()
    std::size_t size;
    bool decay;          ///< whether AdamW's weight decay applies (matrices and embeddings)
};

/// @brief Floats the model holds, by purpose: known before the first step.
struct memory_plan {
    std::size_t parameters = 0;   ///< the weights; their gradients and Adam's two moments are as many again, each
    std::size_t activations = 0;  ///< what the forward keeps for the backward, at max_batch
    std::size_t scratch = 0;      ///< gradients of activations and packed matrix operands
    std::size_t total() const { return 4 * parameters + activations + scratch; }
    /// The floats of total() in bytes.
    std::size_t bytes() const { return sizeof(float) * total(); }
};

class transformer {
public:
    /// @throws argument_error naming `fn` and the field for a configuration outside the
    /// limits, heads that do not divide d_model, or a plan over max_plan_floats; an odd
    /// d_head with rope. `max_len`: the longest seq_len allowed (evaluation past the training
    /// length makes a model with a longer one; only schemes without a learned table can).
    /// `allocate_now` false: only the layout and the plan, every buffer taken by allocate()
    /// (a model read from a file checks the file against the layout first).
    transformer(const transformer_config& config, std::size_t max_batch, const std::string& fn,
                std::size_t max_len = max_seq_len, bool allocate_now = true);

    /// @brief Takes the weights, gradients and the activation arena of the plan (once; the
    /// weights 0).
    void allocate();

    /// @brief Checks that weights w (param_count() floats in parameters() order, finite) keep
    /// the forward pass finite for every input: a bound on every activation, stage by stage
    /// (weights' column sums, layer norm's sqrt(d)), within max_activation and max_score.
    /// @throws argument_error naming `fn` and the first parameter whose stage passes its limit
    void check_forward_bound(const float* w, const std::string& fn) const;

    const transformer_config& config() const { return config_; }
    std::size_t max_rows() const { return max_batch_ * config_.seq_len; }
    std::size_t batch_capacity() const { return max_batch_; }
    const std::vector<parameter>& parameters() const { return layout_; }
    const memory_plan& plan() const { return plan_; }

    float* params() { return params_.data(); }
    const float* params() const { return params_.data(); }
    float* grads() { return grads_.data(); }
    std::size_t param_count() const { return layout_.empty() ? 0 : layout_.back().offset + layout_.back().size; }

    /// @brief Seeded initialisation: embeddings N(0, 1); Wqkv, Wo, W1, Wu N(0, 1/fan_in)
    /// (Wo and W2 also divided by sqrt(2 layers)); biases 0; layer-norm gains 1.
    void initialise(std::uint64_t seed);

    /// @brief Runs tokens [batch, n] (ids below vocab, n <= seq_len, batch <= max_batch)
    /// through the model, keeping every activation for backward() and the weights for
    /// weights(). Unchecked: the trainer checks tokens where they come from.
    void forward(const std::int32_t* tokens, std::size_t batch, std::size_t n);

    /// @brief After forward(): the cross-entropy of the logits against targets [batch, n] over
    /// the positions where scored is nonzero, and the gradient at the logits of the mean loss
    /// over those positions.
    grad::cross_entropy_totals loss(const std::int32_t* targets, const std::uint8_t* scored);

    /// @brief After loss(): every parameter's gradient of the mean loss, into grads().
    void backward();

    /// @brief The attention weights of layer `layer` in the last forward: [batch, heads, n, n].
    const float* weights(std::size_t layer) const;

    /// @brief The logits of the last forward: [batch, n, vocab].
    const float* logits() const { return logits_; }

    /// @brief Ablation (ablation.hpp): while `patch` is set (not null), forward() replaces the
    /// patched heads' outputs; backward() is then not meaningful. The caller keeps it alive.
    void patch_heads(const head_patch* patch) { patch_ = patch; }
    /// @brief Every head's output of layer `layer` in the last forward: [batch, heads, n, d_head].
    const float* head_outputs(std::size_t layer) const { return acts_[layer].o; }

    /// @brief Floats of the activation arena handed out, for checking the plan against what was made.
    std::size_t arena_floats() const { return taken_; }

private:
    // Offsets of one block's parameters within params_ (npos when the block has none).
    struct block_params {
        std::size_t ln1_gain, ln1_bias, qkv, out, ln2_gain, ln2_bias, mlp_in, mlp_in_bias, mlp_out, mlp_out_bias;
    };
    // One block's saved activations, each [rows, width] or [batch, heads, n, x], in the arena
    // (null where the configuration has no such stage).
    struct block_acts {
        float* x;        // the block's input (residual stream) [rows, d]
        float* a;        // LN1(x) [rows, d] when layer_norm is on
        float* ln1;      // [rows, 2]
        float* qkv;      // [rows, 3d]
        float* heads;    // q, k, v per head: [3, batch, heads, n, d_head]
        float* weights;  // [batch, heads, n, n]
        float* o;        // per-head outputs [batch, heads, n, d_head]
        float* merged;   // [rows, d]
        float* mid;      // x after attention [rows, d] when there is an MLP
        float* m;        // LN2(mid) [rows, d]
        float* ln2;      // [rows, 2]
        float* hidden;   // m W1 + b1 [rows, mlp]
        float* act;      // f(hidden) [rows, mlp]
    };

    std::size_t add_parameter(std::size_t layer, const char* name, const shape_t& shape, bool decay);
    float* take(std::size_t floats);
    void block_forward(std::size_t l, const float* x, float* next);
    void block_backward(std::size_t l, float* dx);
    // Positions (the end of transformer.cpp): the parameter or fixed data of the scheme, the
    // table added to the token embeddings (null for none), RoPE on the heads' q and k.
    void position_setup(const std::string& fn);
    const float* position_table() const;
    void rotate_heads(float* heads, bool inverse);

    transformer_config config_;
    std::size_t max_batch_;
    std::vector<parameter> layout_;
    std::vector<float> params_, grads_;
    std::size_t tok_emb_ = 0, pos_emb_ = 0, final_gain_ = 0, final_bias_ = 0, unembed_ = 0, unembed_bias_ = 0;
    std::vector<block_params> blocks_;
    std::vector<block_acts> acts_;
    std::vector<std::int32_t> tokens_;  // [batch, n] of the last forward
    // Every activation and scratch buffer: one allocation of plan_.activations + plan_.scratch
    // floats (less the tokens), handed out by take() in the constructor.
    std::vector<float> arena_;
    std::size_t taken_ = 0, scratch_floats_ = 0;
    float* last_ = nullptr;                                      // the final residual stream [rows, d]
    float* final_ = nullptr, *final_stats_ = nullptr;            // LNf(last_) and its stats
    float* logits_ = nullptr, *dlogits_ = nullptr;               // [rows, vocab]
    float* dx_ = nullptr, *dtmp_ = nullptr, *dwide_ = nullptr;   // [rows, d], [rows, d], [rows, max(3d, mlp)]
    float* dheads_ = nullptr, *dheads_o_ = nullptr, *ds_ = nullptr;
    float* scratch_ = nullptr;
    // Fixed position data: the sinusoidal table [seq_len, d], RoPE's angles, ALiBi's slopes.
    tensor fixed_positions_;
    std::vector<float> slopes_;
    rope_table rope_;
    memory_plan plan_;
    std::size_t batch_ = 0, n_ = 0;
    float loss_scale_ = 0;
    const head_patch* patch_ = nullptr;
};

}  // namespace attnlab
