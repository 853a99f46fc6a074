// Bundles src/ into dist/: esbuild turns the sources into one small entry chunk (commander and
// the command definitions) and lazily loaded chunks for actions, the API layer, conf, chalk, ora,
// cli-table3 and the sandbox, so start-up reads little; then rollup regroups esbuild's chunks
// (regroupChunks below): a command loaded 70-90 of them, and Node 20 pays for each.
import { build } from 'esbuild';
import { rollup } from 'rollup';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const dist = fileURLToPath(new URL('../dist', import.meta.url));
// help-templates.js renders every command's help for bin/linkctl.js, at build time only.
// listen-door.js is the thread `linkctl listen` answers posts on (src/listen/door-thread.ts).
const ENTRIES = { linkctl: 'src/run.ts', 'help-templates': 'src/help-templates.ts', 'listen-door': 'src/listen/door-thread.ts' };
// undici (proxies), @napi-rs/keyring and libsql (native addons) and pg (click history in
// PostgreSQL) stay runtime dependencies loaded at run time, by the commands that use them.
const EXTERNAL = ['undici', '@napi-rs/keyring', 'libsql', 'pg', '@resvg/resvg-js', 'zxing-wasm'];
// dist/ is not emptied for everyday builds (tests read it while others build; stale chunks are
// harmless there). `--clean` (npm pack's prepack) empties it first, so no stale chunk ships.
if (process.argv.includes('--clean')) rmSync(dist, { recursive: true, force: true });
const stage = mkdtempSync(join(tmpdir(), 'linkctl-build-'));
try {
  await build({
    entryPoints: ENTRIES,
    outdir: stage,
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
    external: EXTERNAL,
    // Bundled CommonJS packages call require() for Node built-ins; ESM has no require of its own.
    // Marked pure so that rollup (below) leaves it out of a chunk whose code never calls it.
    banner: { js: "import { createRequire as __linkctlCreateRequire } from 'node:module'; const require = /* @__PURE__ */ __linkctlCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  await regroupChunks(stage);
  // complete.cjs answers the shell completion scripts' question for profile names at each TAB,
  // reading the config file and loading nothing else: one CommonJS file that bin/linkctl.js
  // require()s, since the first import() of an ES module starts Node's ESM loader, which took a
  // third of a TAB (37.6 against 29.8 ms; `node -e 0`: 24.9 ms).
  await build({
    entryPoints: ['src/completion/complete.ts'],
    outfile: join(dist, 'complete.cjs'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    minifyWhitespace: true,
    minifySyntax: true,
    external: EXTERNAL,
    logLevel: 'warning',
  });
} finally {
  rmSync(stage, { recursive: true, force: true });
}

/**
 * esbuild puts a module in a chunk of its own for each set of entries and lazily loaded modules
 * that use it, and has no setting to do otherwise: ~90 lazily loaded modules made ~190 chunks,
 * most under 2 KB, and a 400-row `link add --from` loaded 88 of them, its start-up spent mostly in
 * Node's ESM loader (resolving ~350 imports at ~60 µs each, then reading, compiling and linking
 * each file). rollup, reading esbuild's output as its input, leaves out of a lazily loaded chunk
 * what its importer has always loaded already, and groups the rest by who loads it: the same run
 * loads 59 modules, the same code, and its first request leaves 10-27 ms sooner (issue 52,
 * docs/performance.md). Its `experimentalMinChunkSize` would merge further (35 modules), but it
 * merges small modules into the start-up chunk (history and sandbox helpers that `--help` and
 * completion never use; test/startup.test.ts) and makes `link add` load 126 KB more code: not used.
 * The source maps run through to src/ (test/startup.test.ts reads them).
 */
async function regroupChunks(from) {
  const bundle = await rollup({
    input: Object.fromEntries(Object.keys(ENTRIES).map((name) => [name, join(from, `${name}.js`)])),
    external: (id) => id.startsWith('node:') || builtinModules.includes(id) || EXTERNAL.some((e) => id === e || id.startsWith(`${e}/`)),
    plugins: [{ name: 'esbuild-source-maps', load: (id) => (id.startsWith(from) ? { code: readFileSync(id, 'utf8'), map: existsSync(`${id}.map`) ? readFileSync(`${id}.map`, 'utf8') : null } : null) }],
    logLevel: 'warn',
  });
  try {
    await bundle.write({
      dir: dist,
      format: 'es',
      sourcemap: true,
      entryFileNames: '[name].js',
      // Named after a module in it, without esbuild's hash (rollup adds its own).
      chunkFileNames: (chunk) => `chunks/${chunk.name.replace(/-[A-Z0-9]{8}$/, '')}-[hash].js`,
    });
  } finally {
    await bundle.close();
  }
}

// `linkctl --help` printed by bin/linkctl.js without loading the CLI (the CLI costs ~30 ms of
// start-up, the text never changes between builds). Rendered here by the CLI itself, with
// stdout a pipe so commander wraps at its default 80 columns; bin serves it only when stdout
// is not a terminal (a terminal's width may differ). Written atomically: tests read it while
// others build. If rendering fails, the file is removed and bin falls back to the CLI.
const help = spawnSync(
  process.execPath,
  ['--input-type=module', '-e', "const { run } = await import('./dist/linkctl.js'); await run(['--help']);"],
  { cwd: new URL('..', import.meta.url), env: { PATH: process.env.PATH }, encoding: 'utf8' },
);
const helpFile = new URL('../dist/help.txt', import.meta.url);
if (help.status === 0 && help.stdout.startsWith('Usage: linkctl')) {
  const tmp = new URL(`../dist/.help.txt.${process.pid}`, import.meta.url);
  writeFileSync(tmp, help.stdout);
  renameSync(tmp, helpFile);
} else {
  rmSync(helpFile, { force: true });
  console.warn(`build: could not render dist/help.txt (exit ${help.status}); linkctl --help will load the CLI\n${help.stderr}`);
}

// Every command's help (`linkctl qr add --help`, `linkctl help qr add`, and `--help` on a
// terminal), as templates that bin/linkctl.js wraps at the terminal's width without loading
// the CLI: dist/help/linkctl[.command...].txt. Written to a new folder that then replaces the
// old one, so a removed command leaves no stale help; without it bin falls back to the CLI.
const templates = spawnSync(
  process.execPath,
  ['--input-type=module', '-e', "const { helpTemplates } = await import('./dist/help-templates.js'); process.stdout.write(JSON.stringify(helpTemplates()));"],
  { cwd: new URL('..', import.meta.url), env: { PATH: process.env.PATH }, encoding: 'utf8', maxBuffer: 64 << 20 },
);
const helpDir = new URL('../dist/help', import.meta.url);
if (templates.status === 0) {
  const fresh = new URL(`../dist/.help.${process.pid}`, import.meta.url);
  mkdirSync(fresh, { recursive: true });
  for (const [path, text] of Object.entries(JSON.parse(templates.stdout))) {
    writeFileSync(new URL(`${['linkctl', ...(path ? path.split(' ') : [])].join('.')}.txt`, `${fresh.href}/`), text);
  }
  const old = new URL(`../dist/.help-old.${process.pid}`, import.meta.url);
  try {
    renameSync(helpDir, old);
  } catch {
    // No help folder yet.
  }
  renameSync(fresh, helpDir);
  rmSync(old, { recursive: true, force: true });
} else {
  rmSync(helpDir, { recursive: true, force: true });
  console.warn(`build: could not render dist/help/ (exit ${templates.status}); command help will load the CLI\n${templates.stderr}`);
}
