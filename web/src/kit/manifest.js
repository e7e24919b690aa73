'use strict';
// The public surface of every widget, declared once: attributes (and the properties that
// mirror them), events, ::part() names and CSS custom properties. The elements read their
// observed attributes and parsers from here; the README tables, the TypeScript
// declarations and custom-elements.json are generated from it. DOM-free.

/**
 * Attribute types (parsed by web/src/ui/attributes.js):
 *   'tokens'  words separated by spaces (property: string[])
 *   'boolean' present = true; "false" or "0" = false (property: boolean)
 *   'integer' / 'number' with min and max (property: number)
 *   'enum'    one of `values` (property: string)
 *   'string'  free text (property: string)
 * `state: true` marks attributes that change the view in place (the widget keeps its other
 * state); other attributes rebuild the widget from its data.
 */

const COMMON_ATTRIBUTES = [
  { name: 'url-state', property: 'urlState', type: 'enum', values: ['on', 'off'], default: 'on',
    description: 'Whether this widget (when it has a unique id) keeps its state in the page URL\'s query string.' },
  { name: 'theme', property: 'theme', type: 'enum', values: ['auto', 'light', 'dark'], default: 'auto',
    description: 'Colour theme; auto follows the page\'s color-scheme and background.' },
];

const COMMON_EVENTS = [
  { name: 'al-ready', detail: '{ state: object }', description: 'The widget has drawn its first view.' },
  { name: 'al-change', detail: '{ state: object }', description: 'The reader (or a script) changed the view; detail.state is the new state.' },
  { name: 'al-error', detail: '{ message: string }', description: 'The widget could not be drawn; the message is also shown inside it.' },
];

const COMMON_PARTS = [
  { name: 'frame', description: 'The widget\'s outer box.' },
  { name: 'controls', description: 'Rows of buttons, switches and inputs.' },
  { name: 'message', description: 'The in-widget message shown instead of the widget when data is wrong or the engine cannot run.' },
  { name: 'export', description: 'The export menu beside a heatmap or chart (widgets that draw one).' },
];

const CSS_PROPERTIES = [
  { name: '--al-font', description: 'Font family of the widget text.' },
  { name: '--al-font-size', description: 'Base font size (default 15px); everything inside scales with it.' },
  { name: '--al-fg', description: 'Text colour.' },
  { name: '--al-muted', description: 'Secondary text colour.' },
  { name: '--al-bg', description: 'Background of the widget.' },
  { name: '--al-panel', description: 'Background of panels, tables headers and controls.' },
  { name: '--al-line', description: 'Border colour.' },
  { name: '--al-accent', description: 'Accent (primary buttons, bars, curves).' },
  { name: '--al-accent-fg', description: 'Text on the accent colour (by default black or white, whichever reads better on it).' },
  { name: '--al-focus', description: 'Focus ring colour.' },
  { name: '--al-hl', description: 'Background of highlighted rows and formula terms.' },
  { name: '--al-hl-fg', description: 'Text on highlighted rows and formula terms.' },
  { name: '--al-mask', description: 'Stripe colour of masked heatmap cells.' },
  { name: '--al-ok', description: 'Colour of a right answer.' },
  { name: '--al-bad', description: 'Colour of a wrong answer and of error messages.' },
  { name: '--al-radius', description: 'Corner radius of the outer box.' },
  { name: '--al-padding', description: 'Inner padding of the outer box.' },
];

const tokens = (description) => ({ name: 'tokens', property: 'tokens', type: 'tokens', description });

const WIDGETS = {
  'attention-stepper': {
    className: 'AttentionStepper',
    summary: 'Pick a query token and step through project, score, scale and softmax, weighted sum.',
    example: '<attention-stepper tokens="time flies like an arrow"></attention-stepper>',
    json: true,
    attributes: [
      tokens('Words separated by spaces; without vectors, the engine makes seeded ones for them.'),
      { name: 'query', property: 'query', type: 'string', state: true, description: 'The query token to start on.' },
      { name: 'predict', property: 'predict', type: 'string', description: 'A token whose scores, then weights, the reader types before the stepper shows them (predict-first).' },
    ],
    parts: [{ name: 'steps', description: 'The list of the four steps.' }, { name: 'prompt', description: 'The predict-first question about the predict token\'s row.' }, { name: 'narration', description: 'The sentence that explains the current step.' }, { name: 'table', description: 'The numbers of the current step.' }],
    state: '{ token: string, tokenIndex: number, step: string, stepIndex: number, tokens: string[], ownSentence: boolean, answered: string[] }',
  },
  'attention-heatmap': {
    className: 'AttentionHeatmap',
    summary: 'The whole weight matrix, with the causal mask, scaling, temperature, numbers on or off, and the reader\'s own sentence.',
    example: '<attention-heatmap tokens="the cat sat on the mat" prompt="causal"></attention-heatmap>',
    json: true,
    attributes: [
      tokens('Words separated by spaces (at most 256).'),
      { name: 'query-tokens', property: 'queryTokens', type: 'tokens', description: 'Cross-attention: the query sentence (one row each), attending over `tokens` (the keys and values, one column each); seeded vectors, no causal mask.' },
      { name: 'causal', property: 'causal', type: 'boolean', state: true, description: 'Start with the causal mask on.' },
      { name: 'numbers', property: 'numbers', type: 'boolean', state: true, description: 'Print the weights in the cells (default: on up to 8 tokens).' },
      { name: 'scaling', property: 'scaling', type: 'enum', values: ['sqrt', 'none', 'dk'], state: true, description: 'Scaling rule: 1/sqrt(d_k), none, or 1/d_k.' },
      { name: 'temperature', property: 'temperature', type: 'enum', values: ['0.25', '0.5', '1', '2', '4'], state: true, description: 'Softmax temperature.' },
      { name: 'prompt', property: 'prompt', type: 'string', description: 'Predict-first prompts to show, separated by spaces: "causal" (pick a cell the mask hides), "row0" (the first row under the mask), "temperature:<token>" (does that row\'s favourite key keep more than half of the row at the largest temperature? asked once the row is shown).' },
      { name: 'predict', property: 'predict', type: 'string', description: 'A token whose row the reader types (or chooses to see) before the heatmap shows it: until then the row has no colour, numbers or readout, and exports leave it out (predict-first).' },
      { name: 'hide-rows', property: 'hideRows', type: 'tokens', description: 'Tokens whose rows stay hidden as an asked row does: rows another question asks about, on this page or in a later lesson.' },
      { name: 'reveal-with', property: 'revealWith', type: 'string', description: 'The id of an `<attention-stepper>` with `predict` on the same page: the rows of `hide-rows` appear once the reader has committed them there (its state\'s `answered`).' },
    ],
    parts: [{ name: 'heatmap', description: 'The grid (or canvas) of weights.' }, { name: 'legend', description: 'The colour legend.' }, { name: 'caption', description: 'The line under the heatmap.' }],
    state: '{ causal: boolean, scaling: string, temp: number, temperature: number, self: boolean, numbers: boolean, tokens: string[], ownSentence: boolean }',
  },
  'attention-worked-example': {
    className: 'AttentionWorkedExample',
    summary: 'One query, two keys, every number; predict which value the output copies, then practise on a new query.',
    example: '<attention-worked-example></attention-worked-example>',
    json: true,
    attributes: [],
    parts: [{ name: 'table', description: 'The table of every number.' }, { name: 'prompt', description: 'The predict-first prompts.' }],
    state: '{ q: number[], practice: boolean, revealed: boolean, weights: number[] | null }',
  },
  'scaling-experiment': {
    className: 'ScalingExperiment',
    summary: 'The seeded sqrt(d_k) experiment and the softmax-saturation view, after a prediction.',
    example: '<scaling-experiment></scaling-experiment>',
    json: false,
    attributes: [
      { name: 'seed', property: 'seed', type: 'integer', min: 0, max: 1e9, state: true, description: 'Random seed.' },
      { name: 'predict', property: 'predict', type: 'boolean', description: 'Ask for a prediction before showing results (default true).' },
    ],
    parts: [{ name: 'chart', description: 'Each chart.' }, { name: 'table', description: 'The numbers table.' }, { name: 'prompt', description: 'The predict-first prompt.' }],
    state: '{ samples: number, seed: number }',
  },
  'multihead-view': {
    className: 'MultiheadView',
    summary: 'Per-head heatmaps for h = 1, 2, 4, 8; loop versus batched; the forgotten head transpose, after a prediction.',
    example: '<multihead-view heads="2"></multihead-view>',
    json: true,
    attributes: [
      tokens('Words separated by spaces (at most 16).'),
      { name: 'heads', property: 'heads', type: 'enum', values: ['1', '2', '4', '8'], state: true, description: 'Number of heads to start with.' },
      { name: 'seed', property: 'seed', type: 'integer', min: 0, max: 1e9, description: 'Random seed of the embeddings and projections.' },
    ],
    parts: [{ name: 'heatmap', description: 'Each head\'s grid of weights.' }, { name: 'prompt', description: 'The predict-first prompt.' }],
    state: '{ heads: number, forget: boolean, diff: number, dkAnswered: boolean, transposeAnswered: boolean }',
  },
  'shape-tracer': {
    className: 'ShapeTracer',
    summary: 'The shape of every tensor through one attention layer; quiz mode hides each until predicted.',
    example: '<shape-tracer></shape-tracer>',
    json: false,
    attributes: [
      { name: 'batch', property: 'batch', type: 'integer', min: 1, max: 100000, state: true, description: 'Batch size.' },
      { name: 'n', property: 'n', type: 'integer', min: 1, max: 100000, state: true, description: 'Tokens per sequence.' },
      { name: 'd-model', property: 'dModel', type: 'integer', min: 1, max: 100000, state: true, description: 'Model width d_model.' },
      { name: 'heads', property: 'heads', type: 'integer', min: 1, max: 100000, state: true, description: 'Number of heads.' },
      { name: 'dk', property: 'dk', type: 'integer', min: 1, max: 100000, state: true, description: 'Key width per head; without dk and dv both follow d_model / heads.' },
      { name: 'dv', property: 'dv', type: 'integer', min: 1, max: 100000, state: true, description: 'Value width per head; without dk and dv both follow d_model / heads.' },
      { name: 'quiz', property: 'quiz', type: 'boolean', state: true, description: 'Start in quiz mode.' },
    ],
    parts: [{ name: 'table', description: 'The table of shapes.' }],
    state: '{ batch, n, dModel, heads, dk, dv: number, quiz: boolean, follow: boolean }',
  },
  'padding-mask': {
    className: 'PaddingMask',
    summary: 'A padded batch with its valid-length mask, and what happens without it.',
    example: '<padding-mask></padding-mask>',
    json: true,
    attributes: [],
    parts: [{ name: 'heatmap', description: 'Each sentence\'s grid of weights.' }],
    state: '{ forget: boolean, padWeight: number }',
  },
  'softmax-demo': {
    className: 'SoftmaxDemo',
    summary: 'Predict softmax([1000, 1001, 1002]), then see the naive and the safe computation.',
    example: '<softmax-demo></softmax-demo>',
    json: false,
    attributes: [
      { name: 'values', property: 'values', type: 'string', state: true, description: 'The inputs, separated by commas (1 to 12 numbers).' },
    ],
    parts: [{ name: 'table', description: 'The naive and safe rows.' }, { name: 'prompt', description: 'The predict-first prompt.' }],
    state: '{ values: string, revealed: boolean }',
  },
  'mistakes-lab': {
    className: 'MistakesLab',
    summary: 'Pick a classic mistake, predict which weights it changes, then compare the correct and mistaken weights, their difference, the symptom and the fix.',
    example: '<mistakes-lab></mistakes-lab>',
    json: false,
    attributes: [
      { name: 'mistake', property: 'mistake', type: 'enum', values: ['softmax-wrong-axis', 'mask-after-softmax', 'no-scaling', 'scale-by-dk', 'fp16-mask-fill', 'keys-not-transposed', 'no-causal-mask', 'no-padding-mask'],
        state: true, description: 'The mistake to show (names as in lab.MISTAKES).' },
      { name: 'predict', property: 'predict', type: 'boolean', description: 'Ask "which weights change?" before showing results (default true).' },
    ],
    parts: [{ name: 'heatmap', description: 'The correct, mistaken and difference grids.' }, { name: 'legend', description: 'Each colour legend.' }, { name: 'prompt', description: 'The predict-first prompt.' }],
    state: '{ mistake: string, pads: number, dk: number, revealed: boolean }',
  },
  'position-lab': {
    className: 'PositionLab',
    summary: 'How attention knows word order, one part per element, each predict-first: shuffle a sentence with and without positions and a causal mask; the sinusoidal table and PE(i)\u00b7PE(j) against i \u2212 j; RoPE\'s turning pairs, the score that stays when both positions move, and the layout mix-up; ALiBi\'s bias and slope per head.',
    example: '<position-lab part="rope"></position-lab>',
    json: false,
    attributes: [
      { name: 'part', property: 'partName', type: 'enum', values: ['shuffle', 'sinusoidal', 'rope', 'alibi'], default: 'shuffle', description: 'Which part to show: shuffle (reorder a sentence), sinusoidal (the table and its dot products), rope (rotary embeddings and the layout mix-up), alibi (each head\'s bias and slope). Its property is partName: the element\'s part property stays the platform\'s (::part names).' },
      tokens('shuffle: the sentence to reorder, 2 to 10 words separated by spaces (default "the dog bit the man"); the reader moves a token with the buttons or Alt+\u2190 / Alt+\u2192 on it, and the order is kept in the URL.'),
      { name: 'n', property: 'n', type: 'integer', min: 2, max: 64, description: 'sinusoidal: positions in the table (12 to 64, default 32); alibi: tokens per heatmap (2 to 12, default 6).' },
      { name: 'd', property: 'd', type: 'integer', min: 8, max: 64, default: 16, description: 'sinusoidal: dimensions of the table, an even number from 8 to 64.' },
      { name: 'heads', property: 'heads', type: 'integer', min: 1, max: 16, default: 8, description: 'alibi: how many heads (the paper\'s slopes for that many).' },
      { name: 'base', property: 'base', type: 'number', min: 2, max: 10000000, default: 10000, description: 'rope: the base of the frequencies, theta_i = base^(-2i/d) (the paper\'s 10000; Llama 3 uses 500000).' },
      { name: 'layout', property: 'layout', type: 'enum', values: ['interleaved', 'half'], default: 'interleaved', description: 'rope: the pair layout the vectors are turned in, interleaved (2i, 2i+1) or half-split (i, i + d/2); the mix-up switch turns q in the other one.' },
    ],
    parts: [{ name: 'prompt', description: 'The predict-first question.' }, { name: 'table', description: 'shuffle: each token\'s output row and its change.' },
      { name: 'heatmap', description: 'sinusoidal: the table; alibi: each head\'s bias.' }, { name: 'chart', description: 'sinusoidal: PE(i)\u00b7PE(j) against i \u2212 j.' },
      { name: 'dials', description: 'rope: the turning pairs of q and k.' }],
    state: '{ part: string, revealed: boolean, order: string | undefined, rope: boolean | undefined, causal: boolean | undefined, changes: number[] | undefined, m: number | undefined, n: number | undefined, shift: number | undefined, mixup: boolean | undefined, scores: number[] | undefined }',
  },
  'online-softmax-stepper': {
    className: 'OnlineSoftmaxStepper',
    summary: 'One query row processed block by block as a tiled kernel does: running max, rescale factor, running sum and output, then o / l beside ordinary attention.',
    example: '<online-softmax-stepper></online-softmax-stepper>',
    json: false,
    attributes: [
      tokens('Words separated by spaces (the keys; seeded vectors). Default: a twelve-word sentence.'),
      { name: 'query', property: 'query', type: 'string', state: true, description: 'The query token (its first occurrence).' },
      { name: 'block', property: 'block', type: 'integer', min: 1, max: 256, state: true, description: 'Keys per block (default 4; at most the number of tokens).' },
      { name: 'causal', property: 'causal', type: 'boolean', state: true, description: 'Start with the causal mask on.' },
      { name: 'window', property: 'window', type: 'integer', min: 1, max: 256, state: true, description: 'Sliding window: the query sees only the last `window` keys.' },
    ],
    parts: [{ name: 'steps', description: 'The list of steps (start, one per block, divide).' }, { name: 'prompt', description: 'The predict-first prompt of a block.' },
      { name: 'table', description: 'The running values before and after the current block.' }, { name: 'narration', description: 'The sentence that explains the current step.' }],
    state: '{ query: string, queryIndex: number, block: number, causal: boolean, window: number | null, step: string, stepIndex: number, blocks: number }',
  },
  'kv-cache-stepper': {
    className: 'KvCacheStepper',
    summary: 'Generate token by token with a KV cache: the cache grows a row per token, multiply-adds with and without it, the row checked against full causal attention, and GQA/MQA shrinking the cache.',
    example: '<kv-cache-stepper></kv-cache-stepper>',
    json: false,
    attributes: [
      tokens('Words separated by spaces (8 to 12), generated one per step; seeded vectors.'),
      { name: 'kv-heads', property: 'kvHeads', type: 'enum', values: ['4', '2', '1'], state: true, description: 'Key/value heads for the 4 query heads: 4 (multi-head), 2 (grouped-query) or 1 (multi-query).' },
    ],
    parts: [{ name: 'steps', description: 'The tokens, generated so far and still to come.' }, { name: 'cache', description: 'The pictures of the K and V caches.' },
      { name: 'heatmap', description: 'The newest query\'s weights over the cache.' }, { name: 'table', description: 'Multiply-adds with and without the cache.' },
      { name: 'prompt', description: 'The predict-first prompt.' }, { name: 'narration', description: 'The sentence that explains the current step.' }],
    state: '{ step: number, token: string, kvHeads: number, heads: number, length: number, bytes: number, multiplyAdds: number, diff: number, answered: boolean }',
  },
  'cost-lab': {
    className: 'CostLab',
    summary: 'Time and peak memory of full against tiled attention, measured in the reader\'s browser on log-log charts with fitted slopes; attention-matrix and KV-cache bytes for published model shapes.',
    example: '<cost-lab></cost-lab>',
    json: false,
    attributes: [
      { name: 'max-n', property: 'maxN', type: 'enum', values: ['1024', '2048', '4096', '8192', '16384'], default: '16384', state: true, description: 'Largest n of the sweep (64, 128, ... doubling); larger sizes run only as far as the engine can hold them and the time allows.' },
      { name: 'repeats', property: 'repeats', type: 'integer', min: 1, max: 9, default: 3, description: 'Runs per size; the chart shows their median.' },
      { name: 'preset', property: 'preset', type: 'enum', values: ['custom', 'gpt2-small', 'llama-2-7b', 'llama-2-70b', 'mistral-7b'], default: 'llama-2-7b', state: true, description: 'Model shape the calculator starts with.' },
      { name: 'worker', property: 'worker', type: 'enum', values: ['auto', 'off'], default: 'auto', description: 'auto: measure in a Web Worker made from a Blob, or on the page (in small steps, sizes capped) where the page\'s Content-Security-Policy forbids blob: workers; off: never try a worker (no CSP report on such pages).' },
      { name: 'predict', property: 'predict', type: 'boolean', description: 'Ask for a prediction before showing results (default true).' },
    ],
    parts: [{ name: 'prompt', description: 'The predict-first prompt.' }, { name: 'progress', description: 'The progress bar of the measurement.' }, { name: 'chart', description: 'Each chart.' }, { name: 'table', description: 'The measured numbers.' }, { name: 'traffic', description: 'The engine\'s counts of multiply-adds and floats read, written and held, per method.' }, { name: 'calculator', description: 'The memory calculator.' }],
    state: '{ maxN: string, preset: string, dtype: string, batch: number, heads: number, n: number, layers: number, kvHeads: number, dHead: number, ran: boolean, runner: string | null, predicted: string | null }',
  },
  'attention-trainer': {
    className: 'AttentionTrainer',
    summary: 'Train a small transformer in the page and watch a previous-token head and an induction head form together: the loss curve with the phase change marked, the heads\' scores at every step, and every head\'s weights on a fixed example; once trained and paused, knock heads out (predict first which the model needs) and see how they compose. Training pauses while the page\'s tab is hidden.',
    example: '<attention-trainer></attention-trainer>',
    json: false,
    attributes: [
      { name: 'heading', property: 'heading', type: 'string', description: 'The title above the trainer (default "Train a transformer and watch its heads form"): a page with several trainers names each.' },
      { name: 'task', property: 'task', type: 'enum', values: ['induction', 'copy', 'reverse', 'sort'], default: 'induction', state: true, description: 'What the model learns: induction (a block of random tokens, then its repeat; scored on the repeat), copy, reverse or sort (tokens, a separator, then the answer).' },
      { name: 'lr', property: 'lr', type: 'number', min: 0.000001, max: 100, default: 0.003, state: true, description: 'Adam\'s learning rate.' },
      { name: 'layers', property: 'layers', type: 'integer', min: 1, max: 8, default: 2, state: true, description: 'Attention layers (an induction head needs 2).' },
      { name: 'heads', property: 'heads', type: 'integer', min: 1, max: 16, default: 2, state: true, description: 'Heads per layer; each has d_model / heads dimensions (d_model is 32).' },
      { name: 'seed', property: 'seed', type: 'integer', min: 0, max: 9007199254740991, default: 1, state: true, description: 'Seed of the initial weights and of the training batches: the same seed gives the same run, however fast the machine. A link keeps the seed and the other settings, not a trained model: it trains again from the start.' },
      { name: 'steps', property: 'steps', type: 'integer', min: 10, max: 100000, default: 1500, description: 'Steps one press of Train runs before it stops (Continue runs as many again).' },
      { name: 'log-scale', property: 'logScale', type: 'boolean', state: true, description: 'Draw the loss on a log scale.' },
      { name: 'predict', property: 'predict', type: 'boolean', description: 'Ask the reader to predict, before training, which layer will hold the induction head and what the loss will do (default true; induction task only), and, before the knock-out mode, which heads the model cannot do without.' },
      { name: 'worker', property: 'worker', type: 'enum', values: ['auto', 'off'], default: 'auto', description: 'auto: train in a Web Worker (from the script\'s own address where it is on the page\'s origin, else from a Blob of its source), or on the page in slices under 50 ms where the page\'s policy allows no worker (read from its <meta> policy before anything is tried); off: always on the page.' },
    ],
    parts: [{ name: 'prompt', description: 'The predict-first questions.' }, { name: 'status', description: 'The line with the step, the loss and the speed.' }, { name: 'chart', description: 'The loss chart and the head-score chart.' }, { name: 'heads', description: 'The grid of every head\'s weights and scores.' },
      { name: 'knockout', description: 'The knock-out mode under the heads: a button a head, the loss on the repeat and the induction scores with those heads out (once the model has trained and is paused).' },
      { name: 'composition', description: 'How the heads compose: Q-, K- or V-composition of every earlier head into every later head as a heatmap, and each head\'s copying score.' }],
    state: '{ task: string, lr: number, layers: number, heads: number, seed: number, logScale: boolean, step: number, running: boolean, formedAt: number | null, runner: string | null, diverged: boolean, worseAt: number | null, knockedOut: number[][], knockoutMode: string, composition: string, knockout: { step: number, heads: number[][], mode: string, scoredLoss: number, loss: number, baselineScoredLoss: number } | null }',
    events: [{ name: 'al-head-formed', detail: '{ layer: number, head: number, step: number, score: number }',
      description: 'An induction head formed (induction task): the first step after which a head\'s induction score reached 0.5, from the engine\'s record of every step, so the same seed gives the same step however fast the machine is.' },
    { name: 'al-knockout', detail: '{ step: number, heads: number[][], mode: string, scoredLoss: number, loss: number, baselineScoredLoss: number }',
      description: 'The engine answered a knock-out (Trainer.ablate on the model as it is at `step`): the loss on the scored positions (the repeat) and on every position with `heads` knocked out, and the scored loss with every head.' }],
  },
  'position-race': {
    className: 'PositionRace',
    summary: 'The same small transformer trained on the induction task with each position scheme (learned, sinusoidal, RoPE, ALiBi, none), side by side and live: the step each forms a previous-token and an induction head, then its loss at each position of sequences 2x and 4x the training length. The learner ranks the schemes first. The run is fixed: `lab.TRAINER_DEFAULTS` with `positions` and seed 1, 1000 steps each; a head formed at the first step whose record (the best previous-token or induction score) reaches the trainer\'s `formedThreshold`. In the state, `steps`, `formed` and `lengths` are keyed by scheme: `formed.rope` is `{ previousToken, induction }` (steps, or null when none formed), `lengths.rope[64]` the mean loss from position 32 on in 64-token sequences (`\'refused\'` for the learned table, which has no vector there). It pauses while the page\'s tab is hidden.',
    example: '<position-race></position-race>',
    json: false,
    attributes: [
      { name: 'heading', property: 'heading', type: 'string', description: 'The title above the race (default "Five ways to know word order: a race").' },
      { name: 'predict', property: 'predict', type: 'boolean', description: 'Ask the learner, before the race, for each scheme\'s place in forming an induction head and which still work at 64 and 128 tokens (default true).' },
      { name: 'worker', property: 'worker', type: 'enum', values: ['auto', 'off'], default: 'auto', description: 'auto: train the five models in one Web Worker, in turns (from the script\'s own address where it is on the page\'s origin, else from a Blob), or on the page in slices under 50 ms where the page\'s policy allows no worker; off: always on the page.' },
    ],
    parts: [{ name: 'prompt', description: 'The predict-first table.' }, { name: 'controls', description: 'Start (Pause, Continue) and Reset.' }, { name: 'status', description: 'The line with the step and where the race runs.' },
      { name: 'table', description: 'Each scheme\'s formation steps and loss past the training length.' }, { name: 'chart', description: 'The loss chart and the loss-by-position chart.' }],
    state: '{ running: boolean, done: boolean, runner: string | null, steps: object, formed: object, lengths: object, predicted: string | null }',
  },
  'model-attention': {
    className: 'ModelAttention',
    summary: 'A model\'s attention over a sentence, every layer and head: the model view (a thumbnail per head, one opened as a full heatmap), the head view (lines between the tokens, a colour per head), the head summary (the engine\'s scores per head, sorted and filtered) and, with `model`, the knock-out (heads removed, the guesses and losses without them).',
    example: '<model-attention model></model-attention>',
    json: true,
    dataType: 'ModelAttentionData',
    methods: [{ name: 'setAttention', signature: '(value: ModelAttentionData): Promise<void>',
      description: 'Replaces the attention shown and redraws every view, keeping the reader\'s view, layer and heads where they still exist (for a model that runs in the page, or data fetched by the page: an element with no data waits for it); called before the widget is drawn, it waits for it; rejects with the widget\'s message, views unchanged, when the data is wrong.' }],
    attributes: [
      { name: 'src', property: 'src', type: 'string', description: 'A JSON file with the data, on the page\'s own origin (not from file://); a child JSON script or the data property wins over it.' },
      { name: 'model', property: 'model', type: 'string', description: 'Show a trained model reading the learner\'s own text instead of pasted data: empty (or "wordnet-small") for the shipped model, whose script (`attention-lab-model.js`, hosted beside `attention-lab.js`) the kit fetches when the element comes near, or the name of a model whose script is on the page. A text box and the model\'s five likeliest next tokens appear above the views.' },
      { name: 'predict', property: 'predict', type: 'boolean', description: 'Predict-first (with `model`): asks, on text whose last token came earlier, where the strongest induction head (by its prefix-matching score apart from the previous token, prefixMatchingApart) will look from that token; the views and guesses appear once the reader answers or skips, with that head open. With `view="knockout"` the knock-out\'s question is asked instead: the guesses appear once the reader has predicted whether a knock-out changes the likeliest next token. The knock-out tab asks that question for each new set of heads on each text whether or not `predict` is set, until the reader skips it.' },
      { name: 'text', property: 'text', type: 'string', state: true, description: 'With `model`: the text the box starts with (default "a part of the body of a person. a part of the body of a"); the reader\'s own text is kept in the URL.' },
      { name: 'view', property: 'view', type: 'enum', values: ['model', 'heads', 'summary', 'knockout'], default: 'model', state: true, description: 'The view shown first: the model view, the head view, the head summary, or (with `model`) the knock-out, where the reader knocks heads out of the model on their text, predicts first whether the top guess survives, and sees the engine\'s guesses and loss without those heads (model.ablate). A link keeps the heads and the mode.' },
      { name: 'open', property: 'open', type: 'string', state: true, description: 'A head to open in the model view, as layer.head counted from 0 ("5.1": layer 5, head 1).' },
    ],
    parts: [{ name: 'input', description: 'The row above the views with the model\'s text box (hidden for pasted data).' }, { name: 'guesses', description: 'The model\'s five likeliest next tokens, with bars.' }, { name: 'heatmap', description: 'The open head\'s grid (or canvas) of weights.' },
      { name: 'legend', description: 'The open head\'s colour legend.' }],
    state: '{ view: string, layer: number | null, head: number | null, headViewLayer: number, heads: number[], sort: string, dir: string, filter: string, min: number, pair: string, waiting: boolean, knockout: number[][] | undefined, knockoutMode: string | undefined }',
  },
};

/** Every attribute of a widget, its own and the common ones. */
function attributesOf(tag) {
  return [...WIDGETS[tag].attributes, ...COMMON_ATTRIBUTES];
}

module.exports = { WIDGETS, COMMON_ATTRIBUTES, COMMON_EVENTS, COMMON_PARTS, CSS_PROPERTIES, attributesOf };
