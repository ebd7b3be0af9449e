// Random walks over the allowed tokens of a matcher that end: after a random number of free
// steps the walk winds down — it stops as soon as the output is complete, closes strings and
// containers first, and inside a string steers toward a word of the schema (a property name,
// an enum value, a literal of a pattern) that the grammar accepts there, so required
// properties and patterns get written instead of random text.
import type { VocabIndex } from '@sieve/format';
import type { TokenMatcher } from '../../src/index.ts';
import { bitsetIds } from './oracle.ts';

/** What a walk wrote. */
export interface Walk {
  readonly bytes: Uint8Array;
  /** The walk ended on EOS (the output is complete); otherwise it hit the step cap. */
  readonly completed: boolean;
  readonly steps: number;
}

export interface WalkOptions {
  readonly random: () => number;
  /** Free steps before winding down. */
  readonly freeSteps: number;
  readonly maxSteps: number;
  /** Strings (in JSON string encoding, without quotes) to steer string content toward. */
  readonly words: readonly string[];
  /** Words tried first (required property names). */
  readonly preferredWords?: readonly string[];
}

// Bytes as a string of char codes 0-255, so prefixes compare byte-wise.
const latin1 = (bytes: Uint8Array): string => String.fromCharCode(...bytes);

/** Token texts (as byte strings) of a vocabulary, '' for non-text tokens. */
export function tokenTexts(index: VocabIndex): string[] {
  return Array.from({ length: index.tokenCount }, (_, id) => (index.isTextToken(id) ? latin1(index.tokenBytes(id)) : ''));
}

/** Strings a schema mentions: property names, required names, enum and const strings, literal runs of patterns. */
export function schemaWords(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const s of schema) schemaWords(s, out);
    return out;
  }
  if (schema === null || typeof schema !== 'object') return out;
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties' && v !== null && typeof v === 'object') for (const name of Object.keys(v)) out.add(name);
    if ((k === 'required' || k === 'enum') && Array.isArray(v)) for (const x of v) if (typeof x === 'string') out.add(x);
    if (k === 'const' && typeof v === 'string') out.add(v);
    if (k === 'pattern' && typeof v === 'string') for (const m of v.match(/[A-Za-z0-9_]{2,}/g) ?? []) out.add(m);
    schemaWords(v, out);
  }
  return out;
}

/** Names a schema requires anywhere. */
export function requiredWords(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const s of schema) requiredWords(s, out);
  else if (schema !== null && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'required' && Array.isArray(v)) for (const x of v) if (typeof x === 'string') out.add(x);
      requiredWords(v, out);
    }
  }
  return out;
}

/** Encodes words as the byte strings of their JSON string content. */
export function wordTargets(words: Iterable<string>): string[] {
  const encoder = new TextEncoder();
  return [...words].map((w) => latin1(encoder.encode(JSON.stringify(w).slice(1, -1))));
}

/** One walk. `matcher` is consumed (committed to). */
export function randomWalk(matcher: TokenMatcher, texts: readonly string[], eos: ReadonlySet<number>, options: WalkOptions): Walk {
  const { random, freeSteps, maxSteps, words } = options;
  const preferred = new Set(options.preferredWords ?? []);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  let out = '';
  // Where the output is: inside a string (its content so far), after a backslash.
  let inString = false;
  let escaped = false;
  let content = '';
  let goal: string | null = null;
  const isSingle = (id: number, chars: string): boolean => texts[id]!.length === 1 && chars.includes(texts[id]!);
  const isSpace = (id: number): boolean => /^[ \t\r\n]*$/.test(texts[id]!);

  // A word the grammar accepts here in full (with the closing quote), preferring unused ones.
  const chooseGoal = (): string | null => {
    const viable = words.filter((w) => w.startsWith(content) && w.length > content.length);
    const fits = (w: string): boolean => {
      const fork = matcher.fork();
      try {
        return fork.commitBytes(Uint8Array.from(`${w.slice(content.length)}"`, (c) => c.charCodeAt(0)));
      } finally {
        fork.dispose();
      }
    };
    const unused = viable.filter((w) => !out.includes(`"${w}"`));
    for (const pool of [unused.filter((w) => preferred.has(w)), unused, viable]) {
      const order = [...pool].sort(() => random() - 0.5);
      for (const w of order.slice(0, 8)) if (fits(w)) return w;
    }
    return null;
  };

  const windDown = (allowed: number[]): number[] => {
    if (inString) {
      if (goal !== content && (goal === null || !goal.startsWith(content))) goal = chooseGoal();
      if (goal !== null && goal !== content) {
        // The longest tokens that stay on the way to the goal.
        const rest = goal.slice(content.length);
        let best: number[] = [];
        for (const id of allowed) {
          const t = texts[id]!;
          if (!rest.startsWith(t) || t.length === 0) continue;
          if (best.length === 0 || t.length > texts[best[0]!]!.length) best = [id];
          else if (t.length === texts[best[0]!]!.length) best.push(id);
        }
        if (best.length > 0) return best;
      }
      const close = allowed.filter((id) => isSingle(id, '"'));
      if (close.length > 0) return close;
    } else {
      for (const tier of ['"}]', ',', '0123456789']) {
        const preferred = allowed.filter((id) => isSingle(id, tier));
        if (preferred.length > 0) return preferred;
      }
    }
    const visible = allowed.filter((id) => !isSpace(id));
    return visible.length > 0 ? visible : allowed;
  };

  let step = 0;
  for (; step < maxSteps; step++) {
    const mask = bitsetIds(matcher.computeMaskBitset(), texts.length);
    const canEnd = mask.some((id) => eos.has(id));
    const allowed = mask.filter((id) => !eos.has(id));
    const winding = step >= freeSteps;
    if (canEnd && (allowed.length === 0 || winding || random() < 0.1)) return { bytes: bytesOf(out), completed: true, steps: step };
    if (allowed.length === 0) break;
    const id = pick(winding ? windDown(allowed) : allowed);
    if (!matcher.commitToken(id)) throw new Error(`token ${id} was in the mask but refused`);
    const text = texts[id]!;
    out += text;
    for (const c of text) {
      if (!inString) {
        if (c === '"') [inString, content, goal] = [true, '', null];
      } else if (escaped) {
        escaped = false;
        content += c;
      } else if (c === '\\') {
        escaped = true;
        content += c;
      } else if (c === '"') {
        inString = false;
      } else {
        content += c;
      }
    }
  }
  return { bytes: bytesOf(out), completed: false, steps: step };
}

function bytesOf(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}
