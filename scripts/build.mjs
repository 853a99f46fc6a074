// Bundles src/ into dist/ with esbuild: one small entry chunk (commander and the command
// definitions) and lazily loaded chunks for actions, the API layer, conf, chalk, ora,
// cli-table3 and the sandbox, so start-up reads little.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// dist/ is not emptied first: stale chunks are harmless, and a clean clone starts empty.
await build({
  entryPoints: { linkctl: 'src/run.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  chunkNames: 'chunks/[name]-[hash]',
  define: { __LINKCTL_VERSION__: JSON.stringify(pkg.version) },
  // undici is only for proxies; it stays a normal dependency loaded at run time.
  external: ['undici'],
  // Bundled CommonJS packages call require() for Node built-ins; ESM has no require of its own.
  banner: { js: "import { createRequire as __linkctlCreateRequire } from 'node:module'; const require = __linkctlCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
