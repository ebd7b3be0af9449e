// Sieve forms: paste text, the model in a Web Worker fills the form under its JSON Schema,
// the person edits and exports. Every change is saved to IndexedDB as it happens.
import { Validator } from '@cfworker/json-schema';
import { createWorkerEngine, JsonSchema, type ConstraintInput, type ModelInfo } from '@sieve/runtime/client';
import { customForms, getSetting, loadDraft, saveCustomForm, saveDraft, setSetting } from './drafts.ts';
import { formPrompt } from './form-prompt.ts';
import { BUILT_IN_FORMS, type FormDefinition } from './forms.ts';
import { FormView } from './form-view.ts';
import { ModelPanel } from './model-panel.ts';
import { DEFAULT_MODEL_ID, formsModel, modelTokenizer, templateOptions, type FormsModel } from './models.ts';
import { partialJson } from './partial-json.ts';
import { explainSchemaError } from './schema-errors.ts';

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
const here = (path: string): string => new URL(path, location.href).href;

const engineStatus = $('engine-status');
const pasted = $<HTMLTextAreaElement>('pasted');
const fillStatus = $('fill-status');
const forms: FormDefinition[] = [...BUILT_IN_FORMS];
let current: FormDefinition = forms[0]!;
let view: FormView | null = null;
let model: ModelInfo | null = null;
let running: AbortController | null = null;
let panel: ModelPanel | null = null;
const params = new URLSearchParams(location.search);

// A crashed or killed worker is restarted by the engine (at most 3 times in a row; a fill that
// completes resets the count); the page keeps its state, and the draft is in IndexedDB.
const engine = createWorkerEngine(() => new Worker(new URL('./engine-worker.ts', import.meta.url), { type: 'module' }), {
  onCrash: (error, restarting) => {
    if (!restarting) return failed(error);
    model = null;
    $<HTMLButtonElement>('fill').disabled = true;
    document.body.dataset.restarts = String(Number(document.body.dataset.restarts ?? 0) + 1);
    engineStatus.textContent = 'The model stopped unexpectedly; restarting it… (your draft is safe)';
    engineStatus.dataset.state = 'loading';
  },
  onRestart: (outcome) => (outcome.status === 'fulfilled' ? ready(outcome.value) : failed(outcome.reason)),
});

function ready(info: ModelInfo | null): void {
  model = info;
  const name = panel?.model.name ?? info?.id;
  engineStatus.textContent =
    info === null ? 'No model.' : `Ready: ${name} on ${info.device === 'webgpu' ? 'WebGPU' : `WASM${info.fallbackReason ? ` (${info.fallbackReason})` : ''}`}.`;
  engineStatus.dataset.state = 'ready';
  $<HTMLButtonElement>('fill').disabled = info === null;
}

// A model is being loaded or waits for its download: no fill until it is ready.
function notReady(): void {
  running?.abort();
  model = null;
  $<HTMLButtonElement>('fill').disabled = true;
}

function failed(error: unknown): void {
  model = null;
  $<HTMLButtonElement>('fill').disabled = true;
  engineStatus.textContent = `The model could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
  engineStatus.dataset.state = 'error';
}

// ---------------------------------------------------------------------------------------
// Forms: the list, the selected form and its draft.

function renderList(): void {
  $('form-list').replaceChildren(
    ...forms.map((form) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.textContent = form.title;
      button.dataset.form = form.id;
      button.setAttribute('aria-current', String(form.id === current.id));
      button.addEventListener('click', () => void select(form));
      item.append(button);
      return item;
    }),
  );
}

async function select(form: FormDefinition): Promise<void> {
  running?.abort();
  // The draft is read before anything changes, so a save in between cannot overwrite it.
  const draft = await loadDraft(form.id);
  const formView = new FormView($('form'), form.schema, () => void changed());
  current = form;
  view = formView;
  void setSetting('current', form.id);
  renderList();
  $('form-title').textContent = form.title;
  $<HTMLButtonElement>('sample').hidden = form.sample === '';
  pasted.value = draft?.pasted ?? '';
  view.value = draft?.value;
  showJson();
  document.body.dataset.form = form.id;
}

// Every change: save the draft, refresh the JSON and whether it is valid.
async function changed(): Promise<void> {
  showJson();
  await saveDraft({ formId: current.id, pasted: pasted.value, value: view?.value, updatedAt: Date.now() });
  document.body.dataset.saved = String(Date.now());
}

function showJson(): void {
  const value = view?.value ?? {};
  $('json').textContent = JSON.stringify(value, null, 2);
  const result = new Validator(current.schema as never, '2020-12', false).validate(value);
  const validity = $('validity');
  validity.dataset.state = result.valid ? 'valid' : 'invalid';
  validity.textContent = result.valid
    ? 'Valid against the form’s schema.'
    : `Not valid yet: ${result.errors.at(-1)?.instanceLocation ?? ''} ${result.errors.at(-1)?.error ?? ''}`;
}

pasted.addEventListener('input', () => void changed());
// Enter in a field must not submit (and reload) the page.
$('form').addEventListener('submit', (event) => event.preventDefault());
$('sample').addEventListener('click', () => {
  pasted.value = current.sample;
  void changed();
});

// ---------------------------------------------------------------------------------------
// Filling: stream the model's JSON into the fields.

$('fill').addEventListener('click', () => void fill());
$('stop').addEventListener('click', () => running?.abort());

async function fill(): Promise<void> {
  if (model === null || view === null) return;
  const form = current;
  const abort = (running = new AbortController());
  let text = '';
  fillStatus.textContent = 'Filling…';
  fillStatus.dataset.state = 'running';
  $<HTMLButtonElement>('fill').disabled = true;
  $<HTMLButtonElement>('stop').disabled = false;
  const chosen = panel!.model;
  const chat = model.hasChatTemplate;
  // Built-in forms carry the mask index the build precomputed for their schema, over the
  // default model's tokenizer: it serves the models with that tokenizer.
  const indexed = form.index !== undefined && form.indexTokenizer === modelTokenizer(chosen);
  const constraint: ConstraintInput = indexed ? { type: 'json-schema', schema: form.schema, index: form.index! } : JsonSchema(form.schema);
  fillStatus.dataset.prompt = chat ? 'chat' : 'raw';
  fillStatus.dataset.index = indexed ? 'build-time' : 'none';
  delete fillStatus.dataset.indexedMasks;
  delete fillStatus.dataset.reusedPromptTokens;
  try {
    const result = await engine.generate({
      // An instruct model reads the form's fields in a system message and the text as the
      // user's; the same system message starts every fill of the form, so its KV cache is kept.
      ...formPrompt(form, pasted.value, chat),
      ...(chat ? { templateOptions: templateOptions(chosen), reusePrefix: true } : {}),
      constraint,
      maxTokens: form.maxTokens,
      // Extraction wants the model's best reading (greedy); stories260K writes stories, so it samples.
      sampling: chat ? { temperature: 0 } : { temperature: 0.7, topP: 0.95 },
      signal: abort.signal,
      onToken: (event) => {
        if (current !== form) return;
        text += event.text;
        const value = partialJson(text);
        if (value !== undefined) view!.value = value;
        void changed();
      },
    });
    if (current === form) {
      if (result.complete === true) view.value = JSON.parse(result.text) as unknown;
      await changed();
    }
    // Which masks the build-time index served: test-visible, and worth seeing.
    fillStatus.dataset.indexedMasks = String(result.stats.indexedMasks);
    fillStatus.dataset.reusedPromptTokens = String(result.stats.reusedPromptTokens);
    const fromIndex = indexed ? `, ${result.stats.indexedMasks} masks from the build-time index` : '';
    fillStatus.textContent =
      result.complete === true
        ? `Filled (${result.tokens.length} tokens, ${result.forcedTokens} written by the schema itself${fromIndex}). Check and edit the fields.`
        : `Stopped (${result.stopReason}).`;
    fillStatus.dataset.state = result.complete === true ? 'done' : 'stopped';
  } catch (error) {
    fillStatus.textContent = `Could not fill the form: ${error instanceof Error ? error.message : String(error)}`;
    fillStatus.dataset.state = 'error';
  } finally {
    if (running === abort) running = null;
    $<HTMLButtonElement>('fill').disabled = model === null;
    $<HTMLButtonElement>('stop').disabled = true;
  }
}

// ---------------------------------------------------------------------------------------
// Export.

const json = (): string => JSON.stringify(view?.value ?? {}, null, 2);

$('copy').addEventListener('click', () => {
  navigator.clipboard.writeText(json()).then(
    () => (fillStatus.textContent = 'Copied the JSON.'),
    () => {
      // No clipboard permission: select the JSON so the person can copy it.
      getSelection()?.selectAllChildren($('json'));
      fillStatus.textContent = 'Select-all done: press Ctrl+C to copy.';
    },
  );
});

$('export').addEventListener('click', () => {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([json()], { type: 'application/json' }));
  link.download = `${current.id}.json`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
});

// ---------------------------------------------------------------------------------------
// Custom forms from a pasted or imported JSON Schema, compiled in the worker.

$<HTMLInputElement>('custom-file').addEventListener('change', async (event) => {
  const file = (event.target as HTMLInputElement).files?.[0];
  if (file !== undefined) $<HTMLTextAreaElement>('custom-schema').value = await file.text();
});

$('custom-create').addEventListener('click', () => void createCustomForm());

async function createCustomForm(): Promise<void> {
  const source = $<HTMLTextAreaElement>('custom-schema').value;
  const error = $('custom-error');
  try {
    const schema = JSON.parse(source) as Record<string, unknown>;
    await engine.release(await engine.compile({ type: 'json-schema', schema }, { warmUpMs: 0 })); // a check that it compiles
    const title = $<HTMLInputElement>('custom-title').value.trim() || (typeof schema['title'] === 'string' ? schema['title'] : 'Custom form');
    const form: FormDefinition = { id: `custom-${Date.now()}`, title, schema, sample: '', maxTokens: 256, custom: true };
    new FormView(document.createElement('form'), form.schema, () => undefined); // it must render before it is kept
    await saveCustomForm(form);
    forms.push(form);
    error.hidden = true;
    await select(form);
  } catch (e) {
    error.textContent = explainSchemaError(e, source);
    error.hidden = false;
  }
}

// ---------------------------------------------------------------------------------------
// Start: custom forms and the last form from IndexedDB, then the model.

async function start(): Promise<void> {
  try {
    forms.push(...(await customForms()));
    const last = await getSetting('current');
    await select(forms.find((f) => f.id === last) ?? forms[0]!);
  } catch (error) {
    // Storage unavailable or a form that cannot be shown: start on the first built-in form.
    console.error(error);
    await select(forms[0]!).catch(() => undefined);
  }
  document.body.dataset.ready = 'true';
  // The model: ?model= first, then the one picked last time, then the default.
  const saved = await getSetting('model').catch(() => undefined);
  const initial = formsModel(params.get('model')) ?? formsModel(saved) ?? formsModel(DEFAULT_MODEL_ID)!;
  const webgpu = await hasWebGpu();
  panel = new ModelPanel(
    engine,
    initial,
    { hub: params.get('hub') ?? 'https://huggingface.co/', webgpu, here },
    { loading: notReady, ready, failed, picked: remember },
  );
  await panel.choose(initial);
}

// The person's pick is kept for the next visit (and replaces a ?model= in the address).
function remember(picked: FormsModel): void {
  void setSetting('model', picked.id);
  if (!params.has('model')) return;
  params.set('model', picked.id);
  history.replaceState(null, '', `?${params.toString()}`);
}

async function hasWebGpu(): Promise<boolean> {
  const gpu = (navigator as { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
  try {
    return (await gpu?.requestAdapter()) != null;
  } catch {
    return false;
  }
}

void start();
