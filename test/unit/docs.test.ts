/**
 * The README and the guides in docs/ (issue 42): a short README with the way in, a guide per job,
 * nothing of the old 2,196-line README lost, and every relative link resolving (file and anchor).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const README = read('README.md');

/** README.md and every Markdown file under docs/ (the generated command reference included). */
function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : []));
  return ['README.md', ...walk('docs')];
}
/** The guides: docs/*.md but the index. */
const guides = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'README.md');

/** Lines outside fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}
const headings = (text: string) => prose(text).flatMap((line) => /^#{1,6} (.*)$/.exec(line)?.[1] ?? []);
/** GitHub's anchor for a heading: lower case, punctuation out, spaces to hyphens. */
const anchor = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

/**
 * Guides other branches of issue 38-44 add: linked from here, they arrive with the merge. A link
 * to one of these may not resolve yet; any other missing file fails, and once a file is there
 * its links are checked like every other.
 */
const FROM_OTHER_BRANCHES = new Set(['docs/qr-images.md', 'docs/sandbox.md', 'docs/listen.md', 'docs/warehouse.md', 'docs/governance.md', 'docs/ledger.md']);

/**
 * Where a line that says "below" or "above" points (issue 53: "see below" for sections that live in
 * other guides): the link to a heading of the same file in that line, or a problem. The heading must
 * lie in the direction the word says. A line without such a link names nothing a reader can find.
 */
export function directionProblems(file: string, text: string): string[] {
  const lines = text.split('\n');
  let fenced = false;
  const headingAt = new Map<string, number>();
  lines.forEach((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading) headingAt.set(anchor(heading), i);
  });
  const problems: string[] = [];
  fenced = false;
  lines.forEach((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced || line.startsWith('```')) return;
    for (const [word] of line.matchAll(/\b(below|above)\b/gi)) {
      const targets = [...line.matchAll(/\]\(#([^)\s]+)\)/g)].map((m) => headingAt.get(m[1]!));
      const want = word.toLowerCase() === 'below' ? (at: number) => at > i : (at: number) => at < i;
      if (!targets.some((at) => at !== undefined && want(at))) problems.push(`${file}:${i + 1}: "${word}" with no link to a heading of this file ${word.toLowerCase()} it: ${line.trim().slice(0, 100)}`);
    }
  });
  return problems;
}

describe('the README', () => {
  it('is 300 lines or fewer, with the install and test commands, a first run in the sandbox, and links into docs/', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300);
    // .ci/run runs `npm test`, "the README's test command".
    expect(README).toMatch(/^npm install\b/m);
    expect(README).toMatch(/^npm test\b/m);
    const firstRun = /## A first run[^\n]*\n([\s\S]*?)\n## /.exec(README)?.[1] ?? '';
    const block = /```console\n([\s\S]*?)```/.exec(firstRun)?.[1] ?? '';
    expect(block.split('\n').length).toBeLessThan(30);
    for (const command of ['link list', 'link add', 'check', 'stats']) expect(block).toContain(`$ linkctl --sandbox ${command}`);
    // Its ports differ from command to command and its short URLs stop with the command: it says so, and where a lasting one is (issue 53).
    expect(firstRun).toMatch(/port of its own[\s\S]*answer only meanwhile[\s\S]*`linkctl sandbox serve`/);
    // How long the test command takes.
    expect(README).toMatch(/^npm test .*about \d+ minutes/m);
    const intoDocs = new Set([...README.matchAll(/\]\((docs\/[^)#]+)/g)].map((m) => m[1]));
    expect(intoDocs.size).toBeGreaterThanOrEqual(5);
  });
});

describe('the guides', () => {
  it('are eight or more, each opening with what its reader will be able to do', () => {
    expect(guides.length).toBeGreaterThanOrEqual(8);
    for (const guide of guides) {
      const [title, , opening] = read(`docs/${guide}`).split('\n');
      expect(title, guide).toMatch(/^# /);
      // Other branches' guides open in their own words; ours say it the same way.
      if (!FROM_OTHER_BRANCHES.has(`docs/${guide}`)) expect(opening, guide).toMatch(/^With this guide you will be able to /);
    }
  });

  it('teach every topic the README of 2026-11-28 taught: each of its sections is a section of a guide or of the README', () => {
    // The ## and ### headings of the README before issue 42 (2,196 lines), in its order. Its text was
    // moved into docs/ whole (checked line by line when it was moved: three lines that said "this
    // README" were reworded); a section renamed or dropped since must be renamed here on purpose.
    const before = [
      'Install', 'Develop and test', 'Try it in a minute, without an account', 'A two-minute tour', "The sandbox as the product's twin",
      'Log in to a real server', 'In CI', 'Commands', 'Account', 'QR codes', 'Short links', 'Branded domains', 'Campaigns', 'Channels',
      'Tracking pixels', 'CTA overlays and splash pages (read only)', 'Any endpoint: `linkctl api`', 'Links as code',
      'A way out: every link as a static redirect map', 'Links as code in CI', 'The action', 'Moving from another shortener', 'Scripting',
      'Bulk', 'Click history', 'Link health', 'Shell completion', 'AI agents: `linkctl mcp`', 'Exit codes', 'What you see when things go wrong',
      'Files, journals and hostile input', 'Faults and attacks', 'Performance', 'Architecture', 'One model of the account, read once', 'Requests per job',
    ];
    const now = new Map<string, string>();
    for (const file of markdownFiles()) {
      const text = read(file);
      for (const heading of headings(text)) {
        // A section that teaches something: at least one line of prose or code under its heading.
        const body = text.split(new RegExp(`^#{1,6} ${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`, 'm'))[1] ?? '';
        if (body.replace(/^#.*$/gm, '').trim()) now.set(heading, file);
      }
    }
    expect(before.filter((heading) => !now.has(heading))).toEqual([]);
    // What people grep the old README for, from the issue: still somewhere in the guides.
    const all = markdownFiles().map(read).join('\n');
    for (const needle of ['--allow-private', '--encoding windows-1252', 'allowScripts', 'esbuild', 'zxing-wasm', '--if-exists', 'LINKCTL_API_KEY']) expect(all).toContain(needle);
  });

  it('every relative link of the README and docs/ resolves: the file exists, and a #anchor is one of its headings', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = read(file);
      for (const [, target] of prose(text).join('\n').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith('//')) continue; // https:, mailto: and the like
        const [path, hash] = target!.split('#') as [string, string | undefined];
        const resolved = path ? normalize(relative(ROOT, join(ROOT, dirname(file), path))) : file;
        if (!existsSync(join(ROOT, resolved))) {
          if (!FROM_OTHER_BRANCHES.has(resolved)) broken.push(`${file}: ${target} (no ${resolved})`);
          continue;
        }
        if (hash && resolved.endsWith('.md') && !headings(read(resolved)).map(anchor).includes(hash)) broken.push(`${file}: ${target} (no heading #${hash} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every "below" and "above" in the README and the guides links to the heading it means, which is there', () => {
    // The command reference (docs/commands/) is the help's text, where "below" is the list that follows.
    const problems = markdownFiles().filter((file) => !file.startsWith('docs/commands/')).flatMap((file) => directionProblems(file, read(file)));
    expect(problems).toEqual([]);
  });

  it('send no editor to a URL under the npm name `linkctl`, which is not this project\'s (issue 53): schemas are files beside the file', () => {
    const named = markdownFiles().filter((file) => /unpkg\.com\/linkctl|jsdelivr\.net\/npm\/linkctl/.test(read(file)));
    expect(named).toEqual([]);
    for (const schema of ['schema/policy.schema.json', 'schema/linkctl.schema.json']) expect(JSON.parse(read(schema)).$id).not.toMatch(/^https?:/);
  });

  it('finds a "below" that names no section, or one that is not below (the rule itself)', () => {
    const text = '# Guide\n\nSee [the chain](#the-chain) below.\nSee the setup below.\nAs [the chain](#the-chain) above says.\n\n## The chain\n';
    expect(directionProblems('g.md', text)).toEqual([
      'g.md:4: "below" with no link to a heading of this file below it: See the setup below.',
      'g.md:5: "above" with no link to a heading of this file above it: As [the chain](#the-chain) above says.',
    ]);
  });
});
