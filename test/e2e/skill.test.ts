/**
 * skills/linkctl/SKILL.md, the agent skill: its frontmatter is what agents load (name,
 * description), and every `linkctl ...` command in it (in code blocks and inline code) is run
 * with `--help` against the built CLI: the command must exist (its usage line names it, any
 * words after it fit its arguments) and every flag it uses must be in its help. So the skill
 * cannot teach a command or flag that is gone. Nothing is sent: no key, a base URL under .invalid.
 */
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';

const SKILL = fileURLToPath(new URL('../../skills/linkctl/SKILL.md', import.meta.url));
const text = readFileSync(SKILL, 'utf8');
const config = tempDir('linkctl-skill-');
afterAll(() => rmSync(config, { recursive: true, force: true }));

/** Shell words of a command line, up to a pipe, redirection, `&&`, `;` or comment. */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    const word = m[1] ?? m[2] ?? m[3]!;
    if (m[3] && /^(\||>|>>|2>|&&|;|#)/.test(word)) break;
    out.push(word);
  }
  return out;
}

/** Every linkctl command line the skill shows: lines of its code blocks, and inline code (placeholders aside). */
function commands(): string[] {
  const found: string[] = [];
  for (const block of text.matchAll(/```(?:sh|bash|console)?\n([\s\S]*?)```/g)) {
    for (const line of block[1]!.split('\n')) if (line.trim().startsWith('linkctl ')) found.push(line.trim());
  }
  for (const span of text.matchAll(/(?<!`)`(linkctl [^`]+)`(?!`)/g)) if (!/[<>]/.test(span[1]!)) found.push(span[1]!);
  return [...new Set(found)];
}

describe('skills/linkctl/SKILL.md', () => {
  it('starts with the frontmatter agents load: name (the folder), description', () => {
    const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
    expect(m, 'frontmatter between --- lines').not.toBeNull();
    const front = parse(m![1]!) as Record<string, unknown>;
    expect(Object.keys(front)).toEqual(['name', 'description']);
    expect(front.name).toBe('linkctl');
    expect(front.name).toMatch(/^[a-z0-9-]{1,64}$/);
    expect(typeof front.description).toBe('string');
    expect((front.description as string).length).toBeGreaterThan(100);
    expect((front.description as string).length).toBeLessThanOrEqual(1024);
    expect(front.description).not.toMatch(/[<>]/);
    // Then the instructions, which say the safety rules.
    const body = text.slice(m![0].length);
    for (const rule of ['--dry-run', 'plan', '--json', 'Exit codes', 'key', 'linkctl mcp']) expect(body).toContain(rule);
  });

  const lines = commands();
  it('shows commands for the jobs users ask for', () => {
    expect(lines.length).toBeGreaterThan(30);
    for (const job of [/^linkctl link add --from /, /^linkctl qr add /, /^linkctl stats show /, /^linkctl check /, /^linkctl import /, /^linkctl plan /, /^linkctl apply /]) {
      expect(lines.some((l) => job.test(l)), String(job)).toBe(true);
    }
    expect(lines.filter((l) => /^linkctl auth token\b/.test(l) && !/Do not run/.test(text))).toEqual([]);
  });

  it.each(lines)('%s: the command exists with these flags', async (line) => {
    const argv = words(line).slice(1);
    const r = await runCli([...argv, '--help'], { env: { LINKCTL_CONFIG_DIR: config, LINKCTL_BASE_URL: 'http://skill-test.invalid' } });
    expect(r.code, r.stderr).toBe(0);
    const usage = /^Usage: linkctl (.*)$/m.exec(r.stdout);
    expect(usage, r.stdout).not.toBeNull();
    const usageWords = usage![1]!.split(' ');
    const path = usageWords.slice(0, usageWords.findIndex((w) => /^[[<]/.test(w)) >>> 0);
    const leading = argv.slice(0, (argv.findIndex((w) => w.startsWith('-')) + argv.length + 1) % (argv.length + 1) || argv.length);
    // The words before the first flag are the command's path, then at most as many arguments as it takes.
    // (A name in the usage line may carry its alias: `list|ls`.)
    expect(path.every((name, i) => name.split('|').includes(leading[i]!)), `${line}: the help is of "${path.join(' ')}"`).toBe(true);
    const argumentsTaken = usageWords.filter((w) => /^[[<]/.test(w) && w !== '[options]' && w !== '[command]');
    expect(usageWords.includes('[command]') && leading.length > path.length, `${line}: "${leading[path.length]}" is not a command of "${path.join(' ')}"`).toBe(false);
    expect(leading.length - path.length, `${line}: more words than "${path.join(' ')}" takes`).toBeLessThanOrEqual(argumentsTaken.some((w) => w.includes('...')) ? Infinity : argumentsTaken.length);
    for (const flag of argv.filter((w) => /^-{1,2}[a-zA-Z]/.test(w)).map((w) => w.split('=')[0]!)) {
      expect(r.stdout, `${line}: ${flag} is not an option of "${path.join(' ')}"`).toMatch(new RegExp(`(^|[\\s,])${flag.replace(/[-]/g, '\\-')}([\\s,]|$)`, 'm'));
    }
  });
});
