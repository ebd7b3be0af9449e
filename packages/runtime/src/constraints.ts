/**
 * Constraints at work: a compiled `Grammar`, and the `ActiveConstraint` the engine makes of a
 * spec, a grammar or a custom `Constraint` for one generation (see `constraint-specs.ts`).
 */
import { bitsetAdd, bitsetHas, bitsetWords, brleAllows, brleAnd, brleFromBitset, brleLength, MaskIndex, type Brle, type VocabIndex } from '@sieve/format';
import {
  checkMaskIndex,
  compileGrammar,
  IndexedMatcher,
  jsonGrammar,
  toolCallsGrammar,
  jsonSchemaGrammar,
  KernelGrammar,
  KernelMatcher,
  Matcher,
  parseGrammar,
  type CompiledGrammar,
  type GrammarIR,
  type GrammarLimits,
  type SchemaWarning,
  type TokenMatcher,
} from '@sieve/grammar';
import { GENERATION_JSON_WHITESPACE, type Constraint, type ConstraintInput, type GrammarSpec } from './constraint-specs.ts';
import type { Kernel, KernelVocab } from '@sieve/kernel';

/** A compiled grammar, reusable across generations (and their matchers) until disposed. */
export class Grammar {
  readonly compiled: CompiledGrammar;
  /** Unsupported JSON Schema keywords downgraded under `lenient` (empty otherwise). */
  readonly warnings: readonly SchemaWarning[];
  /** The precomputed mask index the spec came with, if any. */
  readonly maskIndex: MaskIndex | null;
  readonly #loaded = new Map<Kernel, KernelGrammar>();
  // Vocab indexes the mask index was checked against.
  readonly #checkedVocabs = new WeakSet<VocabIndex>();
  // Generations using the grammar; `dispose` waits for them to end.
  #users = 0;
  #disposed = false;

  constructor(spec: GrammarSpec, limits: Partial<GrammarLimits> = {}) {
    let ir: GrammarIR;
    let warnings: readonly SchemaWarning[] = [];
    switch (spec.type) {
      case 'json-schema': {
        // Generated integers carry no fraction: `3.0` is valid from draft 6 on, never needed.
        const built = jsonSchemaGrammar(spec.schema, { whitespace: GENERATION_JSON_WHITESPACE, integerFractions: false, ...spec.options });
        ir = built.grammar;
        warnings = built.warnings;
        break;
      }
      case 'json':
        ir = jsonGrammar(spec.whitespace ?? GENERATION_JSON_WHITESPACE, spec.repetition);
        break;
      case 'tool-calls':
        ir = toolCallsGrammar(spec.tools, spec.format, {
          ...(spec.parallel === undefined ? {} : { parallel: spec.parallel }),
          ...(spec.after === undefined ? {} : { after: spec.after }),
          schemaOptions: { whitespace: GENERATION_JSON_WHITESPACE, integerFractions: false },
        });
        break;
      case 'regex':
        ir = parseGrammar('regex', spec.grammar, spec.flags === undefined ? {} : { flags: spec.flags });
        break;
      default:
        // A Lark grammar's %json values are generated as JSON Schema ones are (no `3.0` for an integer).
        ir = parseGrammar(spec.type, spec.grammar, { schemaOptions: { integerFractions: false } });
    }
    this.compiled = compileGrammar(ir, limits);
    this.warnings = warnings;
    if (typeof spec.index === 'string') throw new TypeError('a mask index given by URL must be fetched first (the engine does this)');
    this.maskIndex = spec.index === undefined ? null : new MaskIndex(spec.index);
    if (this.maskIndex !== null) checkMaskIndex(this.maskIndex, { grammar: this.compiled });
  }

  /** @internal A generation starts using the grammar (`unretain` when it ends). */
  retain(): void {
    if (this.#disposed) throw new RangeError('this grammar was disposed');
    this.#users++;
  }

  /** @internal */
  unretain(): void {
    if (--this.#users === 0 && this.#disposed) this.#free();
  }

  /**
   * A matcher at the start of the grammar (dispose it): reading masks from the mask index
   * when there is one, else the kernel matcher.
   */
  matcher(context: Pick<ConstraintContext, 'kernel' | 'vocab' | 'vocabIndex' | 'eosTokenIds'>): TokenMatcher {
    const { kernel, vocab, eosTokenIds } = context;
    let loaded = this.#loaded.get(kernel);
    if (loaded === undefined) this.#loaded.set(kernel, (loaded = new KernelGrammar(kernel, this.compiled)));
    const live = (): KernelMatcher => new KernelMatcher(loaded, vocab, { eosTokenIds });
    const index = this.maskIndex;
    if (index === null) return live();
    if (!this.#checkedVocabs.has(context.vocabIndex)) {
      checkMaskIndex(index, { vocab: context.vocabIndex });
      this.#checkedVocabs.add(context.vocabIndex);
    }
    return new IndexedMatcher(index, live, eosTokenIds);
  }

  /** Frees the grammar's kernel memory (and every matcher on it) once no generation uses it. */
  dispose(): void {
    this.#disposed = true;
    if (this.#users === 0) this.#free();
  }

  #free(): void {
    for (const loaded of this.#loaded.values()) loaded.dispose();
    this.#loaded.clear();
  }
}

/** What a constraint needs of the engine to run. */
export interface ConstraintContext {
  readonly kernel: Kernel;
  readonly vocab: KernelVocab;
  readonly vocabIndex: VocabIndex;
  readonly eosTokenIds: readonly number[];
  /** The tokenizer's canonical tokens for `bytes` continuing earlier output. */
  encodeContinuation(bytes: Uint8Array): number[];
  /** A compiled grammar: from a handle id, or compiled (and cached) from a spec. */
  grammar(spec: GrammarSpec | { readonly type: 'grammar'; readonly id: number }): Grammar;
}

/** One generation's view of a constraint. */
export interface ActiveConstraint {
  /** The mask for the next token (empty: no restriction). */
  mask(): Brle;
  /** Whether `mask()` now reads the mask from a precomputed mask index (not computed live). */
  maskIndexed(): boolean;
  /** Records an accepted token; `false` if the constraint does not allow it. */
  commit(token: number): boolean;
  /** Tokens the constraint forces next, to append without sampling (may be empty). */
  forced(): number[];
  /** Whether `bytes` may come next (for token healing); `null` when the constraint cannot tell. */
  acceptsBytes(bytes: Uint8Array): boolean | null;
  /** Feeds bytes that are part of the output but not a whole token (token healing). */
  commitBytes(bytes: Uint8Array): boolean;
  /**
   * Bytes that would complete the output, as short as known (empty: complete); null when the
   * constraint cannot tell. The first call starts tracking what budget-aware ending needs.
   */
  completion(): Uint8Array | null;
  /**
   * Commits `token` only if `fits` accepts the completion known after it (or none is known);
   * `false`, changing nothing, otherwise. `known`, a completion of the output before the
   * token, is tried first: inside free text it usually still completes the output after it,
   * which the kernel checks by feeding it, with no grammar analysis.
   */
  commitWithin(token: number, fits: (completion: Uint8Array) => boolean, known?: Uint8Array): boolean;
  /** Whether the output so far is complete (EOS allowed); null when the constraint cannot tell. */
  accepting(): boolean | null;
  /** An independent copy (beam search); throws `TypeError` for a custom `step()` constraint. */
  fork(): ActiveConstraint;
  /** Whether a fixed ban (`BanTokens`) excludes `token` whatever the output. */
  banned(token: number): boolean;
  /** Logit bias to add before masking. */
  readonly bias: Readonly<Record<number, number>> | undefined;
  dispose(): void;
}

/** Instantiates `input` for one generation. */
export function activate(input: ConstraintInput | undefined, context: ConstraintContext): ActiveConstraint {
  if (input === undefined) return new Unrestricted();
  if (input instanceof Grammar) return new GrammarConstraint(input, context);
  if (isCustom(input)) return new CustomConstraint(input, context.vocabIndex.tokenCount);
  switch (input.type) {
    case 'ban-tokens':
      return new StaticMask(banMask(input.tokens, context.vocabIndex.tokenCount), undefined);
    case 'logit-bias':
      return new StaticMask(new Uint32Array(0), input.bias);
    case 'all-of': {
      const parts: ActiveConstraint[] = [];
      try {
        for (const part of input.constraints) parts.push(activate(part, context));
      } catch (error) {
        for (const part of parts) part.dispose();
        throw error;
      }
      return new AllOfConstraint(parts, context);
    }
    case 'think':
      if (input.trigger.length === 0) throw new RangeError('ThinkThen needs a non-empty trigger');
      return new ThinkConstraint(input.trigger, activate(input.then, context), context, input.optional === true);
    default:
      return new GrammarConstraint(context.grammar(input), context);
  }
}

/** Whether `input` is a custom `Constraint` (it has `step()`), not a spec or a grammar. */
export function isCustom(input: ConstraintInput): input is Constraint {
  return typeof (input as Partial<Constraint>).step === 'function';
}

/** The BRLE that allows every token but `tokens`. */
export function banMask(tokens: readonly number[], vocabSize: number): Brle {
  const bits = new Uint32Array(bitsetWords(vocabSize));
  for (let id = 0; id < vocabSize; id++) bitsetAdd(bits, id);
  for (const id of tokens) if (id >= 0 && id < vocabSize) bits[id >>> 5]! &= ~(1 << (id & 31));
  return brleFromBitset(bits, vocabSize);
}

class Unrestricted implements ActiveConstraint {
  readonly bias: Readonly<Record<number, number>> | undefined = undefined;
  mask(): Brle {
    return new Uint32Array(0);
  }
  maskIndexed(): boolean {
    return false;
  }
  commit(token: number): boolean {
    return token >= 0;
  }
  forced(): number[] {
    return [];
  }
  acceptsBytes(): boolean | null {
    return true;
  }
  commitBytes(): boolean {
    return true;
  }
  completion(): Uint8Array | null {
    return null;
  }
  commitWithin(token: number): boolean {
    return this.commit(token);
  }
  accepting(): boolean | null {
    return null;
  }
  fork(): ActiveConstraint {
    return this; // no state
  }
  banned(token: number): boolean {
    return token < 0; // nothing is banned (a negative id is no token)
  }
  dispose(): void {}
}

class StaticMask extends Unrestricted {
  override readonly bias: Readonly<Record<number, number>> | undefined;
  readonly #mask: Brle;
  constructor(mask: Brle, bias: Readonly<Record<number, number>> | undefined) {
    super();
    this.#mask = mask;
    this.bias = bias;
  }
  override mask(): Brle {
    return this.#mask;
  }
  // Bans judge tokens, not bytes.
  override acceptsBytes(): boolean | null {
    return this.#mask.length === 0 ? true : null;
  }
  override banned(token: number): boolean {
    return this.#mask.length > 0 && !brleAllows(this.#mask, token);
  }
}

class GrammarConstraint implements ActiveConstraint {
  readonly bias = undefined;
  readonly #grammar: Grammar;
  readonly #matcher: TokenMatcher;
  readonly #context: ConstraintContext;
  // The TypeScript twin of the matcher, kept in step once budget-aware ending asks for
  // completions (the grammar analysis reads its Earley chart).
  #shadow: Matcher | null = null;
  // What was committed since the twin last caught up: token ids, and bytes from token healing.
  #committed: (number | Uint8Array)[] = [];
  #disposed = false;

  constructor(grammar: Grammar, context: ConstraintContext, matcher?: TokenMatcher) {
    grammar.retain();
    try {
      this.#matcher = matcher ?? grammar.matcher(context);
    } catch (error) {
      grammar.unretain();
      throw error;
    }
    this.#grammar = grammar;
    this.#context = context;
  }
  banned(): boolean {
    return false;
  }
  fork(): ActiveConstraint {
    const copy = new GrammarConstraint(this.#grammar, this.#context, this.#matcher.fork());
    copy.#shadow = this.#shadow?.fork() ?? null;
    copy.#committed = [...this.#committed];
    return copy;
  }
  mask(): Brle {
    return this.#matcher.computeMask();
  }
  maskIndexed(): boolean {
    return this.#matcher instanceof IndexedMatcher && this.#matcher.indexed;
  }
  commit(token: number): boolean {
    if (!this.#matcher.commitToken(token)) return false;
    this.#record(token);
    return true;
  }
  forced(): number[] {
    return this.#matcher.forcedTokens((bytes) => this.#context.encodeContinuation(bytes)).tokens;
  }
  acceptsBytes(bytes: Uint8Array): boolean {
    const probe = this.#matcher.fork();
    try {
      return probe.commitBytes(bytes);
    } finally {
      probe.dispose();
    }
  }
  commitBytes(bytes: Uint8Array): boolean {
    if (!this.#matcher.commitBytes(bytes)) return false;
    this.#record(bytes);
    return true;
  }
  completion(): Uint8Array | null {
    return this.#syncedShadow().shortestCompletion();
  }
  commitWithin(token: number, fits: (completion: Uint8Array) => boolean, known?: Uint8Array): boolean {
    if (known !== undefined) {
      if (!this.commit(token)) return false;
      for (const completion of keptCompletions(this.#context.vocabIndex.tokenBytes(token), known))
        if (this.#matcher.completes(completion) && fits(completion)) return true;
      this.#matcher.rollback(1);
      this.#committed.pop();
    }
    const shadow = this.#syncedShadow();
    if (!shadow.commitToken(token)) return false;
    // No known completion after the token counts as not fitting: the proof's token always does.
    const rest = shadow.shortestCompletion();
    if (rest === null || !fits(rest) || !this.#matcher.commitToken(token)) {
      shadow.rollback(1);
      return false;
    }
    return true;
  }
  accepting(): boolean {
    return this.#matcher.isAccepting();
  }
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#matcher.dispose();
    this.#grammar.unretain();
  }
  // Commits reach the shadow only when it is next asked (a token that writes the start of
  // the budget's proof needs no completion: most commits never wait for it).
  #record(entry: number | Uint8Array): void {
    this.#committed.push(entry);
  }
  #syncedShadow(): Matcher {
    this.#shadow ??= new Matcher(this.#grammar.compiled, this.#context.vocabIndex, { eosTokenIds: this.#context.eosTokenIds });
    for (const entry of this.#committed) {
      const ok = typeof entry === 'number' ? this.#shadow.commitToken(entry) : this.#shadow.commitBytes(entry);
      if (!ok) throw new Error('internal: the TypeScript matcher disagrees with the kernel');
    }
    this.#committed = [];
    return this.#shadow;
  }
}

/**
 * Completions of the output after a token that are worth a check before any grammar
 * analysis, from `known`, a completion before it: `known` itself (the token stayed inside
 * free text); `known` less the bytes the token shares with its start (the token opened
 * free text where `known` leaves it empty: ` "ab` before ` ""}`); `known` less its first
 * bytes where the token ends with them (the token closed the text and went on the way
 * `known` does: `ab"` before `"}`), longest first.
 */
export function* keptCompletions(token: Uint8Array, known: Uint8Array): Generator<Uint8Array> {
  yield known;
  let shared = 0;
  while (shared < token.length && shared < known.length && token[shared] === known[shared]) shared++;
  if (shared > 0 && shared < token.length) yield known.subarray(shared);
  for (let k = Math.min(token.length, known.length); k > 0; k--) {
    if (known.subarray(0, k).every((byte, i) => byte === token[token.length - k + i])) yield known.subarray(k);
  }
}

class CustomConstraint extends Unrestricted {
  readonly #constraint: Constraint;
  readonly #vocabSize: number;
  #accepted: number[] = [];
  constructor(constraint: Constraint, vocabSize: number) {
    super();
    this.#constraint = constraint;
    this.#vocabSize = vocabSize;
  }
  override mask(): Brle {
    const accepted = this.#accepted;
    this.#accepted = [];
    const mask = this.#constraint.step(accepted);
    if (!(mask instanceof Uint32Array)) throw new TypeError('Constraint.step must return a Uint32Array (BRLE)');
    if (mask.length > 0 && brleLength(mask) !== this.#vocabSize) {
      throw new RangeError(`Constraint.step returned a BRLE over ${brleLength(mask)} tokens; the vocabulary has ${this.#vocabSize}`);
    }
    return mask;
  }
  override commit(token: number): boolean {
    this.#accepted.push(token);
    return true;
  }
  override acceptsBytes(): null {
    return null;
  }
  override fork(): ActiveConstraint {
    throw new TypeError('beam search copies the constraint at every step; a custom step() constraint cannot be copied');
  }
}

class AllOfConstraint implements ActiveConstraint {
  readonly #parts: ActiveConstraint[];
  readonly #context: ConstraintContext;
  constructor(parts: ActiveConstraint[], context: ConstraintContext) {
    this.#parts = parts;
    this.#context = context;
  }
  // Read at every step: a ThinkThen part's bias starts with its trigger.
  get bias(): Readonly<Record<number, number>> | undefined {
    const biases = this.#parts.map((p) => p.bias).filter((b) => b !== undefined);
    if (biases.length === 0) return undefined;
    const sum: Record<number, number> = {};
    for (const bias of biases) for (const [id, value] of Object.entries(bias)) sum[Number(id)] = (sum[Number(id)] ?? 0) + value;
    return sum;
  }
  banned(token: number): boolean {
    return this.#parts.some((p) => p.banned(token));
  }
  mask(): Brle {
    const masks = this.#parts.map((p) => p.mask()).filter((m) => m.length > 0);
    if (masks.length <= 1) return masks[0] ?? new Uint32Array(0);
    return this.#context.kernel.brleAnd(masks, this.#context.vocabIndex.tokenCount);
  }
  // Read from an index when every part that restricts reads its mask from one.
  maskIndexed(): boolean {
    const grammars = this.#parts.filter((p) => !(p instanceof StaticMask));
    return grammars.length > 0 && grammars.every((p) => p.maskIndexed());
  }
  commit(token: number): boolean {
    let ok = true;
    for (const part of this.#parts) ok = part.commit(token) && ok;
    return ok;
  }
  // Forced tokens of one part are safe only if every other part allows them without
  // needing to see them first; that holds for parts whose mask never changes.
  forced(): number[] {
    const dynamic = this.#dynamic();
    if (dynamic === null) return [];
    const tokens = dynamic.forced();
    const statics = brleAnd(this.#parts.filter((p) => p instanceof StaticMask).map((p) => p.mask()));
    const allowed = statics.length === 0 ? null : this.#context.kernel.brleToBitset(statics, this.#context.vocabIndex.tokenCount);
    const out: number[] = [];
    for (const t of tokens) {
      if (allowed !== null && !bitsetHas(allowed, t)) break;
      out.push(t);
    }
    return out;
  }
  acceptsBytes(bytes: Uint8Array): boolean | null {
    let answer: boolean | null = true;
    for (const part of this.#parts) {
      const a = part.acceptsBytes(bytes);
      if (a === false) return false;
      if (a === null) answer = null;
    }
    return answer;
  }
  commitBytes(bytes: Uint8Array): boolean {
    let ok = true;
    for (const part of this.#parts) ok = part.commitBytes(bytes) && ok;
    return ok;
  }
  // A completion is known when one part restricts and the rest only ban tokens (the masks
  // already keep banned tokens out; the completion's bytes can be written one byte a token).
  completion(): Uint8Array | null {
    return this.#dynamic()?.completion() ?? null;
  }
  commitWithin(token: number, fits: (completion: Uint8Array) => boolean, known?: Uint8Array): boolean {
    const dynamic = this.#dynamic();
    if (dynamic === null) return this.commit(token);
    if (!dynamic.commitWithin(token, fits, known)) return false;
    for (const part of this.#parts) if (part !== dynamic) part.commit(token);
    return true;
  }
  accepting(): boolean | null {
    return this.#dynamic()?.accepting() ?? null;
  }
  fork(): ActiveConstraint {
    return new AllOfConstraint(
      this.#parts.map((p) => p.fork()),
      this.#context,
    );
  }
  #dynamic(): ActiveConstraint | null {
    const dynamic = this.#parts.filter((p) => !(p instanceof StaticMask));
    return dynamic.length === 1 ? dynamic[0]! : null;
  }
  dispose(): void {
    for (const part of this.#parts) part.dispose();
  }
}

/**
 * Free text until the output contains the trigger, then the inner constraint from the byte
 * after it. A token that completes the trigger and carries more bytes is allowed only if the
 * inner constraint accepts those bytes, so the switch is exact.
 */
// Free text until a trigger, then the inner constraint. `optional`: the free text is complete
// as it is (EOS allowed; `Triggered`), else the inner constraint must come (`ThinkThen`).
class ThinkConstraint implements ActiveConstraint {
  readonly #trigger: Uint8Array;
  readonly #inner: ActiveConstraint;
  readonly #context: ConstraintContext;
  readonly #optional: boolean;
  // Tokens holding the trigger's last byte: the only ones that can complete it.
  readonly #candidates: number[] = [];
  // The last trigger.length - 1 bytes of free text, to find a trigger split across tokens.
  #tail = new Uint8Array(0);
  #thinking = true;

  constructor(trigger: string, inner: ActiveConstraint, context: ConstraintContext, optional: boolean, candidates?: number[]) {
    if (trigger.length === 0) throw new RangeError('ThinkThen needs a non-empty trigger');
    this.#trigger = new TextEncoder().encode(trigger);
    this.#inner = inner;
    this.#context = context;
    this.#optional = optional;
    const last = this.#trigger[this.#trigger.length - 1]!;
    if (candidates !== undefined) this.#candidates = candidates;
    else for (let id = 0; id < context.vocabIndex.tokenCount; id++) if (context.vocabIndex.tokenBytes(id).includes(last)) this.#candidates.push(id);
  }

  get bias(): Readonly<Record<number, number>> | undefined {
    return this.#thinking ? undefined : this.#inner.bias;
  }

  mask(): Brle {
    if (!this.#thinking) return this.#inner.mask();
    // Ban tokens that complete the trigger with leftover bytes the inner constraint rejects
    // (or that the inner constraint cannot judge), and EOS unless the free text may end.
    const { vocabIndex } = this.#context;
    const banned: number[] = this.#optional ? [] : [...this.#context.eosTokenIds];
    for (const id of this.#candidates) {
      const rest = this.#afterTrigger(vocabIndex.tokenBytes(id));
      if (rest !== null && rest.length > 0 && this.#inner.acceptsBytes(rest) !== true) banned.push(id);
    }
    return banMask(banned, vocabIndex.tokenCount);
  }

  maskIndexed(): boolean {
    return !this.#thinking && this.#inner.maskIndexed();
  }

  // While thinking a token is its bytes (the trigger may end inside it).
  commit(token: number): boolean {
    return this.#thinking ? this.commitBytes(this.#context.vocabIndex.tokenBytes(token)) : this.#inner.commit(token);
  }

  forced(): number[] {
    return this.#thinking ? [] : this.#inner.forced();
  }

  completion(): Uint8Array | null {
    if (this.#thinking) return this.#optional ? new Uint8Array(0) : null;
    return this.#inner.completion();
  }

  commitWithin(token: number, fits: (completion: Uint8Array) => boolean, known?: Uint8Array): boolean {
    if (!this.#thinking) return this.#inner.commitWithin(token, fits, known);
    if (!this.#optional) return this.commit(token);
    // A token that completes the trigger starts the inner constraint: only if its completion fits.
    const rest = this.#afterTrigger(this.#context.vocabIndex.tokenBytes(token));
    if (rest !== null) {
      const probe = this.#inner.fork();
      try {
        if (rest.length > 0 && !probe.commitBytes(rest)) return false;
        const completion = probe.completion();
        if (completion !== null && !fits(completion)) return false;
      } finally {
        probe.dispose();
      }
    }
    return this.commit(token);
  }

  accepting(): boolean | null {
    return this.#thinking ? this.#optional : this.#inner.accepting();
  }

  banned(token: number): boolean {
    return !this.#thinking && this.#inner.banned(token);
  }

  fork(): ActiveConstraint {
    const copy = new ThinkConstraint(new TextDecoder().decode(this.#trigger), this.#inner.fork(), this.#context, this.#optional, this.#candidates);
    copy.#tail = this.#tail;
    copy.#thinking = this.#thinking;
    return copy;
  }

  acceptsBytes(bytes: Uint8Array): boolean | null {
    if (!this.#thinking) return this.#inner.acceptsBytes(bytes);
    const rest = this.#afterTrigger(bytes);
    return rest === null || rest.length === 0 ? true : this.#inner.acceptsBytes(rest);
  }

  commitBytes(bytes: Uint8Array): boolean {
    if (!this.#thinking) return this.#inner.commitBytes(bytes);
    const rest = this.#afterTrigger(bytes);
    if (rest === null) {
      const joined = concatBytes(this.#tail, bytes);
      this.#tail = joined.slice(Math.max(0, joined.length - (this.#trigger.length - 1)));
      return true;
    }
    this.#thinking = false;
    return rest.length === 0 || this.#inner.commitBytes(rest);
  }

  dispose(): void {
    this.#inner.dispose();
  }

  // The bytes of `bytes` after the first trigger occurrence in tail + bytes, or null if none.
  #afterTrigger(bytes: Uint8Array): Uint8Array | null {
    const text = concatBytes(this.#tail, bytes);
    const trigger = this.#trigger;
    outer: for (let i = 0; i + trigger.length <= text.length; i++) {
      for (let j = 0; j < trigger.length; j++) if (text[i + j] !== trigger[j]) continue outer;
      return text.subarray(i + trigger.length);
    }
    return null;
  }
}

/** `a` then `b` (`b` itself when `a` is empty). */
export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
