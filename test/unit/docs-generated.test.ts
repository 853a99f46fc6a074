/**
 * The command reference (docs/commands/) and the man pages (man/) are generated from the command
 * tree (issue 42), as gh checks its docs: regenerated here from the source, in memory, they must
 * equal the committed files. A description changed in src/ without `npm run docs` fails here.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandPages, EXIT_CODE_HELP } from '../../src/help-templates.js';
// @ts-expect-error: a plain ESM script shared with scripts/docs.mjs, without types of its own
import { manField, renderReference } from '../../scripts/docs-render.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; man?: string[]; files: string[] };
const pages = commandPages();
const expected = renderReference(pages, EXIT_CODE_HELP, pkg.version) as Record<string, string>;
const HINT = 'the generated reference is stale: run `npm run docs` and commit docs/commands/, man/ and package.json';

const committed = (dir: string) => readdirSync(join(ROOT, dir)).map((f) => `${dir}/${f}`);

describe('the generated command reference and man pages', () => {
  it('has a page and a man page for the program and every command, top-level ones included', () => {
    const topLevel = pages.filter((p) => p.path.length === 1).map((p) => p.path[0]);
    expect(topLevel).toEqual(expect.arrayContaining(['auth', 'account', 'qr', 'link', 'export', 'plan', 'apply', 'import', 'stats', 'check', 'api', 'sandbox', 'mcp']));
    for (const name of topLevel) {
      expect(committed('docs/commands'), HINT).toContain(`docs/commands/linkctl-${name}.md`);
      expect(committed('man'), HINT).toContain(`man/linkctl-${name}.1`);
    }
  });

  it('equals what the command tree generates, file by file, with no page left of a removed command', () => {
    const stale: string[] = [];
    for (const [path, text] of Object.entries(expected)) {
      let now: string | undefined;
      try {
        now = readFileSync(join(ROOT, path), 'utf8');
      } catch {
        now = undefined;
      }
      if (now !== text) stale.push(`${path}: ${now === undefined ? 'missing' : 'differs from the program'}`);
    }
    for (const path of [...committed('docs/commands'), ...committed('man')]) if (!(path in expected)) stale.push(`${path}: no such command`);
    expect(stale, HINT).toEqual([]);
  });

  it('package.json lists every man page (so `man linkctl-link-add` works after an install), each troff, and ships man/', () => {
    expect(pkg.man, HINT).toEqual(manField(pages));
    expect(pkg.files).toContain('man/');
    for (const path of pkg.man!) {
      const text = readFileSync(join(ROOT, path), 'utf8');
      expect(path).toMatch(/^man\/linkctl(-[a-z0-9-]+)?\.1$/);
      expect(text).toMatch(/^\.\\" .*\n\.TH "LINKCTL[A-Z0-9-]*" "1" /);
      expect(text).toMatch(/\n\.SH NAME\n\S+ \\- /);
    }
  });

  it('renders what the help says: a description changed in the tree changes its page', () => {
    const page = pages.find((p) => p.path.join(' ') === 'link add')!;
    expect(expected['docs/commands/linkctl-link-add.md']).toContain(`\n${page.description}\n`);
    const changed = renderReference(pages.map((p) => (p === page ? { ...p, description: 'Shorten a URL, changed' } : p)), EXIT_CODE_HELP, pkg.version) as Record<string, string>;
    expect(changed['docs/commands/linkctl-link-add.md']).not.toBe(expected['docs/commands/linkctl-link-add.md']);
    expect(changed['man/linkctl-link-add.1']).toContain('linkctl-link-add \\- Shorten a URL, changed');
  });

  // man-db's MANWIDTH=80 is groff's line length of 80 (`-rLL=80n -rLT=80n`); every page, one groff run.
  const groff = spawnSync('groff', ['--version'], { stdio: 'ignore' }).status === 0;
  it.skipIf(!groff)(`every man page fits 80 columns, its notes and examples included${groff ? '' : ' (skipped: groff is not installed)'}`, () => {
    const pagesText = spawnSync('groff', ['-man', '-Tutf8', '-rLL=80n', '-rLT=80n', ...committed('man').map((f) => join(ROOT, f))], { encoding: 'utf8', maxBuffer: 64 << 20 }).stdout;
    // Overstrikes (bold: c\bc, underline: _\bc) are one column each.
    const lines = pagesText.replace(/.\u0008/g, '').split('\n');
    expect(lines.length).toBeGreaterThan(1000);
    expect(lines.filter((line) => [...line].length > 80)).toEqual([]);
  });
});
