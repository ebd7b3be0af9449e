// The demo page: pick a model and a constraint, generate, and watch the mask the sampler gets
// at every step. The engine runs in a Web Worker (@sieve/runtime); this file is the page.
import {
  catalogueModel,
  createWorkerEngine,
  type ChatMessage,
  type GenerateRequest,
  type GrammarSpec,
  type ModelInfo,
  type TokenEvent,
} from '@sieve/runtime/client';
import { EXAMPLES, type ExampleKind } from './examples.ts';
import { GrammarEditor } from './grammar-editor.ts';
import { spanOfPointer, type TextSpan } from './json-locate.ts';
import { MaskView, StepPlot } from './mask-view.ts';
import { deviceDescription, ModelPanel } from './model-panel.ts';

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

// A crashed or killed worker is restarted by the engine with the same model; the page keeps
// its grammar, prompt and settings.
const engine = createWorkerEngine(() => new Worker(new URL('./engine-worker.ts', import.meta.url), { type: 'module' }), {
  onCrash: (error, restarting) => {
    const info = $('device-info');
    $<HTMLButtonElement>('generate').disabled = true;
    info.textContent = restarting ? 'The model stopped unexpectedly; restarting it…' : `The model stopped: ${error.message}. Load it again.`;
    info.dataset.state = restarting ? 'loading' : 'error';
    document.body.dataset.restarts = String(Number(document.body.dataset.restarts ?? 0) + 1);
  },
  onRestart: (outcome) => {
    const info = $('device-info');
    if (outcome.status === 'rejected' || outcome.value === null) {
      info.textContent = outcome.status === 'rejected' ? `Could not load the model again: ${String(outcome.reason)}` : 'No model.';
      info.dataset.state = 'error';
      return;
    }
    model = outcome.value;
    void deviceDescription(outcome.value).then((text) => (info.textContent = text));
    info.dataset.state = outcome.value.device;
    $<HTMLButtonElement>('generate').disabled = false;
  },
});
const maskView = new MaskView($<HTMLCanvasElement>('mask'));
const plot = new StepPlot($<HTMLCanvasElement>('timing'));
const kindSelect = $<HTMLSelectElement>('kind');
const exampleSelect = $<HTMLSelectElement>('example');
const compileStatus = $('compile-status');
const editor = new GrammarEditor($('editor'), () => scheduleCheck());
let model: ModelInfo | null = null;
let running: AbortController | null = null;
let release: (() => void) | null = null;

// ---------------------------------------------------------------------------------------
// Constraint: examples, and compiling as you type (in the worker) with errors at their span.

function showExamples(kind: ExampleKind): void {
  exampleSelect.replaceChildren(...EXAMPLES.filter((e) => e.kind === kind).map((e) => new Option(e.name, e.id)));
  pickExample(exampleSelect.value);
}

function pickExample(id: string): void {
  const example = EXAMPLES.find((e) => e.id === id)!;
  editor.value = example.source;
  $<HTMLTextAreaElement>('prompt').value = example.prompt;
  $<HTMLTextAreaElement>('user').value = example.prompt;
  $<HTMLInputElement>('max-tokens').value = String(example.maxTokens);
  scheduleCheck();
}

kindSelect.addEventListener('change', () => showExamples(kindSelect.value as ExampleKind));
exampleSelect.addEventListener('change', () => pickExample(exampleSelect.value));

/** The constraint spec for the editor's text; throws a SyntaxError with a span for bad JSON. */
function constraintSpec(): GrammarSpec {
  const kind = kindSelect.value as ExampleKind;
  if (kind !== 'json-schema') return { type: kind, grammar: editor.value };
  try {
    return { type: 'json-schema', schema: JSON.parse(editor.value) as unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // V8 says "position N"; other engines "line L column C".
    const position = /position (\d+)/.exec(message);
    const lineColumn = /line (\d+) column (\d+)/.exec(message);
    const lines = editor.value.split('\n');
    const at = position
      ? Number(position[1])
      : lineColumn
        ? lines.slice(0, Number(lineColumn[1]) - 1).reduce((n, l) => n + l.length + 1, 0) + Number(lineColumn[2]) - 1
        : editor.value.length;
    throw Object.assign(new SyntaxError(`not valid JSON: ${message}`), { span: { start: at, end: at + 1 } });
  }
}

let checkTimer = 0;
let checkSerial = 0;
function scheduleCheck(): void {
  clearTimeout(checkTimer);
  checkSerial++; // a result for older text is dropped
  compileStatus.textContent = 'compiling…';
  compileStatus.dataset.state = 'busy';
  checkTimer = window.setTimeout(() => void check(), 200);
}

async function check(): Promise<void> {
  const serial = ++checkSerial;
  const started = performance.now();
  try {
    // (A check only: released at once, so not rehearsed.)
    const handle = await engine.compile(constraintSpec(), { warmUpMs: 0 });
    void engine.release(handle);
    if (serial !== checkSerial) return;
    editor.clearError();
    compileStatus.textContent = `compiled in ${(performance.now() - started).toFixed(0)} ms`;
    compileStatus.dataset.state = 'ok';
  } catch (error) {
    if (serial !== checkSerial) return;
    const { message, span } = describeError(error);
    editor.showError(message, span);
    compileStatus.textContent = 'does not compile';
    compileStatus.dataset.state = 'error';
  }
}

// A compile error's message with line:col, and where in the text it is.
function describeError(error: unknown): { message: string; span: TextSpan | null } {
  const e = error as { message?: string; span?: TextSpan; pointer?: string; keyword?: string };
  const text = editor.value;
  let span: TextSpan | null = e.span ?? null;
  if (span === null && typeof e.pointer === 'string') span = spanOfPointer(text, `${e.pointer}/${e.keyword ?? ''}`) ?? spanOfPointer(text, e.pointer);
  let where = '';
  if (span !== null) {
    const before = text.slice(0, span.start).split('\n');
    where = `line ${before.length}, column ${before.at(-1)!.length + 1}: `;
  }
  return { message: `${where}${e.message ?? String(error)}`, span };
}

// ---------------------------------------------------------------------------------------
// Model: the panel picks, sizes, loads and cancels; chat mode needs a chat template.

const hub = new URLSearchParams(location.search).get('hub');
const modelPanel = new ModelPanel(engine, { loading: () => modelChanged(null), loaded: (info) => modelChanged(info) }, hub);
const chatMode = $<HTMLInputElement>('mode-chat');

function modelChanged(info: ModelInfo | null): void {
  model = info;
  $<HTMLButtonElement>('generate').disabled = info === null;
  if (info === null) return;
  document.body.dataset.vocab = String(info.tokenCount);
  showMaskScale(info.tokenCount);
  chatMode.disabled = !info.hasChatTemplate;
  $('chat-reason').textContent = info.hasChatTemplate ? '' : `${info.id} has no chat template: raw prompts only.`;
  if (!info.hasChatTemplate && chatMode.checked) $<HTMLInputElement>('mode-raw').click();
}

for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="prompt-mode"]')) {
  radio.addEventListener('change', () => {
    $('raw-fields').hidden = chatMode.checked;
    $('chat-fields').hidden = !chatMode.checked;
  });
}

/** The prompt part of a request: raw text, or the chat's messages with the catalogue's template options. */
function promptOf(info: ModelInfo): Pick<GenerateRequest, 'prompt' | 'messages' | 'templateOptions'> {
  if (!chatMode.checked) return { prompt: $<HTMLTextAreaElement>('prompt').value };
  const system = $<HTMLTextAreaElement>('system').value.trim();
  const messages: ChatMessage[] = [
    ...(system === '' ? [] : [{ role: 'system' as const, content: system }]),
    { role: 'user', content: $<HTMLTextAreaElement>('user').value },
  ];
  const templateOptions = catalogueModel(info.id)?.templateOptions;
  return { messages, ...(templateOptions === undefined ? {} : { templateOptions }) };
}

function showMaskScale(tokenCount: number): void {
  const { tokensPerCell } = maskView.reset(tokenCount);
  $('mask-scale').textContent = tokensPerCell === 1 ? 'a token' : `${tokensPerCell} tokens (shaded by how many of them are allowed)`;
}

// ---------------------------------------------------------------------------------------
// Generation: stream the output, draw the mask and the step stats; step through on request.

const output = $('output');
const stepMode = $<HTMLInputElement>('step-mode');
const next = $<HTMLButtonElement>('next');

$('generate').addEventListener('click', () => void generate());
$('stop').addEventListener('click', () => {
  running?.abort();
  release?.();
});
next.addEventListener('click', () => release?.());
stepMode.addEventListener('change', () => {
  if (!stepMode.checked) release?.();
});

async function generate(): Promise<void> {
  if (model === null) return;
  let constraint: GrammarSpec;
  try {
    constraint = constraintSpec();
  } catch (error) {
    const { message, span } = describeError(error);
    editor.showError(message, span);
    return;
  }
  const abort = (running = new AbortController());
  const result = $('result');
  output.replaceChildren();
  showMaskScale(model.tokenCount);
  plot.reset();
  result.textContent = 'Generating…';
  result.dataset.state = 'running';
  $<HTMLButtonElement>('generate').disabled = true;
  modelPanel.loadEnabled = false; // loading waits for a running (or paused) generation
  $<HTMLButtonElement>('stop').disabled = false;
  try {
    const done = await engine.generate({
      ...promptOf(model),
      constraint,
      maxTokens: Number($<HTMLInputElement>('max-tokens').value),
      sampling: { temperature: Number($<HTMLInputElement>('temperature').value), seed: Number($<HTMLInputElement>('seed').value) },
      includeMask: true,
      backpressure: true,
      signal: abort.signal,
      onToken: (event) => showToken(event),
    });
    const healed = done.healed === '' ? '' : `; token healing gave back ${JSON.stringify(done.healed)}`;
    result.textContent = `Stopped: ${done.stopReason}${done.complete === true ? ', complete' : done.complete === false ? ', incomplete' : ''}. ${done.tokens.length} tokens, ${done.forcedTokens} fast-forwarded; ${done.stats.tokensPerSecond.toFixed(0)} tokens/s; mask ${done.stats.maskUsMean.toFixed(0)} µs per step on average${healed}.`;
    result.dataset.state = 'done';
    document.body.dataset.output = done.text;
  } catch (error) {
    result.textContent = `Failed: ${error instanceof Error ? error.message : String(error)}`;
    result.dataset.state = 'error';
  } finally {
    running = null;
    next.disabled = true;
    modelPanel.loadEnabled = true;
    $<HTMLButtonElement>('generate').disabled = false;
    $<HTMLButtonElement>('stop').disabled = true;
  }
}

// One token: append it (forced ones underlined); for sampled ones, the mask and the stats.
// In step mode the returned promise holds the worker until "Next token".
function showToken(event: TokenEvent): Promise<void> | undefined {
  const piece = document.createElement('span');
  piece.textContent = event.text;
  if (event.forced) piece.className = 'forced';
  output.append(piece);
  if (event.forced || event.mask === undefined) return undefined;
  maskView.draw(event.mask, event.token);
  plot.add(event.maskUs ?? 0, event.forwardMs);
  $('allowed').textContent = `${event.allowed!.toLocaleString('en-US')} of ${model!.tokenCount.toLocaleString('en-US')}`;
  $<HTMLMeterElement>('mass-meter').value = event.allowedMass!;
  $('mass').textContent = `${(100 * event.allowedMass!).toFixed(1)}%`;
  $('step').textContent = `token ${event.index + 1}: mask ${(event.maskUs ?? 0).toFixed(0)} µs, forward ${event.forwardMs.toFixed(1)} ms`;
  fillCandidates('top-before', event.topBefore ?? []);
  fillCandidates('top-after', event.topAfter ?? []);
  document.body.dataset.step = String(event.index);
  if (!stepMode.checked) return undefined;
  next.disabled = false;
  return new Promise<void>((resolve) => {
    release = () => {
      release = null;
      next.disabled = true;
      resolve();
    };
  });
}

function fillCandidates(id: string, candidates: readonly { text: string; p: number }[]): void {
  $(id).replaceChildren(
    ...candidates.map(({ text, p }) => {
      const row = document.createElement('tr');
      const token = document.createElement('td');
      token.textContent = JSON.stringify(text);
      const probability = document.createElement('td');
      probability.textContent = `${(100 * p).toFixed(1)}%`;
      row.append(token, probability);
      return row;
    }),
  );
}

showExamples(kindSelect.value as ExampleKind);
document.body.dataset.ready = 'true';
