// Unit tests (`pnpm test:unit`, `vitest run`): the kernel's debug build, whose assertions are
// checked (`defaultKernelUrl` in packages/kernel/src/kernel.ts), instead of the release build
// the apps ship.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    env: { SIEVE_KERNEL: 'debug' },
  },
});
