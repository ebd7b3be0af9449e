// Every e2e test runs under the apps' strict Content-Security-Policy and fails on any
// violation: the servers' policy sends reports (from pages and workers alike) to
// CSP_REPORT_PATH, and those requests are collected here.
import { expect, test as base } from '@playwright/test';
import { CSP_REPORT_PATH } from '../packages/runtime/src/vite-plugin.ts';

export const test = base.extend<{ cspViolations: string[] }>({
  cspViolations: [
    async ({ context }, use) => {
      const violations: string[] = [];
      context.on('request', (request) => {
        if (new URL(request.url()).pathname === CSP_REPORT_PATH) violations.push(request.postData() ?? '(no report body)');
      });
      await use(violations);
      expect(violations, 'Content-Security-Policy violations').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
export type { Page } from '@playwright/test';
