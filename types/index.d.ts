// Type declarations for the attention-lab JavaScript API (node and browsers).
// Hand-written from web/src/api/lab.js; tests/node/types.test.js checks them with tsc against a
// consumer, against wrong uses that must fail, and against the keys the running API returns.

/** Numbers nested to any depth: a scalar, a vector, a matrix, ... */
export type Nested<T> = T | readonly Nested<T>[];

/** Typed arrays accepted as tensor data (read as numbers). */
export type NumericArray =
  | Float32Array | Float64Array
  | Int8Array | Int16Array | Int32Array
  | Uint8Array | Uint8ClampedArray | Uint16Array | Uint32Array;

/** A tensor given as a flat row-major buffer and its shape. */
export interface TensorData {
  shape: readonly number[];
  data: NumericArray | readonly number[];
}

/**
 * What a tensor argument may be: nested arrays (`[[1, 0], [0, 1]]`), `{ shape, data }`, a typed
 * array (1-D), or a number (rank 0). Always copied and checked; ragged arrays are an error.
 */
export type TensorInput = Nested<number> | NumericArray | TensorData;

/** A mask: like a tensor, but booleans (true = may attend) are accepted as well as 1/0. */
export type MaskInput = Nested<number | boolean> | NumericArray | { shape: readonly number[]; data: NumericArray | readonly (number | boolean)[] };

/** A result tensor that JavaScript owns: a row-major Float32Array and its shape. */
export interface Tensor {
  shape: number[];
  data: Float32Array;
  /** The value at a multi-index, e.g. `t.get(1, 4)`; one index per axis. */
  get(...index: number[]): number;
  /**
   * Nested plain arrays (a number for rank 0). Name the rank you expect, e.g.
   * `t.toArray<number[][]>()`.
   */
  toArray<T extends Nested<number> = Nested<number>>(): T;
}

export interface TensorConstructor {
  new (shape: number[], data: Float32Array): Tensor;
  readonly prototype: Tensor;
}

/** The stages of attention, in order. */
export type AttentionStage = 'scores' | 'scaled' | 'masked' | 'weights' | 'output';

/** The scaling rule: 1/sqrt(d_k) (default), none (1), or 1/d_k. */
export type Scaling = 'sqrt' | 'none' | 'dk';

/** Masks and scale of one attention call. Masks combine with AND and apply before the softmax. */
export interface MaskAndScaleOptions {
  /** Query i sees keys j <= i + (n - m). Default false. */
  causal?: boolean;
  /** Keys at or past the length are padding; shape a prefix of [...batch, m]. */
  validLens?: TensorInput | null;
  /** true (or 1) = may attend; broadcastable to [...batch, m, n]. */
  mask?: MaskInput | null;
  /** Sliding window: the query at position p = i + (n - m) sees only keys p - window < j <= p. A whole number >= 1. */
  window?: number | null;
  /** The scale outright; overrides `scaling` and `temperature`. */
  scale?: number | null;
  /** Default 'sqrt'. */
  scaling?: Scaling;
  /** Divides the scale. Default 1. */
  temperature?: number | null;
}

/**
 * RoPE (Su et al. 2021) on Q and K: each pair of dimensions turned by position x base^(-2i/d).
 * Keys sit at positions offset, offset + 1, ...; the last query at the last key's position.
 */
export interface RopeOptions {
  /** 'interleaved' (default): pairs (2i, 2i+1), the paper's and GPT-J's; 'half': pairs (i, i + d/2), GPT-NeoX's and Llama's (Hugging Face). */
  layout?: 'interleaved' | 'half';
  /** Default 10000; finite and > 0 (Llama 3 uses 500000). */
  base?: number;
  /** The first key's position, a whole number from 0 (default); every position below 2^24. */
  offset?: number;
}

/** Position schemes of attention and the KV cache. */
export interface PositionOptions {
  /** Turn Q and K to their positions ({} for the defaults). */
  rope?: RopeOptions | null;
  /** ALiBi (Press et al. 2022): each head adds -slope |i - j| to its scaled scores; the paper's slopes, one per head (axis -3 of Q). */
  alibi?: boolean;
}

export interface AttentionOptions<S extends AttentionStage = AttentionStage> extends MaskAndScaleOptions, PositionOptions {
  /** Which stages to return (default: all); asking for fewer saves copying. */
  stages?: readonly S[];
}

/** lab.positions: the sinusoidal table [n, d], RoPE's angles [n, d/2], or ALiBi's slopes [heads]. */
export type PositionsSpec =
  | { kind: 'sinusoidal'; n: number; d: number; base?: number }
  | { kind: 'rope'; n: number; d: number; base?: number; offset?: number }
  | { kind: 'alibi'; heads: number };

/** Trainer.lossByPosition's result. */
export interface LossByPosition {
  length: number;
  /** Mean loss (nats) at each position; null where the task scores none. */
  loss: (number | null)[];
  /** How many examples scored each position. */
  scored: number[];
  /** Over every scored position. */
  mean: number;
}

/** How a trained model knows positions: a learned table (default), the sinusoid, RoPE, ALiBi, or none (the causal mask alone). */
export type PositionKind = 'learned' | 'sinusoidal' | 'rope' | 'alibi' | 'none';

/** The stages asked for, each a Tensor: scores, scaled, masked, weights [..., m, n]; output [..., m, d_v]. */
export type AttentionResult<S extends AttentionStage = AttentionStage> = { [K in S]: Tensor } & {
  /** The scale used. */
  scale: number;
  /** Index [...batch, i] of every query row with nothing to attend to (zero weights and output). */
  fullyMaskedRows: number[][];
};

export interface SoftmaxOptions {
  /** Default -1 (the last axis). */
  axis?: number;
}

export interface MultiHeadSpec {
  /** Embeddings [n, d_model]. */
  X: TensorInput;
  /** Projections [d_model, d_model]. */
  Wq: TensorInput;
  Wk: TensorInput;
  Wv: TensorInput;
  /** Output projection [d_model, d_model]; without it the heads' concatenation is the output. */
  Wo?: TensorInput | null;
  /** Number of heads, dividing d_model. Default 1. */
  heads?: number;
  causal?: boolean;
  /** One attention per head in a loop, or one batched call. Default 'batched'. */
  method?: 'loop' | 'batched';
  /** Merge the heads without transposing back: the classic bug, on purpose. */
  forgetMergeTranspose?: boolean;
  scale?: number | null;
}

export interface MultiHeadResult {
  q: Tensor;
  k: Tensor;
  v: Tensor;
  scores: Tensor;
  weights: Tensor;
  headOutputs: Tensor;
  concat: Tensor;
  output: Tensor;
  scale: number;
}

export interface DotProductStatsSpec {
  dk: number;
  /** Default 10000. */
  samples?: number;
  /** Default 1. */
  seed?: number;
}

/** Statistics of q.k for standard-normal q and k. */
export interface DotProductStats {
  mean: number;
  variance: number;
  std: number;
  /** sqrt(d_k), what the std should approach. */
  expectedStd: number;
}

/** The sqrt(d_k) experiment in pieces: any split of N samples gives dotProductStats({ dk, samples: N, seed }). */
export interface DotProductStatsAccumulator {
  /** Draws `count` more samples. */
  add(count: number): void;
  /** The statistics of every sample drawn so far. */
  result(): DotProductStats;
  /** Frees the engine memory; the accumulator cannot be used afterwards. */
  dispose(): void;
}

export interface ExplainRowResult {
  row: number;
  scale: number;
  /** q_i * k_j per coordinate: [n, d_k]. */
  terms: Tensor;
  scores: Tensor;
  scaled: Tensor;
  masked: Tensor;
  rowMax: number;
  expRaw: Tensor;
  expShifted: Tensor;
  sumRaw: number;
  sumShifted: number;
  /** expRaw / sumRaw: NaN where exp overflows, which is the point. */
  naiveWeights: Tensor;
  /** Largest |naiveWeights - weights| over the naive weights that are numbers (0 if none is). */
  naiveError: number;
  weights: Tensor;
  /** weight_j * v_j: [n, d_v]. */
  weightedValues: Tensor;
  output: Tensor;
  fullyMasked: boolean;
}

export interface RandomNormalSpec {
  shape: readonly number[];
  /** Default 1. */
  stddev?: number;
  /** Default 1. */
  seed?: number;
}

export interface SoftmaxSaturationSpec {
  dks: readonly number[];
  /** Default 5. */
  keys?: number;
  /** Default 200. */
  trials?: number;
  /** Default 1. */
  seed?: number;
}

export interface SaturationRow {
  dk: number;
  maxWeightScaled: number;
  maxGradScaled: number;
  maxWeightUnscaled: number;
  maxGradUnscaled: number;
}

export interface TraceShapesSpec {
  /** Default 1. */
  batch?: number;
  n: number;
  dModel: number;
  /** Default 1. */
  heads?: number;
  /** Default dModel / heads. */
  dk?: number;
  /** Default dk. */
  dv?: number;
}

export interface ShapeStep {
  id: string;
  name: string;
  formula: string;
  shape: number[];
}

export interface ShapeTrace {
  steps: ShapeStep[];
  parameters: number;
  scoreEntries: number;
}

export interface WorkspaceSpec extends MaskAndScaleOptions {
  /** Leading batch/head axes. Default []. */
  batch?: readonly number[];
  m: number;
  n: number;
  dk: number;
  dv: number;
}

/**
 * A fixed-shape attention whose buffers live in wasm memory. Every stage is a fresh view:
 * read it after each run() and copy (.slice()) what you keep, since a later call that grows
 * memory invalidates old views.
 */
export interface Workspace {
  readonly batch: number[];
  readonly m: number;
  readonly n: number;
  readonly dk: number;
  readonly dv: number;
  /** [...batch, m, dk], to fill in place. */
  readonly Q: Float32Array;
  /** [...batch, n, dk]. */
  readonly K: Float32Array;
  /** [...batch, n, dv]. */
  readonly V: Float32Array;
  readonly scores: Float32Array;
  readonly scaled: Float32Array;
  readonly masked: Float32Array;
  readonly weights: Float32Array;
  readonly output: Float32Array;
  /** Number of fully masked rows in the last run. */
  readonly fullyMaskedCount: number;
  /** Computes every stage from the current Q, K, V; throws on NaN or infinity. */
  run(): this;
  /** Frees the wasm memory; the workspace cannot be used afterwards. */
  dispose(): void;
}

export interface Example {
  tokens: string[];
  Q: Tensor;
  K: Tensor;
  V: Tensor;
  X?: Tensor;
  Wq?: Tensor;
  Wk?: Tensor;
  Wv?: Tensor;
}

export interface Examples {
  /** "time flies like an arrow": embeddings X and projections as well. */
  timeFlies: Example & { X: Tensor; Wq: Tensor; Wk: Tensor; Wv: Tensor };
  /** One query, two keys. */
  worked: Example;
}

export interface MemoryUse {
  heapInUse: number;
  heapSize: number;
  /** Live embind handles, when the engine reports them. */
  handles: number | undefined;
}

/** Masks and block sizes of tiledAttention (no explicit mask, scaling or temperature). */
export interface TiledAttentionOptions {
  causal?: boolean;
  validLens?: TensorInput | null;
  window?: number | null;
  scale?: number | null;
  /** Query rows per block, 1..m. Default min(64, m). */
  blockQ?: number | null;
  /** Keys per block, 1..n. Default min(64, n). */
  blockK?: number | null;
}

/** Figures of one method under the counting model in the README ("What attention costs"). */
export interface MethodCost {
  /**
   * Floats held at once beyond the inputs and the output, per (batch, head) slice: both methods
   * compute the slices one after another and reuse their buffers. The other figures are totals.
   */
  peakExtraFloats: number;
  floatsRead: number;
  floatsWritten: number;
  multiplyAdds: number;
}

export interface TiledCost extends MethodCost {
  /** (row block, key block) pairs computed. */
  blocksComputed: number;
  /** Pairs skipped because every key in them is masked for every row of the block. */
  blocksSkipped: number;
}

export interface TiledAttentionResult {
  /** [..., m, d_v]; 0 for a fully masked row. */
  output: Tensor;
  /** [..., m]: log-sum-exp of each row's scaled, masked scores; -Infinity for a fully masked row. */
  lse: Tensor;
  blockQ: number;
  blockK: number;
  scale: number;
  figures: TiledCost;
}

export interface CostFiguresSpec {
  batch?: number;
  heads?: number;
  m: number;
  n: number;
  dk: number;
  /** Default dk. */
  dv?: number | null;
  blockQ?: number | null;
  blockK?: number | null;
  causal?: boolean;
  window?: number | null;
  /** M, floats of fast memory: picks the blocks by FlashAttention's rule, blockQ = ceil(M / 4d),
   * blockK = min(blockQ, d), d = max(dk, dv) (each capped at m, n). Not with blockQ or blockK. */
  fastMemory?: number | null;
}

export interface CostFigures {
  /** peakExtraFloats of full: a minimal kernel's one score matrix (one slice's). */
  full: MethodCost;
  tiled: TiledCost;
  blockQ: number;
  blockK: number;
  /** What this engine's attention() holds: all four score-sized stages and one transposed K
   * (extraFloats), and the most floats one call may hold (limitFloats). */
  engine: { extraFloats: number; limitFloats: number };
  /** Multiply-adds on the (query, key) pairs the masks leave visible: the exact work of the
   * masks (tiled.multiplyAdds counts whole blocks). */
  visibleMultiplyAdds: number;
  /** Floats full attention reads and writes, over those tiled attention reads and writes. */
  trafficRatio: number;
}

export interface ExplainOnlineSoftmaxOptions {
  /** Keys per block, 1..n. Default min(4, n). */
  block?: number | null;
  causal?: boolean;
  validLens?: TensorInput | null;
  window?: number | null;
  scale?: number | null;
}

export interface OnlineSoftmaxBlock {
  /** Keys [start, end). */
  start: number;
  end: number;
  scores: number[];
  blockMax: number;
  maxBefore: number;
  maxAfter: number;
  /** exp(maxBefore - maxAfter); 0 while maxBefore is -Infinity. */
  rescale: number;
  sumBefore: number;
  sumAfter: number;
  /** The running (unnormalised) output before and after this block. */
  outputBefore: number[];
  outputAfter: number[];
  /** Every key of the block is masked for this row: nothing changes. */
  skipped: boolean;
}

export interface OnlineSoftmaxExplanation {
  row: number;
  scale: number;
  /** Scaled, masked; -Infinity where masked. */
  scores: number[];
  blocks: OnlineSoftmaxBlock[];
  /** Last outputAfter / sumAfter. */
  output: number[];
  lse: number;
  /** The ordinary softmax of scores, for comparison. */
  weights: number[];
  /** The same row of ordinary attention. */
  fullOutput: number[];
}

export type Dtype = 'float64' | 'float32' | 'float16' | 'bfloat16' | 'int8';

export interface KVCacheBytesSpec {
  layers?: number;
  kvHeads: number;
  dHead: number;
  /** Default 'float16'. */
  dtype?: Dtype;
  tokens?: number;
  batch?: number;
  /** The query heads: when given, kvHeads must divide them. */
  heads?: number;
  /** A sliding window: the cache keeps the last min(tokens, window) tokens. */
  window?: number;
}

export interface AttentionMatrixBytesSpec {
  batch?: number;
  heads?: number;
  n: number;
  /** Default 'float32'. */
  dtype?: Dtype;
  /** A sliding window: each query weighs min(n, window) keys. */
  window?: number;
}

export interface KVCacheSpec extends PositionOptions {
  heads: number;
  /** Key/value heads; must divide heads. Default heads (1 = multi-query). */
  kvHeads?: number;
  dHead: number;
  maxLength: number;
  /** Default 1/sqrt(dHead). */
  scale?: number | null;
}

export interface KVCacheStep {
  /** [heads, dHead] */
  output: Tensor;
  /** [heads, length] */
  weights: Tensor;
  /** This step with the cache: heads x length x 2 dHead. */
  multiplyAdds: number;
  /** Recomputing causal attention over the prefix: heads x length (length + 1) / 2 x 2 dHead. */
  multiplyAddsWithoutCache: number;
  /** Decoding every token so far, one step each, with the cache: heads x length (length + 1) / 2 x 2 dHead. */
  decodeMultiplyAdds: number;
  /** The same without the cache: heads x length (length + 1) (length + 2) / 6 x 2 dHead. */
  decodeMultiplyAddsWithoutCache: number;
}

export interface KVCache {
  /** Appends one token's k and v, each [kvHeads, dHead]; returns the new length. */
  append(k: TensorInput, v: TensorInput): number;
  /** Attends q [heads, dHead] (the newest token's query) over every cached token. */
  attend(q: TensorInput): KVCacheStep;
  readonly length: number;
  readonly maxLength: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly dHead: number;
  readonly scale: number;
  /** Bytes held now: 2 x length x kvHeads x dHead x 4. */
  readonly bytes: number;
  readonly bytesPerToken: number;
  /** Frees engine memory; idempotent. Later calls throw. */
  dispose(): void;
}


/** Options of lab.createTrainer(); every one has a default (lab.TRAINER_DEFAULTS). */
export interface TrainerOptions {
  /** 'induction' (default), 'copy', 'reverse', 'sort', 'sequences' (with `sequences`) or 'text' (with `text`). */
  task?: 'induction' | 'copy' | 'reverse' | 'sort' | 'sequences' | 'text';
  vocab?: number;
  seqLen?: number;
  layers?: number;
  heads?: number;
  dModel?: number;
  /** Hidden width of each layer's MLP; 0 (default): attention only. */
  mlp?: number;
  activation?: 'gelu' | 'relu';
  layerNorm?: boolean;
  /** Default 'learned'. */
  positions?: PositionKind;
  batch?: number;
  lr?: number;
  weightDecay?: number;
  /** Steps of linear warm-up from 0 to lr (default 0). */
  warmupSteps?: number;
  /** Steps of cosine decay from lr to minLr after the warm-up (default 0: none). */
  decaySteps?: number;
  /** The rate after the decay, 0 to lr (default 0). */
  minLr?: number;
  seed?: number;
  /** task 'sequences': token-id arrays of 2 to seqLen + 1 tokens. */
  sequences?: ArrayLike<number>[];
  /** task 'text': one long array of token ids; each example is a window of seqLen + 1. */
  text?: ArrayLike<number>;
  /** task 'sequences' or 'text': the first position whose next token is scored. */
  scoreFrom?: number;
  /** task 'text': the fraction of windows (0 to 1, default 0) that repeat their opening span right after it. */
  repeats?: number;
}
/** The options a trainer runs with, every default filled in. */
export interface TrainerSettings {
  task: 'induction' | 'copy' | 'reverse' | 'sort' | 'sequences' | 'text';
  vocab: number;
  seqLen: number;
  layers: number;
  heads: number;
  dModel: number;
  mlp: number;
  activation: 'gelu' | 'relu';
  layerNorm: boolean;
  positions: PositionKind;
  batch: number;
  lr: number;
  weightDecay: number;
  warmupSteps: number;
  decaySteps: number;
  minLr: number;
  seed: number;
  scoreFrom: number;
  repeats: number;
}
export interface TrainerStep {
  /** Updates made so far. */
  step: number;
  /** The last step's mean loss over its scored positions (nats). */
  loss: number;
  /** One loss per update this call made. */
  losses: Float64Array;
  /** The run stopped: a loss was not finite or passed divergenceLimit. */
  diverged: boolean;
  /** One per update made: the fraction of its scored positions whose largest logit was the target. */
  accuracies: Float64Array;
  /** Induction task (recordsHeads): after each update made, the best head's induction score, and its previous-token score on the probe's first copy; null for other tasks. */
  induction: Float64Array | null;
  previousToken: Float64Array | null;
  /** The mean loss of the last lossWindow updates, the lowest such mean so far and the update it was reached at. */
  recentLoss: number;
  bestLoss: number;
  bestAt: number;
  /** recentLoss is more than riseLimit nats above bestLoss. */
  rising: boolean;
  /** Rising, and recentLoss above uniformLoss: the model does worse than a guess that gives every token the same chance. */
  worseThanUniform: boolean;
  /** The first induction head (Trainer.formed). */
  formed: FormedHead | null;
}
export interface FormedHead {
  /** The first update after which the head's induction score reached formedThreshold. */
  step: number;
  layer: number;
  head: number;
  score: number;
}
export interface TrainerEvaluation {
  loss: number;
  accuracy: number;
}
export interface HeadScore {
  layer: number;
  head: number;
  /** Mean weight of row i on key i - 1 over the probe's rows i >= 1. */
  previousToken: number;
  /** Prefix matching: mean weight on the keys just after earlier copies of the row's token. */
  induction: number;
  /** The previous-token score over the rows an induction head reads its keys from: 1 to the block's length, the first copy. */
  previousTokenFirstCopy: number;
}
export interface TrainerMemory {
  parameters: number;
  activations: number;
  scratch: number;
  bytes: number;
}
export interface TrainerParameter {
  name: string;
  shape: number[];
}
export interface TrainerWeights {
  format: 'attention-lab-weights';
  version: 1;
  options: TrainerSettings;
  step: number;
  /** data: base64 of little-endian float32 or float16 (binary16) numbers. */
  parameters: { name: string; shape: number[]; dtype: 'float32' | 'float16'; data: string }[];
}
/** Which heads to knock out: [layer, head] pairs, each at most once; every head is allowed (the model without attention). */
export interface AblationSpec {
  heads: [number, number][];
  /** 'zero' (default): each head's output rows become 0; 'mean': its mean output over a stated batch. */
  mode?: 'zero' | 'mean';
}
export interface TrainerAblation {
  /** Mean loss over every position of the evaluation set (nats), and over its scored positions; null over none. */
  loss: number | null;
  scoredLoss: number | null;
  positions: number;
  scored: number;
  tokens: number[];
  /** Next-token probabilities at every position of the tokens: [n, vocab]. */
  probabilities: Tensor;
  /** Every head's induction and previous-token score on the probe (as headScores()) with the heads knocked out, layer by layer. */
  induction: Float64Array;
  previousToken: Float64Array;
  heads: [number, number][];
  mode: 'zero' | 'mean';
  /** The same with no head knocked out. */
  baseline: { loss: number | null; scoredLoss: number | null; probabilities: Tensor };
}
export interface ModelAblation {
  tokens: string[];
  /** Mean loss over positions 0..n-2 (nats), and over the repeated ones (the pair of a token and the next seen before); null over none. */
  loss: number | null;
  repeatedLoss: number | null;
  positions: number;
  repeated: number;
  /** The most probable next tokens, and every token's probability ([vocab]). */
  next: ModelGuess[];
  probabilities: Float64Array;
  heads: [number, number][];
  mode: 'zero' | 'mean';
  truncated: number;
  baseline: { loss: number | null; repeatedLoss: number | null; next: ModelGuess[]; probabilities: Float64Array };
}
/** Elhage et al. 2021's composition of an earlier head with a later one, and each head's copying score; null where a norm is 0. */
export interface Circuits {
  composition: { from: [number, number]; to: [number, number]; q: number | null; k: number | null; v: number | null }[];
  /** score: sum(lambda) / sum(|lambda|) over the OV circuit's eigenvalues; eigenvalues: [re, im, re, im, ...]. */
  copying: { layer: number; head: number; score: number | null; eigenvalues: Float64Array }[];
}
export interface Trainer {
  step(count?: number): TrainerStep;
  /** The model with heads knocked out; the mean is over the evaluation set; tokens default to example. */
  ablate(spec: AblationSpec & { tokens?: ArrayLike<number> }): TrainerAblation;
  composition(): Circuits;
  evaluate(): TrainerEvaluation;
  /** The loss at each position of `examples` (default 32) sequences `length` tokens long (2..1024); past seqLen only without a learned table. */
  lossByPosition(spec: { length: number; examples?: number }): LossByPosition;
  /** Every head's weights on the tokens: patterns [layers, heads, n, n]. */
  attention(tokens: ArrayLike<number>): { tokens: number[]; patterns: Tensor };
  headScores(): HeadScore[];
  /** dtype 'float16' halves the size, each weight rounded to the nearest half. */
  exportWeights(options?: { dtype?: 'float32' | 'float16' }): TrainerWeights;
  dispose(): void;
  readonly options: TrainerSettings;
  /** A fixed example of the task (seqLen token ids). */
  readonly example: readonly number[];
  readonly memory: TrainerMemory;
  readonly parameters: readonly TrainerParameter[];
  readonly divergenceLimit: number;
  readonly uniformLoss: number;
  /** An induction score from this on counts as an induction head (0.5). */
  readonly formedThreshold: number;
  /** Updates in a step result's recentLoss (50), and the nats it may rise above bestLoss before the run counts as rising (1). */
  readonly lossWindow: number;
  readonly riseLimit: number;
  /** Whether step() scores the heads after every update: the induction task. */
  readonly recordsHeads: boolean;
  /** The first induction head (induction task), or null while none has formed. */
  readonly formed: FormedHead | null;
  readonly steps: number;
  readonly diverged: boolean;
  readonly divergedAt: number;
  readonly divergedLoss: number;
}
export interface AttentionGradients {
  dQ: Tensor;
  dK: Tensor;
  dV: Tensor;
  /** The gradient at the softmax's input: rows sum to 0, masked entries are 0. */
  dS: Tensor;
  scale: number;
}

/** The names lab.mistake() takes, in lab.MISTAKES order. */
export type MistakeName = 'softmax-wrong-axis' | 'mask-after-softmax' | 'no-scaling' | 'scale-by-dk' | 'fp16-mask-fill'
  | 'keys-not-transposed' | 'no-causal-mask' | 'no-padding-mask';

export interface MistakeInfo {
  name: MistakeName;
  title: string;
  /** What a practitioner would notice. */
  symptom: string;
  /** The one-line fix. */
  fix: string;
}

/**
 * One head: Q [m, d_k], K [n, d_k], V [n, d_v], and the masks the correct computation uses.
 * no-causal-mask and no-padding-mask also take leading batch axes, as attention() does.
 */
export interface MistakeSpec {
  Q: TensorInput;
  K: TensorInput;
  V: TensorInput;
  /** no-causal-mask always uses the causal mask for the correct result. */
  causal?: boolean;
  /** Required by no-padding-mask. */
  validLens?: TensorInput | null;
  mask?: TensorInput | null;
}

export interface MistakeFigure {
  label: string;
  /** null when the mistaken computation failed (keys-not-transposed with n != d_k). */
  value: number | null;
  correctValue: number;
  /**
   * The query row the value comes from, as its index [...batch, i], for a figure that is one
   * row's total (no-causal-mask, no-padding-mask); null when no row leaks or for other figures.
   */
  row: number[] | null;
}

export interface WeightsAndOutput {
  /** [m, n] */
  weights: Tensor;
  /** [m, d_v] */
  output: Tensor;
}

export interface MistakeResult<Cells extends Nested<boolean> = boolean[][]> {
  name: MistakeName;
  /** Always finite. For fp16-mask-fill: float16 with the usual fix. */
  correct: WeightsAndOutput;
  /** May hold NaN (fp16-mask-fill), or the error of a mistake that fails loudly. */
  mistaken: WeightsAndOutput | { error: string };
  /** mistaken - correct; null when the mistake failed. */
  difference: WeightsAndOutput | null;
  /** figures[0]. */
  figure: MistakeFigure;
  figures: MistakeFigure[];
  /** [m][n] ([...batch][m][n] with batch axes): the weight differs by more than 1e-6 (or is NaN). */
  cells: Cells;
}

/** Options of lab.headSummary. */
export interface HeadSummaryOptions {
  /** The keys' tokens (one per key): equal tokens count as repeats for prefix matching; [CLS], [SEP], <s>, </s>, <|endoftext|> and the like are special tokens. */
  tokens?: readonly string[];
  /** Cross-attention: the queries' tokens (one per query); only the entropy is then defined. */
  queryTokens?: readonly string[];
  /** Self-attention under a causal mask: no weight may sit on a later key (at most 1e-6). */
  causal?: boolean;
  /** The weights were rounded to this many decimals (0 to 8): each row may then miss 1 by 1e-3 + n x half a unit of the last decimal. */
  decimals?: number;
}

/** One head's scores; null where a score is not defined (cross-attention, no repeated token) or does not apply. */
export interface HeadScores {
  layer: number;
  head: number;
  /** Mean row entropy in nats: 0 for one key, ln k for k keys evenly. */
  entropy: number | null;
  /** Mean weight of row i on key i - 1, over rows i >= 1. */
  previousToken: number | null;
  /** Mean weight of row i on key 0 (a sink), over rows i >= 1. */
  firstToken: number | null;
  /** Mean weight of row i on itself, over rows i >= 1. */
  diagonal: number | null;
  /** Mean weight of a repeated token's row on the keys just after its earlier copies (induction); null without `causal` (a head may then read the whole text). */
  prefixMatching: number | null;
  /** Prefix matching on the keys two or more before the query only, over the rows that have one: a previous-token head (key i - 1) or a head on the token itself (key i) earns nothing, so it tells an induction head from them on any text. */
  prefixMatchingApart: number | null;
  /** Mean weight of row i on key i + 1, over rows i <= n - 2; null under `causal` (the mask hides that key). */
  nextToken: number | null;
  /** Mean weight of row i on the special tokens after key 0 ([SEP]; [CLS] at key 0 is firstToken's), over rows i >= 1; null when there are none. */
  specialTokens: number | null;
}

/** What lab.headSummary's Error carries as `problem`: the first entry or row that is not attention weights. */
export interface PatternProblem {
  fault: 'not-finite' | 'negative' | 'future-weight' | 'row-sum';
  layer: number;
  head: number;
  row: number;
  /** The entry's column (0 for a row sum). */
  column: number;
  /** The entry, or the row's sum. */
  value: number;
  /** row-sum: the accepted |sum - 1|; future-weight: the largest weight accepted on a later key. */
  tolerance: number;
}

/** A model's attention as <model-attention> takes it (child JSON, data property, src file, setAttention). */
export interface ModelAttentionData {
  /** The keys' tokens, one per key (and per query, for self-attention). */
  tokens: string[];
  /**
   * [layers][heads][queries][keys] or [heads][queries][keys] (CircuitsVis's [heads][dest][src]),
   * flat as { shape, data }, or { shape, dtype: 'float16' | 'float32', base64 } (little-endian bytes).
   */
  attentions: Nested<number> | TensorData | { shape: readonly number[]; dtype: 'float16' | 'float32'; base64: string };
  /** Cross-attention: the queries' tokens, one per row. */
  queryTokens?: string[];
  /** Self-attention under a causal mask (cells above the diagonal are shown masked). */
  causal?: boolean;
  /** Names of the layers and heads to show instead of their numbers. */
  layerNames?: string[];
  headNames?: string[];
  /** The weights were rounded to this many decimals (a wider row-sum tolerance). */
  decimals?: number;
  /** A sentence pair (BERT): the position of sentence B's first token; the head view then filters A to B, B to A. */
  sentenceBStart?: number;
  /** Any other key is the file's metadata (model, sentence, source, license...): kept, and model, sentence, license and source.url are shown. */
  [metadata: string]: unknown;
}

/** One token of a model's text: its id and the exact span of the text it reads. */
export interface ModelToken {
  id: number;
  text: string;
  start: number;
  end: number;
}

/** Texts longer than the model's context are refused unless `truncate` keeps their last tokens. */
export interface ModelReadOptions {
  truncate?: boolean;
}

export interface ModelAttention {
  /** Each token's text; joined they give the text read. */
  tokens: string[];
  ids: number[];
  /** [start, end) of each token in the text. */
  spans: [number, number][];
  /** [layers][heads][n][n]: rows sum to 1, 0 above the diagonal. */
  attentions: number[][][][];
  causal: true;
  /** Tokens dropped from the start (with truncate). */
  truncated: number;
}

export interface ModelGuess {
  token: string;
  id: number;
  probability: number;
}

export interface ModelPrediction {
  tokens: string[];
  /** Most probable first. */
  next: ModelGuess[];
  truncated: number;
}

export interface ModelHeadScores {
  layer: number;
  head: number;
  entropy: number | null;
  previousToken: number | null;
  firstToken: number | null;
  diagonal: number | null;
  prefixMatching: number | null;
  prefixMatchingApart: number | null;
}

/** The vocabulary a model file carries (web/src/api/tokenizer.js). */
export interface ModelVocabulary {
  kind: 'bpe';
  unknown: string;
  alphabet: string[];
  merges: [number, number][];
}

export interface ModelTokenizer {
  /** Every piece's text, by id. */
  readonly pieces: readonly string[];
  readonly size: number;
  encode(text: string): { ids: number[]; tokens: ModelToken[] };
  ids(text: string): Int32Array;
  /** The last `max` tokens of the text and how many it has in all (only those built). */
  last(text: string, max: number): { tokens: ModelToken[]; count: number };
  decode(ids: ArrayLike<number>): string;
}

/** A trained model from lab.loadModel: reads text, every number from the engine. */
export interface Model {
  readonly name: string;
  /** Where it came from: corpus, licence, command, settings, measured scores. */
  readonly about: Record<string, unknown>;
  readonly options: Readonly<{ vocab: number; seqLen: number; layers: number; heads: number; dModel: number; mlp: number; activation: 'gelu' | 'relu'; layerNorm: boolean }>;
  /** The longest text it reads, in tokens. */
  readonly maxTokens: number;
  readonly tokenizer: ModelTokenizer;
  tokenize(text: string): ModelToken[];
  attention(text: string, options?: ModelReadOptions): ModelAttention;
  predict(text: string, options?: ModelReadOptions & { top?: number }): ModelPrediction;
  /** The logits of the token after the text: [vocab]. */
  logits(text: string, options?: ModelReadOptions): Float32Array;
  headScores(text: string, options?: ModelReadOptions): ModelHeadScores[];
  /** The text read with heads knocked out; the mean is over meanOver (default: the text itself). */
  ablate(text: string, spec: AblationSpec & ModelReadOptions & { meanOver?: string[]; top?: number }): ModelAblation;
  composition(): Circuits;
  dispose(): void;
}

/** What lab.loadModel reads: nothing (the shipped model), a loaded model's name, a model object, or a model file's text or bytes. */
export type ModelSource = string | ArrayBuffer | ArrayBufferView | { format: 'attention-lab-model'; version: number; name: string; [key: string]: unknown };

/** The API around one loaded engine. Bad input throws an Error naming the function and argument. */
export interface Lab {
  /**
   * Scaled dot-product attention with every stage kept.
   * Q [..., m, d_k], K [..., n, d_k], V [..., n, d_v] with matching leading axes.
   */
  attention<S extends AttentionStage = AttentionStage>(Q: TensorInput, K: TensorInput, V: TensorInput, options?: AttentionOptions<S>): AttentionResult<S>;
  /** The sinusoidal table [n, d], RoPE's angles [n, d/2] (radians), or ALiBi's slopes [heads]. */
  positions(spec: PositionsSpec): Tensor;
  /** X [..., n, d] (d even) turned by RoPE as attention's `rope` turns Q and K: row p of each matrix to position offset + p. */
  rope(X: TensorInput, options?: RopeOptions): Tensor;
  /** Numerically safe softmax; each line along `axis` sums to 1. */
  softmax(x: TensorInput, options?: SoftmaxOptions): Tensor;
  /** Multi-head self-attention of X [n, d_model]. */
  multiHeadAttention(spec: MultiHeadSpec): MultiHeadResult;
  dotProductStats(spec: DotProductStatsSpec): DotProductStats;
  /** The same experiment, a few samples at a time. */
  createDotProductStats(spec: { dk: number; seed?: number }): DotProductStatsAccumulator;
  /** Every arithmetic step behind one query row of 2-D attention. */
  explainRow(Q: TensorInput, K: TensorInput, V: TensorInput, row: number, options?: MaskAndScaleOptions): ExplainRowResult;
  /** A checked copy as a Tensor. */
  tensor(value: TensorInput): Tensor;
  /** A seeded tensor of normal entries, the same on every platform. */
  randomNormal(spec: RandomNormalSpec): Tensor;
  /** Largest |a - b| over two tensors of one shape. */
  maxAbsDiff(a: TensorInput, b: TensorInput): number;
  softmaxSaturation(spec: SoftmaxSaturationSpec): SaturationRow[];
  traceShapes(spec: TraceShapesSpec): ShapeTrace;
  createWorkspace(spec: WorkspaceSpec): Workspace;
  examples(): Examples;
  memory(): MemoryUse;
  /**
   * Gives the engine's memory back: later calls run on a fresh engine at its starting 16 MiB
   * (wasm memory only grows). Objects made before keep the old engine until disposed.
   */
  reset(): void;
  /** Attention over key blocks with an online softmax; never holds the m x n matrix. */
  tiledAttention(Q: TensorInput, K: TensorInput, V: TensorInput, options?: TiledAttentionOptions): TiledAttentionResult;
  /** Full vs tiled figures for these sizes, from the tiled kernel's own counting code. */
  costFigures(spec: CostFiguresSpec): CostFigures;
  /** One row of 2-D attention through the online softmax, block by block. */
  explainOnlineSoftmax(Q: TensorInput, K: TensorInput, V: TensorInput, row: number, options?: ExplainOnlineSoftmaxOptions): OnlineSoftmaxExplanation;
  kvCacheBytes(spec: KVCacheBytesSpec): { bytesPerToken: number; tokensCached: number; bytes: number };
  attentionMatrixBytes(spec: AttentionMatrixBytesSpec): { keysPerQuery: number; elements: number; bytes: number };
  createKVCache(spec: KVCacheSpec): KVCache;
  /**
   * A classic mistake computed beside the correct attention (one head; a batch for the masking
   * mistakes: name the cells' rank you expect, e.g. `lab.mistake<boolean[][][]>(...)`).
   */
  mistake<Cells extends Nested<boolean> = boolean[][]>(name: MistakeName, spec: MistakeSpec): MistakeResult<Cells>;
  /** Every mistake, in teaching order. */
  readonly MISTAKES: readonly MistakeInfo[];
  /** A trainer for a small transformer (every option has a default). */
  createTrainer(options?: TrainerOptions): Trainer;
  /** A trainer holding exported weights (and the sequences or text of a run trained on them). */
  loadTrainer(weights: TrainerWeights, extra?: { sequences?: ArrayLike<number>[]; text?: ArrayLike<number> }): Trainer;
  /** Gradients of attention given dOutput = dL/d(output). */
  attentionBackward(Q: TensorInput, K: TensorInput, V: TensorInput, dOutput: TensorInput, options?: MaskAndScaleOptions): AttentionGradients;
  /** createTrainer's defaults. */
  readonly TRAINER_DEFAULTS: TrainerSettings;
  /**
   * Per head of a model's attention [layers, heads, queries, keys] (or [heads, queries, keys]):
   * its entropy and previous-token, first-token, diagonal and prefix-matching scores. Throws,
   * with `problem` ({@link PatternProblem}), when the weights are not attention weights.
   */
  headSummary(attentions: TensorInput, options?: HeadSummaryOptions): HeadScores[];
  Tensor: TensorConstructor;
  /** The option names attention() accepts. */
  ATTENTION_OPTIONS: readonly string[];
  /**
   * A trained model with its tokenizer. With no source, the shipped model: in node it is read
   * from the package; a page adds `<script src="attention-lab-model.js">` beside the kit.
   */
  loadModel(source?: ModelSource): Model;
}

/**
 * Loads the engine once (every caller shares it) and resolves to the API. A failed load
 * rejects with an Error; see {@link LoadError}.
 */
export declare function loadAttentionLab(): Promise<Lab>;

/** How a failed load rejects: `code` says why, `cause` holds the original error. */
export interface LoadError extends Error {
  code?: 'wasm-blocked' | 'wasm-unsupported' | 'engine-failed';
  cause?: unknown;
}
