/**
 * `<sieve-output>`: generates text that a JSON Schema or grammar allows, with a model running
 * in a Web Worker (Sieve's engine), and streams it into the page.
 *
 *   <sieve-output model="/models/stories260K" kind="regex" constraint="[0-9]{4}-[0-9]{2}-[0-9]{2}"
 *                 prompt="Today is" autostart></sieve-output>
 *
 * The output is light DOM (an <output slot="output"> the element fills), so page styles and
 * assistive technology see it; the rest is styled through CSS parts.
 */
import { css, html, LitElement, type PropertyValues } from 'lit';
import {
  createWorkerEngine,
  type ConstraintSpec,
  type GenerateResult,
  type LoadProgress,
  type ModelInfo,
  type TokenEvent,
  type WorkerEngine,
} from '@sieve/runtime/client';

/** Constraint kinds the element takes. */
export type SieveOutputKind = 'json-schema' | 'json' | 'regex' | 'gbnf' | 'lark' | 'ebnf';
const KINDS: readonly SieveOutputKind[] = ['json-schema', 'json', 'regex', 'gbnf', 'lark', 'ebnf'];

// Set by the bundle's build (vite.config.ts): the bundle carries kernel.wasm and ort/ beside
// it, so by default it loads them from there; the unbundled element from the page's root,
// where `sieveApp()` serves them.
declare const __SIEVE_ELEMENT_BUNDLE__: boolean | undefined;
// (The module's folder by string: Vite would read `new URL('.', import.meta.url)` as an asset.)
const DEFAULT_ASSETS =
  typeof __SIEVE_ELEMENT_BUNDLE__ !== 'undefined' && __SIEVE_ELEMENT_BUNDLE__ ? import.meta.url.slice(0, import.meta.url.lastIndexOf('/') + 1) : '/';

// One engine per model setup, shared by every element on the page.
const engines = new Map<string, { engine: WorkerEngine; ready: Promise<ModelInfo>; progress: Set<(p: LoadProgress) => void> }>();

function engineFor(key: { model: string; device: string; dtype: string; vocab: string; assets: string }): {
  engine: WorkerEngine;
  ready: Promise<ModelInfo>;
  progress: Set<(p: LoadProgress) => void>;
} {
  const id = JSON.stringify(key);
  let entry = engines.get(id);
  if (entry === undefined) {
    const engine = createWorkerEngine(() => new Worker(new URL('./engine-worker.js', import.meta.url), { type: 'module' }));
    const progress = new Set<(p: LoadProgress) => void>();
    const base = new URL(key.assets.endsWith('/') ? key.assets : `${key.assets}/`, document.baseURI);
    // A local folder is resolved against the page, not the worker's script.
    const model = /^[./]/.test(key.model) ? new URL(key.model, document.baseURI).pathname : key.model;
    const ready = engine.load({
      model,
      device: key.device as 'auto',
      ...(key.dtype === '' ? {} : { dtype: key.dtype as 'fp32' }),
      kernel: new URL('kernel.wasm', base).href,
      wasmPaths: new URL('ort/', base).href,
      ...(key.vocab === '' ? {} : { vocab: new URL(key.vocab, document.baseURI).href }),
      onProgress: (p) => progress.forEach((listener) => listener(p)),
    });
    entry = { engine, ready, progress };
    engines.set(id, entry);
    // A failed load is not kept (nor its worker): the next element (or attempt) tries again.
    ready.catch(() => {
      engines.delete(id);
      void engine.dispose();
    });
  }
  return entry;
}

export class SieveOutput extends LitElement {
  static override properties = {
    model: { type: String },
    kind: { type: String },
    constraint: {},
    flags: { type: String },
    prompt: { type: String },
    maxTokens: { type: Number, attribute: 'max-tokens' },
    temperature: { type: Number },
    seed: { type: Number },
    device: { type: String },
    dtype: { type: String },
    vocab: { type: String },
    assets: { type: String },
    autostart: { type: Boolean },
    status: { state: true },
    loaded: { state: true },
  };

  /** The element's own styles; restyle it through its CSS parts (`output`, `status`, `progress`). */
  static override styles = css`
    :host {
      display: block;
    }
    [part='output'] {
      white-space: pre-wrap;
      font-family: ui-monospace, monospace;
    }
    [part='status'] {
      font-size: 0.85em;
      opacity: 0.75;
    }
    progress[hidden] {
      display: none;
    }
  `;

  /** A hub id or a local model folder (a URL path starting with / or .). */
  model = '';
  kind: SieveOutputKind = 'json-schema';
  /** The JSON Schema (object or JSON text) or grammar text; else the text of a child <script>. */
  constraint: unknown = undefined;
  /** A regex constraint's RegExp flags (`u` for `\\p{L}` or astral characters). */
  flags: string | undefined = undefined;
  prompt = '';
  maxTokens = 256;
  temperature = 1;
  seed: number | undefined = undefined;
  device: 'auto' | 'webgpu' | 'wasm' = 'auto';
  /** Weights' data type (`fp32`, `fp16`, `q8`, `q4`…); default: the model's. */
  dtype = '';
  /** The tokenizer's vocab index URL (`sieve vocab build`); built at load when empty. */
  vocab = '';
  /** Where kernel.wasm and ort/ are served (default: beside the bundle, `@sieve/element/bundle`; else the page's root). */
  assets = DEFAULT_ASSETS;
  /** Generate as soon as connected. */
  autostart = false;
  protected status = 'idle';
  protected loaded = 0;

  #output: HTMLOutputElement | null = null;
  #abort: AbortController | null = null;

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.#output === null) {
      this.#output = document.createElement('output');
      this.#output.slot = 'output';
      this.append(this.#output);
    }
  }

  protected override firstUpdated(changed: PropertyValues): void {
    super.firstUpdated(changed);
    if (this.autostart) void this.generate().catch(() => undefined);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.stop();
  }

  /** The text generated so far. */
  get value(): string {
    return this.#output?.textContent ?? '';
  }

  /** Generates (again); resolves with the result, and fires `done` (or `error`). */
  async generate(): Promise<GenerateResult> {
    this.#abort?.abort(); // a running generation is replaced: its late events are ignored
    const abort = (this.#abort = new AbortController());
    const output = this.#output!;
    output.textContent = '';
    try {
      if (this.model === '') throw new TypeError('<sieve-output> needs a model attribute');
      const constraint = this.#constraintSpec();
      const { engine, ready, progress } = engineFor({ model: this.model, device: this.device, dtype: this.dtype, vocab: this.vocab, assets: this.assets });
      const onProgress = (p: LoadProgress): void => {
        if (p.kind === 'total') this.loaded = p.totalBytes > 0 ? p.loadedBytes / p.totalBytes : 0;
        this.status = p.kind === 'ready' ? 'loaded' : 'loading';
      };
      progress.add(onProgress);
      this.status = 'loading';
      const info = await ready.finally(() => progress.delete(onProgress));
      this.status = `generating on ${info.device}`;
      const result = await engine.generate({
        prompt: this.prompt,
        ...(constraint === undefined ? {} : { constraint }),
        maxTokens: this.maxTokens,
        sampling: { temperature: this.temperature, ...(this.seed === undefined ? {} : { seed: this.seed }) },
        signal: abort.signal,
        onToken: (event: TokenEvent) => {
          if (this.#abort !== abort) return; // a run replaced by a newer one
          output.textContent += event.text;
          this.dispatchEvent(new CustomEvent('token', { detail: event }));
        },
      });
      if (this.#abort !== abort) return result;
      // The final text (token healing and stop strings can differ from the streamed pieces).
      output.textContent = result.text;
      this.status = `done (${result.stopReason}, ${result.tokens.length} tokens)`;
      this.dispatchEvent(new CustomEvent('done', { detail: result }));
      return result;
    } catch (error) {
      if (this.#abort !== abort) throw error;
      this.status = `error: ${error instanceof Error ? error.message : String(error)}`;
      this.dispatchEvent(new CustomEvent('error', { detail: error }));
      throw error;
    } finally {
      if (this.#abort === abort) this.#abort = null;
    }
  }

  /** Stops a generation in progress (it resolves with what was written, stop reason `abort`). */
  stop(): void {
    // The run stays current: it finishes with what was written (stop reason `abort`) and fires `done`.
    this.#abort?.abort();
  }

  protected override render(): unknown {
    return html`<progress part="progress" max="1" .value=${this.loaded} ?hidden=${this.status !== 'loading'}></progress>
      <div part="output"><slot name="output"></slot></div>
      <div part="status" role="status">${this.status}</div>`;
  }

  #constraintSpec(): ConstraintSpec | undefined {
    if (!KINDS.includes(this.kind)) throw new TypeError(`kind must be one of ${KINDS.join(', ')}, not ${JSON.stringify(this.kind)}`);
    const source = this.constraint ?? this.querySelector('script')?.textContent ?? undefined;
    if (this.kind === 'json') return { type: 'json' };
    if (source === undefined || source === '') return undefined;
    if (this.kind === 'json-schema') return { type: 'json-schema', schema: typeof source === 'string' ? (JSON.parse(source) as unknown) : source };
    if (typeof source !== 'string') throw new TypeError(`a ${this.kind} constraint is grammar text`);
    if (this.flags !== undefined && this.kind !== 'regex') throw new TypeError(`flags apply to a regex constraint, not ${this.kind}`);
    return this.kind === 'regex'
      ? { type: 'regex', grammar: source, ...(this.flags === undefined ? {} : { flags: this.flags }) }
      : { type: this.kind, grammar: source };
  }
}

if (!customElements.get('sieve-output')) customElements.define('sieve-output', SieveOutput);

declare global {
  interface HTMLElementTagNameMap {
    'sieve-output': SieveOutput;
  }
}
