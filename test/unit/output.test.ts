/** The output layer, in-process: formats, fields, terminals and pipes. */
import { describe, expect, it } from 'vitest';
import { barChart, fitWidths, footerLine, render, type OutputOptions } from '../../src/output/render.js';
import type { Column, Rec, Result } from '../../src/output/types.js';
import { runMain, useSandbox } from '../helpers.js';

const columns: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name' },
  { key: 'secret', header: 'Secret', optional: true },
];
const records: Rec[] = [
  { id: 1, name: 'plain', secret: 's1' },
  { id: 2, name: 'has, comma and "quotes"\nand a newline', secret: 's2' },
];

async function rendered(result: Result, options: Partial<OutputOptions>): Promise<{ stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  await render(
    result,
    { format: 'table', tty: false, color: false, header: true, quiet: false, width: 100, ...options },
    { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } },
  );
  return { stdout, stderr };
}

async function* pages(...list: Rec[][]) {
  yield* list;
}

const list = (): Result => ({ kind: 'list', pages: pages(records.slice(0, 1), records.slice(1)), columns, summary: () => ({ page: 1, maxpage: 3, result: 40, shown: 2, all: false }) });

describe('render', () => {
  it('writes csv that quotes commas, quotes and newlines', async () => {
    const { stdout } = await rendered(list(), { format: 'csv' });
    expect(stdout).toBe('id,name,secret\n1,plain,s1\n2,"has, comma and ""quotes""\nand a newline",s2\n');
  });

  it('writes every field to csv and tsv, as --json has: the table\'s columns first, then the rest in their order', async () => {
    const wide: Rec[] = [
      { name: 'a', extra: { nested: true }, id: 1, secret: 's', tags: ['x', 'y'] },
      { id: 2, name: 'b', later: 'only on page 2' },
    ];
    const result = (): Result => ({ kind: 'list', pages: pages(wide.slice(0, 1), wide.slice(1)), columns });
    expect((await rendered(result(), { format: 'csv' })).stdout).toBe('id,name,secret,extra,tags\n1,a,s,"{""nested"":true}","[""x"",""y""]"\n2,b,,,\n');
    expect((await rendered(result(), { format: 'tsv', header: false })).stdout).toBe('1\ta\ts\t{"nested":true}\t["x","y"]\n2\tb\t\t\t\n');
    expect((await rendered(result(), { format: 'csv', fields: ['name'] })).stdout).toBe('name\na\nb\n');
    const record: Result = { kind: 'record', record: wide[0]!, columns };
    expect((await rendered(record, { format: 'csv' })).stdout).toBe('id,name,secret,extra,tags\n1,a,s,"{""nested"":true}","[""x"",""y""]"\n');
  });

  it('writes tsv with tabs and newlines folded', async () => {
    const { stdout } = await rendered(list(), { format: 'tsv', fields: ['name', 'id'] });
    expect(stdout).toBe('name\tid\nplain\t1\nhas, comma and "quotes" and a newline\t2\n');
  });

  it('writes one JSON array of the records as they came, or only --fields', async () => {
    expect(JSON.parse((await rendered(list(), { format: 'json' })).stdout)).toEqual(records);
    expect(JSON.parse((await rendered(list(), { format: 'json', fields: ['secret'] })).stdout)).toEqual([{ secret: 's1' }, { secret: 's2' }]);
    expect((await rendered({ kind: 'list', pages: pages(), columns }, { format: 'json' })).stdout).toBe('[]\n');
  });

  it('writes ndjson, one record a line', async () => {
    const lines = (await rendered(list(), { format: 'ndjson' })).stdout.trim().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(records);
  });

  it('prints bare rows in a pipe and a table with a footer on a terminal', async () => {
    expect((await rendered(list(), {})).stdout).toBe('1\tplain\n2\thas, comma and "quotes" and a newline\n');
    const tty = await rendered(list(), { tty: true });
    expect(tty.stdout.split('\n')[0]).toMatch(/^ID\s+Name$/);
    expect(tty.stderr).toBe('page 1 of 3 (2 of 40 records); --all for every record\n');
  });

  it('says on stderr, in a pipe and in every format, that a list is one page of several', async () => {
    for (const options of [{}, { format: 'json' as const }, { format: 'csv' as const }, { quiet: true }]) {
      expect((await rendered(list(), options)).stderr).toBe('page 1 of 3 (2 of 40 records); --all for every record\n');
    }
  });

  it('prints only ids with quiet', async () => {
    expect((await rendered(list(), { quiet: true, format: 'json' })).stdout).toBe('1\n2\n');
  });

  it('shows a record as key/value lines, and its bars', async () => {
    const { stdout } = await rendered(
      { kind: 'record', record: records[0]!, columns, bars: [{ title: 'Top countries', entries: [['US', 10], ['FR', 5]] }] },
      { tty: true },
    );
    expect(stdout).toContain('ID    1\nName  plain\n');
    expect(stdout).toMatch(/Top countries\n {2}US {2}█{40} 10\n {2}FR {2}█{20} {22}5\n/);
  });

  it('rejects an unknown --fields name, listing the known ones', async () => {
    await expect(rendered(list(), { fields: ['nope'] })).rejects.toThrow('--fields: unknown field "nope"; known fields: id, name, secret');
  });
});

describe('pieces', () => {
  it('scales bars to the largest count and keeps a sliver for small ones', () => {
    const chart = barChart({ title: 'T', entries: [['a', 1000], ['b', 1]] }, undefined, 80);
    const [, a, b] = chart.split('\n');
    expect(a!.match(/█/g)!.length).toBe(40);
    expect(b!.match(/█/g)!.length).toBe(1);
    expect(barChart({ title: 'Empty', entries: [] })).toBe('Empty\n  (none)\n');
  });

  it('shrinks only the widest columns to fit, two spaces between columns', () => {
    expect(fitWidths([2, 10, 50], 100)).toEqual([2, 10, 50]);
    const fitted = fitWidths([2, 10, 200], 60);
    expect(fitted[0]).toBe(2);
    expect(fitted[1]).toBe(10);
    expect(fitted.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(60 - 2 * 2);
  });

  it('writes a footer that says how to get more', () => {
    expect(footerLine({ page: 2, maxpage: 2, result: 20, shown: 5, all: false })).toBe('page 2 of 2 (5 of 20 records); --all for every record');
    expect(footerLine({ shown: 52, all: true })).toBe('52 results');
    expect(footerLine({ page: 1, maxpage: 0, shown: 0, all: false })).toBeUndefined();
  });
});

describe('colour and terminals (in-process against the sandbox)', () => {
  const fx = useSandbox();
  const ESC = /\u001b\[/;

  it('colours a terminal table, not a pipe, and never with NO_COLOR or --no-color', async () => {
    expect((await runMain(['qr', 'list'], { env: fx.env, tty: true })).stdout).toMatch(ESC);
    expect((await runMain(['qr', 'list'], { env: fx.env })).stdout).not.toMatch(ESC);
    expect((await runMain(['qr', 'list'], { env: { ...fx.env, NO_COLOR: '1' }, tty: true })).stdout).not.toMatch(ESC);
    expect((await runMain(['qr', 'list', '--no-color'], { env: fx.env, tty: true })).stdout).not.toMatch(ESC);
  });

  it('keeps --json plain even on a terminal, with nothing on stderr', async () => {
    // (--fields without scans: no note that text and wifi codes count none, issue 55, 4)
    const r = await runMain(['qr', 'list', '--json', '--fields', 'id,name,link'], { env: fx.env, tty: true });
    expect(r.stdout).not.toMatch(ESC);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toHaveLength(3);
  });

  it('asks before deleting on a terminal, and sends nothing when the answer is no', async () => {
    const no = await runMain(['qr', 'delete', '1'], { env: fx.env, tty: true, confirm: false });
    expect(no.prompts).toEqual(['Delete QR code 1?']);
    expect(no.code).toBe(2);
    expect(fx.sandbox.requests.filter((q) => q.method === 'DELETE')).toHaveLength(0);
    const yes = await runMain(['qr', 'delete', '1'], { env: fx.env, tty: true, confirm: true });
    expect(yes.code).toBe(0);
    expect(fx.sandbox.requests.filter((q) => q.method === 'DELETE')).toHaveLength(1);
  });

  it('rejects --json together with another --output', async () => {
    const r = await runMain(['qr', 'list', '--json', '-o', 'csv'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--json and --output csv disagree/);
  });

  it('prints the request of --dry-run and sends nothing', async () => {
    const r = await runMain(['qr', 'add', '--type', 'text', '--data', 'hi', '--dry-run', '--json'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      dryRun: true,
      method: 'POST',
      url: `${fx.sandbox.url}/api/qr/add`,
      headers: { Authorization: 'Bearer [REDACTED]', 'Content-Type': 'application/json' },
      body: { type: 'text', data: 'hi' },
    });
    expect(fx.sandbox.requests).toHaveLength(0);
  });
});

describe('csv has the fields of --json', () => {
  const fx = useSandbox();

  it('a list: every field of --json is a column, the table\'s first; --fields still narrows', async () => {
    for (const args of [['qr', 'list'], ['link', 'list'], ['campaign', 'list'], ['channel', 'list']]) {
      const first = (JSON.parse((await runMain([...args, '--json'], { env: fx.env })).stdout) as Rec[])[0]!;
      const csv = await runMain([...args, '-o', 'csv'], { env: fx.env });
      expect(csv.code, csv.stderr).toBe(0);
      const header = csv.stdout.split('\n')[0]!.split(',');
      expect(header.length, args.join(' ')).toBeGreaterThanOrEqual(Object.keys(first).length);
      for (const key of Object.keys(first)) expect(header, `${args.join(' ')}: ${key}`).toContain(key);
    }
    const qrHeader = (await runMain(['qr', 'list', '-o', 'csv'], { env: fx.env })).stdout.split('\n')[0]!;
    expect(qrHeader.split(',').slice(0, 5)).toEqual(['id', 'name', 'scans', 'date', 'link']);
    expect((await runMain(['qr', 'list', '-o', 'tsv', '--fields', 'id,name'], { env: fx.env })).stdout.split('\n')[0]).toBe('id\tname');
  });

  it('a record (link get): its details and counts, not only the view\'s rows', async () => {
    const csv = await runMain(['link', 'get', '1', '-o', 'csv'], { env: fx.env });
    expect(csv.code, csv.stderr).toBe(0);
    const details = (JSON.parse((await runMain(['link', 'get', '1', '--json'], { env: fx.env })).stdout) as { details: Rec }).details;
    const header = csv.stdout.split('\n')[0]!.split(',');
    for (const key of [...Object.keys(details), 'clicks', 'uniqueClicks']) expect(header).toContain(key);
  });
});

describe('progress on a terminal', () => {
  // A 3 s window: long enough that pages 1 and 2 never straddle two windows, even on a loaded machine.
  const fx = useSandbox({ rateLimit: { limit: 2, windowSeconds: 3 } });

  it('shows records, pages and the rate-limit wait on stderr, and nothing of it on stdout', async () => {
    // (--fields without scans: the pages alone, no read of each code to learn whether it counts scans)
    const r = await runMain(['qr', 'list', '--all', '--limit', '1', '--fields', 'id,name,link'], { env: fx.env, tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\d of 3 records, \d pages?; waiting \d\.\d s: the rate-limit window is used up/);
    expect(r.stderr).toMatch(/3 results\n$/);
    expect(r.stdout).not.toMatch(/records|waiting/);
    expect(r.stdout.trim().split('\n')).toHaveLength(4); // header and three rows
  });

  it('shows no spinner and no progress when stdout is not a terminal (`qr list --all | head`), stderr one', async () => {
    const r = await runMain(['qr', 'list', '--all', '--limit', '1', '--fields', 'id,name,link'], { env: fx.env, tty: true, stdoutTty: false });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(3); // three rows, tab-separated, as a pipe gets them
    expect(r.stderr).not.toMatch(/records, \d pages?|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    // The same run with stdout on the terminal shows it (the test above): the pipe is the difference.
    expect(fx.sandbox.requests.filter((q) => q.path.startsWith('/api/qr')).length).toBeGreaterThanOrEqual(3);
  });

  it('shows no spinner in CI or with --json', async () => {
    const pages = ['qr', 'list', '--all', '--limit', '1', '--fields', 'id,name,link'];
    for (const [args, env] of [[pages, { ...fx.env, CI: 'true' }], [[...pages, '--json'], fx.env]] as const) {
      const r = await runMain([...args], { env, tty: true });
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(/records, \d pages?/);
    }
  });
});

describe('streaming to a slow reader', () => {
  it('fetches the next page only once stdout has drained', async () => {
    const { EventEmitter } = await import('node:events');
    const events: string[] = [];
    const stdout = Object.assign(new EventEmitter(), {
      write: (s: string) => {
        events.push(`write ${s.trim().split('\n').length} lines`);
        return false; // the pipe's buffer is full
      },
    });
    async function* slowPages() {
      for (let page = 1; page <= 3; page++) {
        events.push(`fetch page ${page}`);
        yield [{ id: page * 2 - 1 }, { id: page * 2 }];
      }
    }
    const rendering = render(
      { kind: 'list', pages: slowPages(), columns },
      { format: 'ndjson', tty: false, color: false, header: true, quiet: false, width: 100 },
      { stdout, stderr: { write: () => true } },
    );
    for (let drains = 0; drains < 3; drains++) {
      await new Promise((r) => setTimeout(r, 10));
      events.push('drain');
      stdout.emit('drain');
    }
    await rendering;
    expect(events).toEqual(['fetch page 1', 'write 2 lines', 'drain', 'fetch page 2', 'write 2 lines', 'drain', 'fetch page 3', 'write 2 lines', 'drain']);
  });
});
