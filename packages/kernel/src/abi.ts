/**
 * The kernel's ABI: status codes its exports return. Shared verbatim by the AssemblyScript
 * kernel and the TypeScript loader (integer constants only, so both compilers accept it).
 * The kernel never throws across the WASM boundary; the loader turns statuses into errors.
 */

export const STATUS_OK = 0;
/** A BRLE's runs do not add up to the vocabulary size given. */
export const STATUS_LENGTH_MISMATCH = -1;
/** The bytes are not a vocab index (bad magic number). */
export const STATUS_BAD_MAGIC = -2;
/** The vocab index has a version this kernel does not read. */
export const STATUS_BAD_VERSION = -3;
/** The vocab index is shorter than its header says, or a section lies outside it. */
export const STATUS_TRUNCATED = -4;
/** An output buffer is too small. */
export const STATUS_CAPACITY = -5;
