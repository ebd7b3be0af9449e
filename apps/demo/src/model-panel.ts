// The model panel: pick a model (the catalogue, stories260K, any hub id, any folder of this
// page's server) and its weights for the device that will run it; see what it costs before
// downloading (an estimate at once, then the exact bytes from the hub, or that the browser has
// it cached, with a button to delete it); load it with a byte progress bar; cancel the load.
import {
  catalogueModel,
  deleteCachedModel,
  estimatedDownloadBytes,
  formatBytes,
  listCachedModels,
  LoadAbortedError,
  MODEL_CATALOGUE,
  modelDownloadSize,
  modelFiles,
  type DeviceChoice,
  type LoadProgress,
  type ModelInfo,
  type WorkerEngine,
} from '@sieve/runtime/client';
import { catalogueEntry, defaultDtype, DTYPES, formatCount, fromHub, modelName, prebuiltVocab, type Dtype, type ModelChoice } from './model-choice.ts';

/** What the page hears from the panel. */
export interface ModelPanelEvents {
  /** A load starts: until it ends no model is there. */
  readonly loading: () => void;
  /** A load ended: the model, or null when it failed or was cancelled. */
  readonly loaded: (model: ModelInfo | null) => void;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
const here = (path: string): string => new URL(path, location.href).href;
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

type GpuAdapter = { info?: { vendor?: string; architecture?: string; description?: string } };
let adapter: Promise<GpuAdapter | null> | undefined;
/** The browser's WebGPU adapter, or null (asked once). */
function gpuAdapter(): Promise<GpuAdapter | null> {
  const gpu = (navigator as { gpu?: { requestAdapter(): Promise<GpuAdapter | null> } }).gpu;
  adapter ??= gpu === undefined ? Promise.resolve(null) : gpu.requestAdapter().catch(() => null);
  return adapter;
}

/** Which device a load on `choice` will run on: WebGPU when asked for (or auto) and there is an adapter. */
async function runningDevice(choice: DeviceChoice): Promise<'webgpu' | 'wasm'> {
  return choice !== 'wasm' && choice !== 'cpu' && (await gpuAdapter()) !== null ? 'webgpu' : 'wasm';
}

/** "… runs on WebGPU (adapter) / on WASM — why. N-token vocabulary, loaded in S s." */
export async function deviceDescription(info: ModelInfo): Promise<string> {
  const size = `${info.tokenCount.toLocaleString('en-US')}-token vocabulary, loaded in ${(info.loadMs / 1000).toFixed(1)} s`;
  if (info.device !== 'webgpu') return `${info.id} runs on WASM${info.fallbackReason === null ? '' : ` — ${info.fallbackReason}`}. ${size}.`;
  const gpu = await gpuAdapter();
  const name = [gpu?.info?.vendor, gpu?.info?.architecture, gpu?.info?.description].filter(Boolean).join(' ');
  return `${info.id} runs on WebGPU${name ? ` (${name})` : ''}. ${size}.`;
}

function vocabDescription(info: ModelInfo, given: string | null): string {
  switch (info.vocabOrigin) {
    case 'given':
      return `Vocab index: given — the prebuilt ${given}, proved to be this tokenizer's.`;
    case 'built':
      return "Vocab index: built — from the model's tokenizer.json in the browser, and kept in the cache for the next load.";
    case 'cached':
      return 'Vocab index: cached — built from this tokenizer on an earlier load.';
  }
}

export class ModelPanel {
  readonly #engine: WorkerEngine;
  readonly #events: ModelPanelEvents;
  readonly #hub: string | null;
  readonly #picker = $<HTMLSelectElement>('model');
  readonly #custom = $<HTMLInputElement>('custom-model');
  readonly #device = $<HTMLSelectElement>('device');
  readonly #dtype = $<HTMLSelectElement>('dtype');
  readonly #size = $('model-size');
  readonly #progress = $<HTMLProgressElement>('progress');
  readonly #progressText = $('progress-text');
  readonly #vocabInfo = $('vocab-info');
  readonly #info = $('device-info');
  // The size being asked for (a newer pick aborts it), the load under way, and the exact
  // download size of the pick when the hub told it.
  #sizing: AbortController | null = null;
  #loading: AbortController | null = null;
  #exactBytes = 0;

  /** `hub`: where hub ids download from (null: the Hugging Face hub). */
  constructor(engine: WorkerEngine, events: ModelPanelEvents, hub: string | null) {
    this.#engine = engine;
    this.#events = events;
    this.#hub = hub;
    this.#picker.replaceChildren(
      optionGroup('On this page', [new Option('stories260K (local, 1 MB)', 'stories')]),
      optionGroup(
        hub === null ? 'From the Hugging Face hub' : `From the hub at ${hub}`,
        MODEL_CATALOGUE.map((m) => new Option(`${m.name} (${formatCount(m.parameters)} parameters)`, m.id)),
      ),
      optionGroup('Other', [new Option('A hub id…', 'hub'), new Option('A folder on this server…', 'folder')]),
    );
    this.#dtype.append(...DTYPES.map((dtype) => new Option(dtype, dtype)));
    this.#picker.addEventListener('change', () => this.#picked());
    this.#device.addEventListener('change', () => void this.#pickDtype());
    this.#custom.addEventListener('change', () => this.#picked());
    this.#dtype.addEventListener('change', () => void this.#showSize());
    $('load').addEventListener('click', () => void this.load());
    $('cancel').addEventListener('click', () => this.#loading?.abort());
    $('delete-cached').addEventListener('click', () => void this.#deleteCached());
    this.#picked();
  }

  /** The current pick. */
  get choice(): ModelChoice {
    const value = this.#picker.value;
    const typed = this.#custom.value.trim();
    if (value === 'stories') return { kind: 'stories' };
    if (value === 'hub') return { kind: 'hub', id: typed };
    if (value === 'folder') return { kind: 'folder', path: typed };
    return { kind: 'catalogue', model: catalogueModel(value)! };
  }

  #picked(): void {
    const kind = this.#picker.value;
    $('custom-field').hidden = kind !== 'hub' && kind !== 'folder';
    $('custom-label').textContent = kind === 'folder' ? 'Folder' : 'Hub id';
    this.#custom.placeholder = kind === 'folder' ? '/models/my-model' : 'onnx-community/Qwen2.5-0.5B-Instruct';
    const entry = catalogueEntry(this.choice);
    const vocab = prebuiltVocab(this.choice);
    $('model-facts').textContent =
      entry === undefined
        ? kind === 'folder'
          ? "A folder of this page's server in the transformers.js layout (config.json, tokenizer.json, onnx/model*.onnx)."
          : ''
        : `${entry.name}: ${formatCount(entry.parameters)} parameters, ${entry.contextLength.toLocaleString('en-US')}-token context, ${entry.tokenizer} tokenizer — ${vocab === null ? 'its vocab index is built in the browser at the first load' : `prebuilt vocab index ${vocab}`}.`;
    void this.#pickDtype();
  }

  // The dtype the pick wants on the device that will run it; then its size.
  async #pickDtype(): Promise<void> {
    const device = await runningDevice(this.#device.value as DeviceChoice);
    this.#dtype.value = defaultDtype(this.choice, device) ?? '';
    this.#dtype.title = `the default for ${device === 'webgpu' ? 'WebGPU' : 'WASM'}`;
    await this.#showSize();
  }

  #dtypeChosen(): Dtype | null {
    return this.#dtype.value === '' ? null : (this.#dtype.value as Dtype);
  }

  #showSizeText(state: string, text: string, bytes = 0): void {
    this.#size.textContent = text;
    this.#size.dataset.state = state;
    this.#size.dataset.bytes = String(bytes);
  }

  // The download size: estimated at once (catalogue models), then "cached" or the exact bytes
  // from the hub. A newer pick aborts an older one's requests.
  async #showSize(): Promise<void> {
    this.#sizing?.abort();
    const sizing = (this.#sizing = new AbortController());
    const choice = this.choice;
    const dtype = this.#dtypeChosen();
    const id = modelName(choice);
    this.#exactBytes = 0;
    $('delete-cached').hidden = true;
    if (!fromHub(choice)) return this.#showSizeText('local', "From this page's server: its size shows as it loads.");
    if (id === '') return this.#showSizeText('none', 'Type a hub id.');
    if (dtype === null) return this.#showSizeText('unknown', 'Pick the weights to see the download size.');
    const entry = catalogueEntry(choice);
    const estimate = entry === undefined ? null : `≈ ${formatBytes(estimatedDownloadBytes(entry, dtype))}, estimate`;
    this.#showSizeText('estimate', `${estimate ?? 'Asking the hub for the size'}…`);
    try {
      const cached = (await listCachedModels()).find((model) => model.id === id);
      if (sizing.signal.aborted) return;
      $('delete-cached').hidden = cached === undefined;
      if (cached !== undefined && modelFiles(dtype).every((file) => cached.files.includes(file))) {
        return this.#showSizeText('cached', `Cached in this browser (${formatBytes(cached.bytes)}): no download.`, cached.bytes);
      }
      const exact = await modelDownloadSize(id, dtype, { signal: sizing.signal, ...(this.#hub === null ? {} : { hub: this.#hub }) });
      if (sizing.signal.aborted) return;
      this.#exactBytes = exact.bytes;
      this.#showSizeText('exact', `${formatBytes(exact.bytes)} to download (${exact.files.length} files, exact).`, exact.bytes);
    } catch (error) {
      if (sizing.signal.aborted) return;
      this.#showSizeText('error', `${estimate === null ? '' : `${estimate}; `}the exact size is unknown: ${messageOf(error)}`);
    }
  }

  async #deleteCached(): Promise<void> {
    const id = modelName(this.choice);
    try {
      await deleteCachedModel(id);
    } catch (error) {
      this.#showSizeText('error', `Could not delete ${id} from this browser: ${messageOf(error)}`);
      return;
    }
    await this.#showSize();
  }

  /** Loads the pick; a failure or a cancel is said on the page, and the panel stays usable. */
  async load(): Promise<void> {
    const choice = this.choice;
    const dtype = this.#dtypeChosen();
    const vocab = prebuiltVocab(choice);
    const loading = (this.#loading = new AbortController());
    const progressBox = $('progress-box');
    $<HTMLButtonElement>('load').disabled = true;
    $<HTMLButtonElement>('cancel').disabled = false;
    progressBox.hidden = false;
    this.#progress.removeAttribute('value'); // indeterminate until the first bytes
    this.#progressText.textContent = this.#progressText.dataset.bytes = '';
    this.#vocabInfo.textContent = '';
    delete this.#vocabInfo.dataset.origin;
    this.#info.textContent = 'Loading…';
    this.#info.dataset.state = 'loading';
    this.#events.loading();
    try {
      const model = await this.#engine.load({
        model: modelName(choice),
        device: this.#device.value as DeviceChoice,
        kernel: here('/kernel.wasm'),
        wasmPaths: here('/ort/'),
        ...(dtype === null ? {} : { dtype }),
        ...(vocab === null ? {} : { vocab: here(vocab) }),
        ...(this.#hub === null ? {} : { hub: this.#hub }),
        signal: loading.signal,
        onProgress: (progress) => this.#showProgress(progress),
      });
      this.#info.textContent = await deviceDescription(model);
      this.#info.dataset.state = model.device;
      this.#progressText.textContent = this.#progressText.dataset.bytes ?? '';
      this.#vocabInfo.textContent = vocabDescription(model, vocab);
      this.#vocabInfo.dataset.origin = model.vocabOrigin;
      this.#events.loaded(model);
    } catch (error) {
      const cancelled = error instanceof LoadAbortedError;
      this.#info.textContent = cancelled ? 'Loading cancelled: no model is loaded.' : `Could not load the model: ${messageOf(error)}`;
      this.#info.dataset.state = cancelled ? 'cancelled' : 'error';
      this.#events.loaded(null);
    } finally {
      this.#loading = null;
      $<HTMLButtonElement>('load').disabled = false;
      $<HTMLButtonElement>('cancel').disabled = true;
      if (fromHub(choice)) void this.#showSize(); // now cached, or partly
    }
  }

  /** Whether loading is allowed now (not while a generation holds the engine). */
  set loadEnabled(enabled: boolean) {
    $<HTMLButtonElement>('load').disabled = !enabled || this.#loading !== null;
  }

  // Bytes so far of all files; of the exact size when the hub told it (files are only counted
  // once they start).
  #showProgress(progress: LoadProgress): void {
    const text = this.#progressText;
    if (progress.kind === 'ready') {
      text.textContent = `${text.dataset.bytes ?? ''} — preparing the vocab index…`;
      return;
    }
    if (progress.kind !== 'total') return;
    const total = Math.max(progress.totalBytes, this.#exactBytes);
    if (total === 0) return;
    this.#progress.max = total;
    this.#progress.value = progress.loadedBytes;
    text.textContent = text.dataset.bytes = `${formatBytes(progress.loadedBytes)} of ${formatBytes(total)}`;
  }
}

function optionGroup(label: string, options: readonly HTMLOptionElement[]): HTMLOptGroupElement {
  const group = document.createElement('optgroup');
  group.label = label;
  group.append(...options);
  return group;
}
