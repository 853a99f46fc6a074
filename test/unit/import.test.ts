/**
 * The readers of `linkctl import`: the line each record starts on (CSV cells with line breaks,
 * CRLF files, empty lines), the JSON scanner (pretty-printed, one page a line, pages appended,
 * strings that look like structure, records across read chunks), and the small parsers.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FORMATS, mappedFormat, parseShortUrl, splitList, type Format } from '../../src/import/formats.js';
import { forEachRow, InputError, type Row } from '../../src/import/read.js';
import { codeSpan } from '../../src/ascode/markdown.js';
import { tempDir } from '../helpers.js';
import { buildProgram } from '../../src/cli.js';
import { toolsOf } from '../../src/mcp/tools.js';

const dir = tempDir('linkctl-import-unit-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = (text: string) => {
  const path = join(dir, `input-${++files}`);
  writeFileSync(path, text);
  return path;
};
async function rows(text: string, format: Format): Promise<Row[]> {
  const out: Row[] = [];
  await forEachRow(file(text), format, {}, (row) => out.push(row));
  return out;
}

describe('CSV', () => {
  const map = mappedFormat('url=url,alias=alias,title=title');

  it('gives each record the line it starts on: quoted line breaks, CRLF, empty lines, a BOM', async () => {
    for (const eol of ['\n', '\r\n']) {
      const text = `\uFEFFurl,alias,title${eol}https://e.com/1,one,"first${eol}second"${eol}${eol}https://e.com/2,two,plain${eol}"https://e.com/3",three,"a ""quoted""${eol}${eol}title"${eol}https://e.com/4,four,last`;
      const got = await rows(text, map);
      expect(got.map((r) => [r.line, r.cell('alias')]), JSON.stringify(eol)).toEqual([[2, 'one'], [5, 'two'], [6, 'three'], [9, 'four']]);
      expect(got[0]!.cell('Title')).toBe(`first${eol}second`);
    }
  });

  it('names the line of a CSV fault, and refuses a file without the required columns', async () => {
    await expect(rows('url,alias\nhttps://e.com/1,one\nhttps://e.com/2,"two\n', map)).rejects.toThrow(InputError);
    await expect(rows('alias,title\none,One\n', map)).rejects.toThrow('not a CSV export: no url column');
    await expect(rows('', map)).rejects.toThrow('empty');
  });
});

describe('the JSON scanner (kutt)', () => {
  const kutt = FORMATS.kutt;
  const link = (i: number) => ({ id: `id-${i}`, address: `a${i}`, target: `https://e.com/${i}`, description: i === 1 ? 'braces { [ "quoted" ] } and "data": [1]' : null, visit_count: i });

  it('reads the data list of an answer, pretty-printed, with the line of each link', async () => {
    const text = JSON.stringify({ total: 2, limit: 10, skip: 0, data: [link(1), link(2)] }, null, 2);
    const got = await rows(text, kutt);
    expect(got.map((r) => [r.line, r.cell('address'), r.cell('visit_count')])).toEqual([[6, 'a1', '1'], [13, 'a2', '2']]);
    expect(got[0]!.cell('description')).toBe(link(1).description);
  });

  it('reads a list of links, and pages one a line or appended, not the other arrays of an answer', async () => {
    expect((await rows(JSON.stringify([link(1), link(2)]), kutt)).map((r) => r.cell('address'))).toEqual(['a1', 'a2']);
    const pages = [1, 3].map((i) => JSON.stringify({ total: 4, other: [{ target: 'https://not.a.link/' }], data: [link(i), link(i + 1)] }));
    expect((await rows(pages.join('\n'), kutt)).map((r) => [r.line, r.cell('address')])).toEqual([[1, 'a1'], [1, 'a2'], [2, 'a3'], [2, 'a4']]);
    expect((await rows(pages.join(''), kutt)).map((r) => r.cell('address'))).toEqual(['a1', 'a2', 'a3', 'a4']);
  });

  it('reads links across the chunks the file is read in', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => link(i + 2));
    const got = await rows(JSON.stringify({ data: many }, null, 1), kutt);
    expect(got).toHaveLength(3000);
    expect(got.at(-1)!.cell('address')).toBe('a3001');
    expect(got.at(-1)!.line).toBe(3 + 2999 * 7);
  });

  it('says what is wrong: not JSON, no list of links, a link without its target', async () => {
    await expect(rows('keyword,url\n', kutt)).rejects.toThrow('not valid JSON');
    await expect(rows('{"total": 0}', kutt)).rejects.toThrow('no list of links');
    await expect(rows('{"data": [', kutt)).rejects.toThrow('ends inside a value');
    expect(await rows('{"data": []}', kutt)).toEqual([]);
    const [bad] = await rows('{"data": [{"address": "x"}]}', kutt);
    expect(bad!.error).toMatch(/^no target/);
  });
});

describe('small parsers', () => {
  it('splits tags on | (Shlink) or , (Dub)', () => {
    expect(splitList('a|b, c|')).toEqual(['a', 'b, c']);
    expect(splitList('events, webinar')).toEqual(['events', 'webinar']);
    expect(splitList(' ')).toEqual([]);
  });

  it('reads a short URL with or without its scheme, decoding the back-half', () => {
    expect(parseShortUrl('bit.ly/abc')).toEqual({ host: 'bit.ly', alias: 'abc' });
    expect(parseShortUrl('https://Go.Example.com/caf%C3%A9')).toEqual({ host: 'go.example.com', alias: 'café' });
    expect(parseShortUrl('https://dub.sh')).toEqual({ host: 'dub.sh', alias: '' });
    expect(() => parseShortUrl('https://')).toThrow('not a URL');
  });

  it('makes a code span that nothing inside can close, on one line', () => {
    expect(codeSpan('plain')).toBe('`plain`');
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`edge`')).toBe('`` `edge` ``');
    expect(codeSpan('x```y``')).toBe('```` x```y`` ````');
    expect(codeSpan('line\nbreak')).toBe('`line\\x0abreak`');
  });
});

describe('the import command', () => {
  it('is an MCP tool whose input (the export) and --file (the output) are two parameters', () => {
    const program = buildProgram({ stdout: { write: () => true }, stderr: { write: () => true }, stdin: (async function* () {})(), env: {} }, () => async () => undefined);
    const tool = toolsOf(program).find((t) => t.name === 'import')!;
    expect(tool.access).toBe('read');
    expect(tool.params.map((p) => p.name)).toEqual(['format', 'input', 'file', 'map', 'tagsTo', 'onCollision', 'keepDomains', 'encoding', 'delimiter', 'skipInvalid', 'rejects', 'force']);
    expect(tool.params.find((p) => p.name === 'file')!.access).toBe('write');
    expect(tool.params.find((p) => p.name === 'rejects')!.access).toBe('write');
  });
});
