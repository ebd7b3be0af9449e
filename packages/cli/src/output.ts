/** How a command reports: JSON on stdout for machines, text for people. */
export interface Output {
  readonly json: boolean;
  /** Prints the result: `data` as one JSON document, or `text()` for people. */
  result(data: unknown, text: () => string): void;
  /** Prints progress for people (stderr, so stdout stays parseable). */
  progress(message: string): void;
}

export function makeOutput(json: boolean, stdout: (s: string) => void, stderr: (s: string) => void): Output {
  return {
    json,
    result: (data, text) => stdout(json ? JSON.stringify(data) : text()),
    progress: (message) => {
      if (!json) stderr(message);
    },
  };
}

/** An error the CLI reports and exits on, with the exit code DESIGN.md gives it. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}
