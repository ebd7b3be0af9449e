/**
 * The models a browser keeps (transformers.js's Cache API bucket, whose keys are the files'
 * hub URLs): listed by hub id with their files and bytes, and deleted. Vocab indexes built
 * from a tokenizer stay (their own bucket, keyed by tokenizer: models may share them).
 */

/** A model whose files are in the browser's cache. */
export interface CachedModel {
  /** The hub id (`onnx-community/Qwen3-0.6B-ONNX`). */
  readonly id: string;
  /** Its files, as the hub names them (`onnx/model_q4f16.onnx`). */
  readonly files: readonly string[];
  /** Their size (from the stored responses' Content-Length). */
  readonly bytes: number;
}

// transformers.js's bucket (`env.cacheKey`).
const MODEL_CACHE = 'transformers-cache';
// A hub file's URL path: /{id}/resolve/{revision}/{file}.
const HUB_PATH = /^\/(.+?)\/resolve\/[^/]+\/(.+)$/;

/** The cached models, by hub id (none where there is no Cache API). */
export async function listCachedModels(): Promise<CachedModel[]> {
  const cache = await openCache();
  if (cache === null) return [];
  const models = new Map<string, { files: string[]; bytes: number }>();
  for (const request of await cache.keys()) {
    const match = HUB_PATH.exec(decodeURIComponent(new URL(request.url).pathname));
    if (match === null) continue;
    const model = models.get(match[1]!) ?? { files: [], bytes: 0 };
    const response = await cache.match(request);
    model.files.push(match[2]!);
    model.bytes += Number(response?.headers.get('Content-Length') ?? 0);
    models.set(match[1]!, model);
  }
  return [...models].map(([id, { files, bytes }]) => ({ id, files: files.sort(), bytes })).sort((a, b) => a.id.localeCompare(b.id));
}

/** Deletes the cached files of the model `id`; whether there were any. */
export async function deleteCachedModel(id: string): Promise<boolean> {
  const cache = await openCache();
  if (cache === null) return false;
  let deleted = false;
  for (const request of await cache.keys()) {
    const match = HUB_PATH.exec(decodeURIComponent(new URL(request.url).pathname));
    if (match?.[1] === id) deleted = (await cache.delete(request)) || deleted;
  }
  return deleted;
}

async function openCache(): Promise<Cache | null> {
  return typeof caches === 'undefined' ? null : caches.open(MODEL_CACHE);
}
