/**
 * Errors cross the worker boundary with their class and fields (code, span, pointer, limit, …):
 * comlink's default "throw" handler keeps only name and message.
 */
import { transferHandlers } from 'comlink';
import { MaskIndexFormatError } from '@sieve/format';
import { GrammarError, GrammarLimitError, InvalidSchemaError, MaskIndexMismatchError, SchemaError, UnsupportedSchemaError } from '@sieve/grammar/errors';
import { KernelError } from '@sieve/kernel';
import { DeadEndError, IncompleteOutputError, InvalidRequestError, ModelLoadError, LoadAbortedError, NotLoadedError, VocabMismatchError } from './errors.ts';

const ERROR_CLASSES: Record<string, new (...args: never[]) => Error> = {
  GrammarError,
  GrammarLimitError,
  SchemaError,
  UnsupportedSchemaError,
  InvalidSchemaError,
  KernelError,
  MaskIndexFormatError,
  MaskIndexMismatchError,
  ModelLoadError,
  LoadAbortedError,
  VocabMismatchError,
  DeadEndError,
  IncompleteOutputError,
  NotLoadedError,
  InvalidRequestError,
  RangeError,
  TypeError,
  SyntaxError,
};

interface SerializedThrow {
  readonly isError: boolean;
  readonly value: unknown;
}

/** Installs the handler (both sides of the boundary call it; it is idempotent). */
export function installErrorTransfer(): void {
  const thrown = transferHandlers.get('throw')!;
  transferHandlers.set('throw', {
    canHandle: thrown.canHandle,
    serialize(wrapped: unknown) {
      const value = (wrapped as { value: unknown }).value;
      if (!(value instanceof Error)) return [{ isError: false, value } satisfies SerializedThrow, []];
      const fields: Record<string, unknown> = { ...value, name: value.name, message: value.message, stack: value.stack };
      // A cause keeps its name and message (an Error does not survive JSON).
      if (value.cause instanceof Error) fields['cause'] = { name: value.cause.name, message: value.cause.message };
      return [{ isError: true, value: JSON.parse(JSON.stringify(fields)) as unknown } satisfies SerializedThrow, []];
    },
    deserialize(serialized: unknown) {
      const { isError, value } = serialized as SerializedThrow;
      if (!isError) throw value;
      const fields = value as { name?: string };
      const Class = ERROR_CLASSES[fields.name ?? ''] ?? Error;
      throw Object.assign(Object.create(Class.prototype) as Error, fields);
    },
  });
}
