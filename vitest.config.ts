import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  // What scripts/build.mjs defines for the bundle: code run from source in tests reports the same version
  // (an exported file names its schema by version, and tests compare in-process output with the built CLI's).
  define: { __LINKCTL_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ['test/**/*.test.ts'],
    // A guard against hangs, not a speed limit: on a loaded 2-core machine (both cores busy) a
    // test that spawns the CLI ten times took over 30 s, and a test that times out keeps running
    // in the background and disturbs the next one.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // End-to-end files spawn the CLI; two cores, so keep parallelism modest.
    maxWorkers: 2,
    // The built CLI (dist/) is loaded by Node as bin/linkctl.js loads it, not transformed by vitest:
    // tests that run it in-process (test/helpers.ts, runCli) run exactly the code users run.
    server: { deps: { external: [/\/dist\//] } },
  },
});
