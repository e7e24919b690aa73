'use strict';
// Published model shapes for the cost calculator: the sizes only, never a byte count (the
// engine computes those). Each shape is checked against the source cited beside it.
// window: the sliding-window length where the model has one (each query sees at most that
// many keys, and its cache is a rolling buffer of that many tokens), else 0.

const MODEL_SHAPES = [
  // Radford et al. 2019, "Language Models are Unsupervised Multitask Learners", Table 2
  // (smallest model: 12 layers, d_model 768); heads and context from the released
  // configuration (huggingface.co/gpt2, config.json: n_head 12, n_ctx 1024). d_head = 768 / 12.
  { id: 'gpt2-small', name: 'GPT-2 small', layers: 12, heads: 12, kvHeads: 12, dHead: 64, context: 1024, window: 0 },
  // Touvron et al. 2023, "Llama 2: Open Foundation and Fine-Tuned Chat Models", Table 1
  // (7B: context 4096, no GQA); meta-llama/Llama-2-7b-hf config.json: hidden_size 4096,
  // num_attention_heads 32, num_key_value_heads 32, num_hidden_layers 32. d_head = 4096 / 32.
  { id: 'llama-2-7b', name: 'Llama-2-7B', layers: 32, heads: 32, kvHeads: 32, dHead: 128, context: 4096, window: 0 },
  // Same paper, Table 1 (70B uses grouped-query attention); meta-llama/Llama-2-70b-hf
  // config.json: hidden_size 8192, num_attention_heads 64, num_key_value_heads 8,
  // num_hidden_layers 80. d_head = 8192 / 64.
  { id: 'llama-2-70b', name: 'Llama-2-70B (GQA)', layers: 80, heads: 64, kvHeads: 8, dHead: 128, context: 4096, window: 0 },
  // Jiang et al. 2023, "Mistral 7B", Table 1: dim 4096, n_layers 32, head_dim 128, n_heads 32,
  // n_kv_heads 8, window_size 4096, context_len 8192; section 2: a rolling buffer cache of
  // window_size tokens.
  { id: 'mistral-7b', name: 'Mistral-7B (GQA, window)', layers: 32, heads: 32, kvHeads: 8, dHead: 128, context: 8192, window: 4096 },
];

const DTYPES = ['float32', 'float16', 'bfloat16', 'float64', 'int8'];

/** The preset with this id, or undefined. */
function modelShape(id) {
  return MODEL_SHAPES.find((m) => m.id === id);
}

module.exports = { MODEL_SHAPES, DTYPES, modelShape };
