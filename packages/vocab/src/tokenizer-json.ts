/**
 * Reads the parts of a Hugging Face `tokenizer.json` that decide what bytes each token id
 * stands for: the model's vocabulary, the added tokens and the decoder chain.
 */
import { fingerprint, vocabLayout } from '@sieve/format';

/** The subset of `tokenizer.json` this package reads. */
export interface TokenizerJson {
  readonly model: {
    readonly type: string;
    readonly vocab: Record<string, number> | readonly (readonly [string, number])[];
    readonly byte_fallback?: boolean;
  };
  readonly added_tokens?: readonly { readonly id: number; readonly content: string; readonly special: boolean }[];
  readonly normalizer?: unknown;
  readonly decoder?: TokenizerDecoder | null;
}

/** A node of the `decoder` chain. */
export interface TokenizerDecoder {
  readonly type: string;
  readonly decoders?: readonly TokenizerDecoder[];
  readonly pattern?: { readonly String?: string; readonly Regex?: string };
  readonly content?: string;
  readonly replacement?: string;
}

/** Thrown when a tokenizer.json cannot be turned into exact token bytes. */
export class TokenizerError extends Error {
  override readonly name = 'TokenizerError';
  constructor(
    readonly code: 'unsupported_model' | 'unsupported_decoder' | 'bad_tokenizer',
    message: string,
  ) {
    super(message);
  }
}

/** Every token id's exact bytes and flags (`vocabLayout.TOKEN_*`). */
export interface TokenTable {
  readonly tokens: readonly Uint8Array[];
  readonly flags: Uint8Array;
  /** `byte-level` (GPT-2 style BPE) or `sentencepiece` (▁ for space, optional byte fallback). */
  readonly decoder: 'byte-level' | 'sentencepiece';
}

const BYTE_FALLBACK_PIECE = /^<0x([0-9A-Fa-f]{2})>$/;

/**
 * Derives each token's bytes the way the tokenizer's decoder would produce them in the
 * middle of a sequence. Sequence-level decoder steps (`Strip` of a leading space) do not
 * apply to a single token in context and are ignored.
 */
export function readTokenTable(json: TokenizerJson): TokenTable {
  const pieces = modelPieces(json);
  const added = new Map<number, { content: string; special: boolean }>();
  for (const token of json.added_tokens ?? []) added.set(token.id, token);
  const tokenCount = Math.max(pieces.length, ...Array.from(added.keys(), (id) => id + 1));
  const steps = decoderSteps(json.decoder ?? null);
  const byteLevel = steps.includes('byte-level');
  const byteFallback = steps.includes('byte-fallback') || json.model.byte_fallback === true;
  const decodePiece = byteLevel ? byteLevelDecoder() : sentencePieceDecoder(json.decoder ?? null);

  const tokens: Uint8Array[] = [];
  const flags = new Uint8Array(tokenCount);
  const encoder = new TextEncoder();
  for (let id = 0; id < tokenCount; id++) {
    const addedToken = added.get(id);
    const piece = addedToken?.content ?? pieces[id];
    let bytes: Uint8Array;
    if (piece === undefined) {
      bytes = new Uint8Array(0);
    } else if (addedToken?.special) {
      bytes = encoder.encode(piece);
      flags[id] |= vocabLayout.TOKEN_SPECIAL;
    } else if (addedToken !== undefined) {
      // Byte-level decoders pass added tokens through verbatim; other chains rewrite them.
      bytes = byteLevel ? encoder.encode(piece) : decodePiece(piece);
      flags[id] |= vocabLayout.TOKEN_ADDED;
    } else {
      const byte = byteFallback ? BYTE_FALLBACK_PIECE.exec(piece) : null;
      if (byte !== null) {
        bytes = Uint8Array.of(parseInt(byte[1]!, 16));
        flags[id] |= vocabLayout.TOKEN_BYTE_FALLBACK;
      } else {
        bytes = decodePiece(piece);
      }
    }
    if (bytes.length === 0) flags[id] |= vocabLayout.TOKEN_EMPTY;
    tokens.push(bytes);
  }
  return { tokens, flags, decoder: byteLevel ? 'byte-level' : 'sentencepiece' };
}

/** Token ids named by `tokenizer_config.json`-style settings, resolved against the table. */
export function findTokenId(json: TokenizerJson, content: string): number | null {
  for (const token of json.added_tokens ?? []) if (token.content === content) return token.id;
  const vocab = json.model.vocab;
  if (Array.isArray(vocab)) {
    const index = vocab.findIndex(([piece]) => piece === content);
    return index < 0 ? null : index;
  }
  return (vocab as Record<string, number>)[content] ?? null;
}

function modelPieces(json: TokenizerJson): (string | undefined)[] {
  const { type, vocab } = json.model ?? {};
  const pieces: (string | undefined)[] = [];
  if (type === 'BPE' || type === 'WordLevel') {
    for (const [piece, id] of Object.entries(vocab as Record<string, number>)) pieces[id] = piece;
  } else if (type === 'Unigram') {
    (vocab as readonly (readonly [string, number])[]).forEach(([piece], id) => (pieces[id] = piece));
  } else {
    throw new TokenizerError('unsupported_model', `tokenizer model type ${String(type)} is not supported (BPE and Unigram are)`);
  }
  return pieces;
}

type DecoderStep = 'byte-level' | 'byte-fallback' | 'replace' | 'metaspace' | 'ignored';

function decoderSteps(decoder: TokenizerDecoder | null): DecoderStep[] {
  if (decoder === null) return [];
  switch (decoder.type) {
    case 'Sequence':
      return (decoder.decoders ?? []).flatMap(decoderSteps);
    case 'ByteLevel':
      return ['byte-level'];
    case 'ByteFallback':
      return ['byte-fallback'];
    case 'Replace':
      if (decoder.pattern?.String === undefined) throw new TokenizerError('unsupported_decoder', 'Replace decoders with a regex pattern are not supported');
      return ['replace'];
    case 'Metaspace':
      return ['metaspace'];
    // Fuse joins strings and Strip trims the start of the whole output: neither changes
    // the bytes a token adds in the middle of a sequence.
    case 'Fuse':
    case 'Strip':
      return ['ignored'];
    default:
      throw new TokenizerError('unsupported_decoder', `tokenizer decoder ${decoder.type} is not supported`);
  }
}

// GPT-2's reversible map from bytes to printable characters, inverted.
function byteLevelDecoder(): (piece: string) => Uint8Array {
  const charToByte = new Map<number, number>();
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    charToByte.set(printable ? b : 256 + extra++, b);
  }
  return (piece) => {
    const out: number[] = [];
    for (const char of piece) {
      const byte = charToByte.get(char.codePointAt(0)!);
      if (byte === undefined) throw new TokenizerError('bad_tokenizer', `byte-level token ${JSON.stringify(piece)} has a character outside the byte alphabet`);
      out.push(byte);
    }
    return Uint8Array.from(out);
  };
}

function sentencePieceDecoder(decoder: TokenizerDecoder | null): (piece: string) => Uint8Array {
  const replacements: [string, string][] = [];
  const collect = (d: TokenizerDecoder | null): void => {
    if (d === null) return;
    if (d.type === 'Sequence') d.decoders?.forEach(collect);
    if (d.type === 'Replace') replacements.push([d.pattern!.String!, d.content ?? '']);
    if (d.type === 'Metaspace') replacements.push([d.replacement ?? '▁', ' ']);
  };
  collect(decoder);
  const encoder = new TextEncoder();
  return (piece) => encoder.encode(replacements.reduce((text, [from, to]) => text.split(from).join(to), piece));
}

/**
 * The fingerprint of what decides a tokenizer's token bytes and special tokens: the model
 * type and vocabulary, the added tokens and the decoder chain (16 hex digits; tens of
 * milliseconds for 262k tokens, where reading the token table takes a second). A vocab
 * index records its tokenizer's (`VocabMeta.tokenizer_fingerprint`), so that a loaded
 * tokenizer can prove the index is its own.
 */
export function tokenizerFingerprint(json: TokenizerJson): string {
  const encoder = new TextEncoder();
  return fingerprint(
    [json.model.type, JSON.stringify(json.model.vocab), JSON.stringify(json.added_tokens ?? []), JSON.stringify(json.decoder ?? null)].map((part) =>
      encoder.encode(part),
    ),
  );
}
