// The model picker and the first-run download. A model the browser keeps loads at once (offline
// too). Any other is not downloaded behind the person's back: the panel shows its size — the
// catalogue's estimate at once, the exact bytes when the hub answers — with a warning and a
// Download button; then a byte progress bar and Cancel.
import { formatBytes, listCachedModels, LoadAbortedError, modelDownloadSize, type ModelInfo, type WorkerEngine } from '@sieve/runtime/client';
import { estimatedBytes, FORMS_MODELS, formsModel, isCached, modelDtype, modelLoadOptions, type FormsModel } from './models.ts';

/** What the panel tells the page. */
export interface ModelPanelEvents {
  /** A load starts (the model cannot fill until `ready`). */
  loading(model: FormsModel): void;
  ready(info: ModelInfo, model: FormsModel): void;
  failed(error: unknown): void;
  /** The person picked another model in the picker. */
  picked(model: FormsModel): void;
}

/** Where the panel loads from and what the browser has. */
export interface ModelPanelOptions {
  /** Where hub ids are downloaded from (`?hub=`; default the Hugging Face hub). */
  readonly hub: string;
  /** The browser has a WebGPU adapter (decides the dtype, so the size and the cached files). */
  readonly webgpu: boolean;
  readonly here: (path: string) => string;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

export class ModelPanel {
  readonly #engine: WorkerEngine;
  readonly #options: ModelPanelOptions;
  readonly #events: ModelPanelEvents;
  readonly #status = $('engine-status');
  readonly #picker = $<HTMLSelectElement>('model');
  #model: FormsModel;
  // The load or size request in progress, stopped when the person picks another model.
  #work: AbortController | null = null;
  #loading: Promise<unknown> = Promise.resolve();

  constructor(engine: WorkerEngine, initial: FormsModel, options: ModelPanelOptions, events: ModelPanelEvents) {
    this.#engine = engine;
    this.#options = options;
    this.#events = events;
    this.#model = initial;
    this.#picker.replaceChildren(
      ...FORMS_MODELS.map((model) => {
        const size = estimatedBytes(model, options.webgpu);
        return new Option(`${model.name}${size === null ? '' : ` — about ${formatBytes(size)}`}`, model.id);
      }),
    );
    this.#picker.addEventListener('change', () => {
      const model = formsModel(this.#picker.value);
      if (model === undefined) return;
      events.picked(model);
      void this.choose(model);
    });
    $('download-start').addEventListener('click', () => void this.#load(this.#model, true));
    $('download-cancel').addEventListener('click', () => this.#work?.abort());
  }

  /** The model picked (loaded, loading or waiting for its download). */
  get model(): FormsModel {
    return this.#model;
  }

  /** Picks `model`: loads it if the browser keeps it, else offers its download. */
  async choose(model: FormsModel): Promise<void> {
    // What was under way for the last model ends without a word (it is no longer shown).
    const previous = this.#work;
    this.#work = null;
    previous?.abort();
    await this.#loading;
    this.#model = model;
    this.#picker.value = model.id;
    const cached = isCached(model, this.#options.webgpu, await listCachedModels().catch(() => []));
    document.body.dataset.modelCached = String(cached);
    if (cached) return this.#load(model, false);
    this.#offerDownload(model, '');
  }

  // The first-run screen: the size (estimated, then exact) and the Download button.
  #offerDownload(model: FormsModel, note: string): void {
    this.#events.loading(model);
    this.#setStatus('needs-download', `${model.name} needs a download before it can fill forms.${note === '' ? '' : ` ${note}`}`);
    $('download').hidden = false;
    $('download-name').textContent = model.name;
    $('download-source').textContent = new URL(this.#options.hub).host;
    $('download-start').hidden = false;
    $('download-cancel').hidden = true;
    $('download-progress').hidden = true;
    $('download-bytes').textContent = '';
    const dtype = modelDtype(model, this.#options.webgpu);
    const size = $('download-size');
    size.dataset.dtype = dtype;
    size.dataset.exact = 'false';
    size.textContent = `about ${formatBytes(estimatedBytes(model, this.#options.webgpu)!)}`;
    const work = (this.#work = new AbortController());
    modelDownloadSize(model.id, dtype, { hub: this.#options.hub, signal: work.signal }).then(
      ({ bytes }) => {
        if (this.#work !== work || this.#model !== model) return;
        size.textContent = formatBytes(bytes);
        size.dataset.exact = 'true';
        size.dataset.bytes = String(bytes);
      },
      // The hub cannot be reached now: the estimate stays.
      () => undefined,
    );
  }

  async #load(model: FormsModel, downloading: boolean): Promise<void> {
    this.#work?.abort();
    const work = (this.#work = new AbortController());
    this.#events.loading(model);
    this.#setStatus(downloading ? 'downloading' : 'loading', `${downloading ? 'Downloading' : 'Loading'} ${model.name}…`);
    $('download-start').hidden = true;
    $('download-cancel').hidden = !downloading;
    const progress = $<HTMLProgressElement>('download-progress');
    progress.hidden = !downloading;
    progress.value = 0;
    const exact = Number($('download-size').dataset.bytes ?? 0);
    const load = this.#engine.load({
      ...modelLoadOptions(model, this.#options.webgpu, this.#options.hub, this.#options.here),
      signal: work.signal,
      onProgress: (p) => {
        if (p.kind !== 'total' || p.totalBytes === 0) return;
        // The total grows as files start; the hub's exact size is known from the start.
        progress.max = Math.max(p.totalBytes, exact);
        progress.value = p.loadedBytes;
        $('download-bytes').textContent = `${formatBytes(p.loadedBytes)} of ${formatBytes(progress.max)}`;
        // Downloaded: what is left (starting onnxruntime) cannot be cancelled.
        if (exact > 0 && p.loadedBytes >= exact) $('download-cancel').hidden = true;
        if (!downloading) this.#status.textContent = `Loading ${model.name}… ${Math.round((100 * p.loadedBytes) / progress.max)}%`;
      },
    });
    this.#loading = load.catch(() => undefined);
    try {
      const info = await load;
      if (this.#work !== work) return;
      $('download').hidden = true;
      this.#events.ready(info, model);
    } catch (error) {
      if (this.#work !== work) return;
      if (error instanceof LoadAbortedError) this.#offerDownload(model, 'The download was cancelled.');
      else if (downloading) this.#offerDownload(model, `The download failed: ${error instanceof Error ? error.message : String(error)}`);
      else this.#events.failed(error);
    } finally {
      if (this.#work === work) this.#work = null;
    }
  }

  #setStatus(state: string, text: string): void {
    this.#status.dataset.state = state;
    this.#status.textContent = text;
  }
}
