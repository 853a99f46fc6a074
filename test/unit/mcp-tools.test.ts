/** The MCP tool model in-process: every command classified, and a call's arguments turned into an argv. */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { ACCESS, allowed, argvOf, checkArguments, forMode, inToolTerms, leaves, toolsOf, type Tool } from '../../src/mcp/tools.js';

const quiet = { write: () => true };
const program = buildProgram({ stdout: quiet, stderr: quiet, stdin: (async function* () {})(), env: {} }, () => async () => undefined);
const tools = toolsOf(program);
const tool = (name: string): Tool => tools.find((t) => t.name === name)!;

describe('classification (src/mcp/tools.ts ACCESS)', () => {
  it('every leaf command is classified as read, write, confirm, delete or skipped with a reason', () => {
    const missing = leaves(program).map(({ path }) => path.join(' ')).filter((p) => ACCESS[p] === undefined);
    expect(missing, 'classify these commands in ACCESS (src/mcp/tools.ts)').toEqual([]);
    for (const [path, entry] of Object.entries(ACCESS)) if (typeof entry !== 'string') expect(entry.skip.length, path).toBeGreaterThan(10);
  });

  it('every delete command is a delete tool, and nothing that lists or shows is more than read', () => {
    for (const t of tools) {
      if (t.path.at(-1) === 'delete') expect(t.access, t.name).toBe('delete');
      if (['list', 'get', 'items'].includes(t.path.at(-1)!)) expect(t.access, t.name).toBe('read');
    }
  });

  it('modes: read always; writes with --allow-writes; deletes need both flags', () => {
    expect(allowed('read', { writes: false, deletes: false })).toBe(true);
    expect(allowed('write', { writes: false, deletes: false })).toBe(false);
    expect(allowed('confirm', { writes: true, deletes: false })).toBe(true);
    expect(allowed('delete', { writes: true, deletes: false })).toBe(false);
    expect(allowed('delete', { writes: false, deletes: true })).toBe(false);
    expect(allowed('delete', { writes: true, deletes: true })).toBe(true);
  });
});

describe('options that do more than their command (OPTION_ACCESS)', () => {
  // `apply` (issue 12) writes, and deletes with --prune; built here as its definition does.
  const withApply = new Command('linkctl');
  withApply.command('apply').description('Make the account match a file').requiredOption('-f, --file <path>', 'the account file').option('--prune', 'also delete').action(() => undefined);
  withApply.command('mcp').action(() => undefined);
  withApply.command('new-thing').action(() => undefined);
  const all = toolsOf(withApply);

  it('a command missing from ACCESS is no tool; mcp is skipped', () => {
    expect(all.map((t) => t.name)).toEqual(['apply']);
  });

  it('apply is listed with --allow-writes, its prune only with --allow-deletes too', () => {
    expect(forMode(all, { writes: false, deletes: false })).toEqual([]);
    expect(forMode(all, { writes: true, deletes: false })[0]!.params.map((p) => p.name)).toEqual(['file', 'dryRun', 'confirm']);
    expect(forMode(all, { writes: true, deletes: true })[0]!.params.map((p) => p.name)).toEqual(['file', 'prune', 'dryRun', 'confirm']);
  });
});

describe('arguments to argv', () => {
  it('options as --flag=value, lists as repeated flags, positionals after --, --json always', () => {
    const args = { url: 'https://example.com', geo: ['Canada=https://example.ca', 'France=https://example.fr'], pixel: [1, 2], public: true };
    expect(checkArguments(tool('link_add'), args)).toBeUndefined();
    expect(argvOf(tool('link_add'), args)).toEqual([
      'link', 'add', '--geo=Canada=https://example.ca', '--geo=France=https://example.fr', '--pixel=1', '--pixel=2', '--public', '--json', '--', 'https://example.com',
    ]);
  });

  it('dryRun and confirm become --dry-run and --yes; false booleans send nothing unless negated', () => {
    expect(argvOf(tool('qr_delete'), { id: 3, dryRun: true, confirm: true })).toEqual(['qr', 'delete', '--dry-run', '--yes', '--json', '--', '3']);
    expect(argvOf(tool('channel_update'), { id: 3, starred: false })).toEqual(['channel', 'update', '--no-starred', '--json', '--', '3']);
    expect(argvOf(tool('channel_update'), { id: 3, starred: true })).toEqual(['channel', 'update', '--starred', '--json', '--', '3']);
    expect(argvOf(tool('link_add'), { url: 'https://example.com', public: false })).toEqual(['link', 'add', '--json', '--', 'https://example.com']);
  });

  it('repeatable flags are lists: marked by many(), or found to append to the previous value (api --field)', () => {
    expect(tool('link_add').params.find((p) => p.name === 'geo')!.list).toBe(true);
    expect(tool('link_update').params.find((p) => p.name === 'clear')!.list).toBe(true);
    expect(tool('api').params.find((p) => p.name === 'field')!.list).toBe(true);
    expect(tool('link_add').params.find((p) => p.name === 'alias')!.list).toBe(false);
    expect(tool('qr_list').params.find((p) => p.name === 'limit')!.list).toBe(false);
  });

  it('schema checks: unknown properties, wrong types, missing required ones', () => {
    expect(checkArguments(tool('qr_get'), { id: 1, extra: 2 })).toMatch(/unknown property "extra"/);
    expect(checkArguments(tool('qr_get'), {})).toMatch(/id is required/);
    expect(checkArguments(tool('link_add'), { url: 'https://x.example', geo: 'Canada=https://example.ca' })).toBeUndefined(); // a list of one
    expect(checkArguments(tool('link_add'), { url: ['https://x.example'] })).toMatch(/url takes one value, not a list/);
    expect(checkArguments(tool('link_add'), { url: 'https://x.example', public: 'yes' })).toMatch(/public must be true or false/);
    expect(checkArguments(tool('qr_list'), { limit: { n: 1 } })).toMatch(/limit must be a whole number/);
  });

  it('descriptions carry the help\'s notes in the tool\'s terms, without its CLI examples, flags or exit codes', () => {
    expect(tool('link_update').description).toMatch(/^Change a short link[^\n]*\n\nReal servers replace every option of a link on update\. linkctl reads/);
    expect(tool('link_add').description).toContain('A link with `alias` is known by its alias (and domain)');
    for (const t of tools) expect(t.description, t.name).not.toMatch(/(^|\s)--[a-z]|\bexit (code|[0-9])|Global options/);
    for (const t of tools) expect(t.description, t.name).not.toMatch(/Examples:|\$ linkctl/);
  });

  it('read tools take no dryRun or confirm; deletes and link update take confirm', () => {
    expect(tool('qr_list').params.map((p) => p.name)).toEqual(['limit', 'page', 'all', 'cursor', 'maxBytes', 'fields']); // a list: paged answers
    expect(tool('link_update').params.map((p) => p.name)).toContain('confirm');
    expect(tool('qr_add').params.map((p) => p.name)).not.toContain('confirm');
    expect(tool('account_update').params.map((p) => p.name)).toEqual(['email', 'dryRun']); // passwords need a terminal or stdin
  });
});

describe('notes in the tool\'s terms', () => {
  it('names the tool\'s arguments where the CLI names its flags; other flags stay', () => {
    const list = tool('link_list');
    expect(inToolTerms(list, 'page 1 of 4 (15 of 50 records); --all for every record')).toBe('page 1 of 4 (15 of 50 records); `all: true` for every record');
    expect(inToolTerms(list, 'page 1 of 4; --page 2 for more, --all for every page')).toBe('page 1 of 4; `page: 2` for more, `all: true` for every page');
    expect(inToolTerms(list, 'raise --max-wait, or --limit')).toBe('raise --max-wait, or `limit`');
  });

  it('short flags, --yes and the labels of positional arguments too', () => {
    expect(inToolTerms(tool('plan'), 'linkctl: -f nope.yaml: this MCP server reads no local files')).toBe('linkctl: `file` nope.yaml: this MCP server reads no local files');
    expect(inToolTerms(tool('link_update'), 'hint: give them again, name each with --clear, or pass --yes')).toBe('hint: give them again, name each with `clear`, or pass `confirm: true`');
    expect(inToolTerms(tool('qr_get'), 'linkctl: ID must be a positive integer, got "abc"')).toBe('linkctl: `id` must be a positive integer, got "abc"');
    expect(inToolTerms(tool('campaign_assign'), 'linkctl: LINK_ID must be a positive integer, got "x"')).toBe('linkctl: `linkId` must be a positive integer, got "x"');
    // Not a flag where it stands inside a word or a range; not a label in the middle of a sentence.
    expect(inToolTerms(tool('plan'), 'a to-f range; the URL -f')).toBe('a to-f range; the URL `file`');
    expect(inToolTerms(tool('link_add'), 'linkctl: the URL must be https')).toBe('linkctl: the URL must be https');
  });
});

describe('names where the command line takes names', () => {
  it('an option whose validator takes a name as well as an id is a string in the tool (a number is taken too)', () => {
    for (const name of ['campaign', 'channel']) {
      const p = tool('link_add').params.find((q) => q.name === name)!;
      expect(p.integer, name).toBe(false);
      expect(checkArguments(tool('link_add'), { url: 'https://x.example', [name]: 'Spring launch' })).toBeUndefined();
      expect(checkArguments(tool('link_add'), { url: 'https://x.example', [name]: 3 })).toBeUndefined();
    }
    expect(tool('link_add').params.find((q) => q.name === 'pixel')).toMatchObject({ integer: false, list: true });
    // An id that is only an id stays a whole number.
    expect(tool('link_add').params.find((q) => q.name === 'splash')!.integer).toBe(true);
    expect(argvOf(tool('link_add'), { url: 'https://x.example', campaign: 'Black Friday', pixel: ['Main analytics', 2] })).toEqual([
      'link', 'add', '--pixel=Main analytics', '--pixel=2', '--campaign=Black Friday', '--json', '--', 'https://x.example',
    ]);
  });
});
