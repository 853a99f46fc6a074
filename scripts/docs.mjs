// Regenerates the command reference (docs/commands/) and the man pages (man/) from the built CLI's
// command tree (run the build first: `npm run docs` does both), and package.json's `man` list.
// Idempotent: files whose text is unchanged are not rewritten; pages of commands that no longer
// exist are removed. test/unit/docs-generated.test.ts fails while these files differ from what
// the command tree generates.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { manField, renderReference } from './docs-render.mjs';

const root = new URL('../', import.meta.url);
const { commandPages, EXIT_CODE_HELP } = await import(new URL('dist/help-templates.js', root).href);
const pkgFile = new URL('package.json', root);
const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
const pages = commandPages();
const files = renderReference(pages, EXIT_CODE_HELP, pkg.version);

let changed = 0;
for (const dir of ['docs/commands', 'man']) {
  mkdirSync(new URL(dir, root), { recursive: true });
  for (const file of readdirSync(new URL(dir, root))) {
    if (!(`${dir}/${file}` in files)) {
      rmSync(new URL(`${dir}/${file}`, root));
      console.log(`removed ${dir}/${file}`);
      changed++;
    }
  }
}
for (const [path, text] of Object.entries(files)) {
  let old;
  try {
    old = readFileSync(new URL(path, root), 'utf8');
  } catch {
    old = undefined;
  }
  if (old === text) continue;
  writeFileSync(new URL(path, root), text);
  changed++;
}
const man = manField(pages);
if (JSON.stringify(pkg.man) !== JSON.stringify(man)) {
  // Written back as npm writes package.json: two spaces, a final newline, keys in their order.
  pkg.man = man;
  writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  console.log('package.json: man');
  changed++;
}
console.log(`${Object.keys(files).length} files for ${pages.length} commands; ${changed} changed`);
