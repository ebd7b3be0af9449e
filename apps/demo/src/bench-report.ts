// How a bench page hands its result to its driver (Playwright): the JSON report in
// `body[data-report]` and `#status[data-state=ready]`, or the error in `#status` (state error).
export function publishReport(run: Promise<object>): void {
  const status = document.querySelector<HTMLElement>('#status')!;
  run.then(
    (report) => {
      document.body.dataset.report = JSON.stringify(report);
      status.dataset.state = 'ready';
    },
    (error: unknown) => {
      status.textContent = `Failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
      status.dataset.state = 'error';
    },
  );
}
