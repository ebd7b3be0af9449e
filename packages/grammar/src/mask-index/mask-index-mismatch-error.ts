/** Thrown when a mask index does not belong to the grammar or the vocabulary it is used with. */
export class MaskIndexMismatchError extends Error {
  override readonly name = 'MaskIndexMismatchError';
  constructor(
    readonly what: 'grammar' | 'vocab',
    message: string,
  ) {
    super(message);
  }
}
