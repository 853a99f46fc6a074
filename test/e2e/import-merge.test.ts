/**
 * `linkctl import` into an account that already has links, with files as people have them
 * (issue 32): collisions with live links refused by default and each --on-collision choice
 * planned as said; exact duplicate rows collapsed; Windows-1252 and UTF-16 files; a semicolon
 * file; a bad quote at line 10; --skip-invalid and its rejects file; aliases as the product
 * stores them; and from issue 29, deep JSON, `$${` through import and apply, and formula cells in
 * CSV and TSV output. The spawned CLI where the user's view matters, main() in-process elsewhere.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { csvRecords, runCli, runMain, sent, testFiles, useSandbox } from '../helpers.js';

const fx = useSandbox(); // seeded: docs → https://sandbox.localhost/docs, spring-sale → https://sandbox.localhost/sale
const files = testFiles('linkctl-import-merge-');
const requests = () => sent(fx.sandbox).map((r) => `${r.method} ${r.path}`);
/** The account read that every import makes: the domains, then the links (one page here). */
const ACCOUNT_READ = ['GET /api/domains', 'GET /api/urls'];
type Rec = Record<string, unknown>;

async function links(): Promise<Rec[]> {
  const r = await runMain(['link', 'list', '--all', '--json'], { env: fx.env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Rec[];
}
const destinationOf = async (alias: string) => (await links()).find((l) => l.alias === alias)?.longurl;

describe('an alias the account has for another destination (a collision)', () => {
  // The issue's case: a YOURLS keyword `docs` for another site than the account's live `docs`.
  const input = files.file('yourls.csv', 'keyword,url,title\ndocs,https://acme.example/docs,Acme docs\nhandbook,https://acme.example/handbook,Handbook\n');
  const args = ['import', 'yourls', input];

  it('is refused by default: file:line, alias and both destinations; nothing written; the account read once, nothing sent', async () => {
    const out = join(files.root, 'refused.yaml');
    const r = await runCli([...args, '--file', out], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      [
        'linkctl: 1 link cannot keep its alias:',
        `  ${input}:2: alias "docs" is taken in the account by https://sandbox.localhost/docs (this row: https://acme.example/docs)`,
        "hint: nothing was written; --on-collision suffix renames them (alias-2, alias-3, ...), skip leaves them out, replace gives a taken alias to this file's destination (the only way to repoint a live link)",
        '',
      ].join('\n'),
    );
    expect(existsSync(out)).toBe(false);
    expect(requests()).toEqual(ACCOUNT_READ);
  });

  it('suffix: a new link under another alias; plan creates it and leaves the live link alone', async () => {
    const r = await runMain([...args, '--on-collision', 'suffix'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: ${input}:2: renamed to "docs-2": alias "docs" is taken in the account by https://sandbox.localhost/docs (this row: https://acme.example/docs)`);
    expect(parse(r.stdout).links.map((l: Rec) => [l.alias, l.url])).toEqual([
      ['docs-2', 'https://acme.example/docs'],
      ['handbook', 'https://acme.example/handbook'],
    ]);
    const plan = await runMain(['plan', '-f', '-'], { env: fx.env, stdin: r.stdout });
    expect(plan.stdout).toBe('+ link docs-2\n+ link handbook\nPlan: 2 to add, 0 to change, 0 to delete.\n');
    expect((await runMain(['apply', '-f', '-', '--yes'], { env: fx.env, stdin: r.stdout })).code).toBe(0);
    expect(await destinationOf('docs')).toBe('https://sandbox.localhost/docs');
    expect(await destinationOf('docs-2')).toBe('https://acme.example/docs');
  });

  it('skip: left out and said; plan does not touch the live link', async () => {
    const r = await runMain([...args, '--on-collision', 'skip'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: ${input}:2: skipped: alias "docs" is taken in the account by https://sandbox.localhost/docs`);
    expect(r.stderr).toContain(`imported 1 link from ${input} (1 new, 1 link left out)`);
    const plan = await runMain(['plan', '-f', '-'], { env: fx.env, stdin: r.stdout });
    expect(plan.stdout).toBe('+ link handbook\nPlan: 1 to add, 0 to change, 0 to delete.\n');
  });

  it('replace: the only way to repoint, said in the import, the file and the plan; apply repoints it', async () => {
    const r = await runMain([...args, '--on-collision', 'replace'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: ${input}:2: replaces the destination of the live link "docs", https://sandbox.localhost/docs (--on-collision replace)`);
    expect(r.stderr).toContain('1 live link repointed (--on-collision replace)');
    expect(r.stdout).toContain('  # replaces the destination of the live link "docs", https://sandbox.localhost/docs (--on-collision replace)\n  - alias: docs\n    url: https://acme.example/docs\n');
    const plan = await runMain(['plan', '-f', '-'], { env: fx.env, stdin: r.stdout });
    expect(plan.stdout).toContain('~ link docs: url "https://sandbox.localhost/docs" → "https://acme.example/docs"');
    expect((await runMain(['apply', '-f', '-', '--yes', '--allow-clear'], { env: fx.env, stdin: r.stdout })).code).toBe(0);
    expect(await destinationOf('docs')).toBe('https://acme.example/docs');
  });

  it('the same alias and destination is already there: written with its key and destination only, and plan has nothing to do for it', async () => {
    const same = files.file('same.csv', 'keyword,url,title\nspring-sale,https://sandbox.localhost/sale/,Another title\n');
    const r = await runMain(['import', 'yourls', same], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    // Written as the account has it, so that plan compares equal.
    expect(parse(r.stdout).links).toEqual([{ alias: 'spring-sale', url: 'https://sandbox.localhost/sale' }]);
    expect(r.stdout).toContain('# already in the account with this destination (https://sandbox.localhost/sale/ in the export): nothing to do');
    expect(r.stderr).toBe(`imported 1 link from ${same} (0 new, 1 link already there)\n`);
    const plan = await runMain(['plan', '-f', '-'], { env: fx.env, stdin: r.stdout });
    expect(plan.stdout).toBe('No changes: the account matches the file.\n');
  });
});

describe('rows of the file', () => {
  it('exact duplicate rows collapse into one, said in the summary; the same alias for another destination is a conflict', async () => {
    const input = files.file(
      'bitly.csv',
      [
        'id,link,long_url,title',
        'bit.ly/3qQ1234,https://bit.ly/3qQ1234,https://example.com/sale,Sale', // line 2
        'bit.ly/3qQ1234,https://bit.ly/3qQ1234,https://example.com/sale,Sale', // line 3: the same row
        'bit.ly/3qQ1234,https://bit.ly/3qQ1234,https://example.com/other,Sale', // line 4: same alias, other destination
      ].join('\n'),
    );
    const refused = await runMain(['import', 'bitly', input], { env: fx.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`linkctl: 1 link cannot keep its alias:\n  ${input}:4: alias "3qQ1234" is also at line 2, with another destination (this row: https://example.com/other)\n`);
    const r = await runMain(['import', 'bitly', input, '--on-collision', 'skip', '--file', join(files.root, 'dup.yaml'), '--json'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: ${input}:3: the same link as line 2: collapsed into it`);
    expect(JSON.parse(r.stdout)).toMatchObject({ links: 1, new: 1, duplicates: 1, skipped: 1, rejected: 0 });
    expect(parse(readFileSync(join(files.root, 'dup.yaml'), 'utf8')).links).toEqual([{ alias: '3qQ1234', url: 'https://example.com/sale', title: 'Sale' }]);
  });
});

describe('encodings', () => {
  const text = 'keyword,url,title\ncafe-creme,https://acme.example/café,Café crème\n';
  const expected = [{ alias: 'cafe-creme', url: 'https://acme.example/café', title: 'Café crème' }];

  it('Windows-1252 (Excel, YOURLS): refused without --encoding, naming the first bad line and byte; right with it', async () => {
    const input = files.file('cp1252.csv', '');
    writeFileSync(input, Buffer.from(text, 'latin1')); // é and è are the same bytes in Latin-1 and Windows-1252
    const r = await runCli(['import', 'yourls', input], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      [
        'linkctl: the YOURLS export cannot be imported:',
        `  ${input}:2: not UTF-8 text: byte 0xE9, the 36th byte of the line, is not UTF-8 (in Windows-1252 it would be "é")`,
        'hint: read it with --encoding windows-1252 (what Excel on Windows and many older tools write) or the encoding it was saved in, or save it as UTF-8; nothing was written',
        '',
      ].join('\n'),
    );
    expect(requests()).toEqual([]);
    const ok = await runCli(['import', 'yourls', input, '--encoding', 'windows-1252'], { env: fx.env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(parse(ok.stdout).links).toEqual(expected);
    expect((await runCli(['import', 'yourls', input, '--encoding', 'latin1'], { env: fx.env })).stdout).toBe(ok.stdout);
  });

  it('UTF-16 with a byte-order mark (either order) is read as it is; without one it is refused with the --encoding to use', async () => {
    const le = files.file('utf16le.csv', '');
    writeFileSync(le, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const be = files.file('utf16be.csv', '');
    writeFileSync(be, Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]));
    for (const input of [le, be]) {
      const r = await runMain(['import', 'yourls', input], { env: fx.env });
      expect(r.code, r.stderr).toBe(0);
      expect(parse(r.stdout).links).toEqual(expected);
    }
    const bare = files.file('utf16-bare.csv', '');
    writeFileSync(bare, Buffer.from(text, 'utf16le'));
    const refused = await runMain(['import', 'yourls', bare], { env: fx.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${bare}:1: this looks like UTF-16 text without a byte-order mark (every other byte is 0)\nhint: read it with --encoding utf-16le`);
    expect((await runMain(['import', 'yourls', bare, '--encoding', 'utf-16le'], { env: fx.env })).stdout).toContain('title: "Café crème"');
    const wrong = await runMain(['import', 'yourls', le, '--encoding', 'windows-1252'], { env: fx.env });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--encoding: the file starts with a UTF-16 (little-endian) byte-order mark');
  });

  it('UTF-8 with a byte-order mark; an encoding linkctl does not know is exit 2 before anything is read', async () => {
    const bom = files.file('bom.csv', `\uFEFF${text}`);
    expect(parse((await runMain(['import', 'yourls', bom], { env: fx.env })).stdout).links).toEqual(expected);
    fx.sandbox.requests.length = 0;
    const r = await runMain(['import', 'yourls', bom, '--encoding', 'klingon'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('linkctl: --encoding: "klingon" is not an encoding linkctl knows');
    expect(requests()).toEqual([]);
  });
});

describe('CSV as spreadsheets write it', () => {
  it('a semicolon-separated file is read by its header (also with --delimiter), and the wrong --delimiter is named', async () => {
    const input = files.file('semicolon.csv', 'Destination;Back-half;Name\nhttps://example.com/a;first;"One; two"\nhttps://example.com/b;second;Two\n');
    const map = ['--map', 'url=Destination,alias=Back-half,title=Name'];
    const r = await runCli(['import', 'csv', input, ...map], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(parse(r.stdout).links).toEqual([
      { alias: 'first', url: 'https://example.com/a', title: 'One; two' },
      { alias: 'second', url: 'https://example.com/b', title: 'Two' },
    ]);
    expect((await runMain(['import', 'csv', input, ...map, '--delimiter', 'semicolon'], { env: fx.env })).stdout).toBe(r.stdout);
    const wrong = await runMain(['import', 'csv', input, ...map, '--delimiter', ','], { env: fx.env });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`${input}:1: not a CSV export: no Destination, and Back-half column (as --map names); the header was read as 1 column separated by "," (--delimiter chooses another)`);
    const tab = files.file('tab.tsv', 'Destination\tBack-half\nhttps://example.com/t\ttabbed\n');
    expect(parse((await runMain(['import', 'csv', tab, '--map', 'url=Destination,alias=Back-half'], { env: fx.env })).stdout).links).toEqual([{ alias: 'tabbed', url: 'https://example.com/t' }]);
  });

  // The issue's links100b.csv: 100 rows, a bad quote on line 10.
  const hundred = (line10: string) => ['url,alias,title', ...Array.from({ length: 99 }, (_, i) => (i + 2 === 10 ? line10 : `https://example.com/${i + 2},link${i + 2},Row ${i + 2}`))].join('\n');

  it('a stray quote on line 10 is named by its line and column, in plain words, with a hint', async () => {
    const input = files.file('links100b.csv', hundred('https://example.com/10,link10,The "best" row'));
    const r = await runCli(['import', 'csv', input, '--map', 'url=url,alias=alias,title=title'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`1 row is not valid:\n  ${input}:10:${'https://example.com/10,link10,The '.length + 1}: a quote (") in the middle of a cell that does not start with one\n`);
    expect(r.stderr).toContain('hint: a cell that holds quotes, the delimiter or a line break is written in quotes, its quotes doubled;');
    expect(r.stderr).not.toMatch(/trimable|Invalid Closing Quote|:1:/);
    expect(requests()).toEqual([]);
  });

  it('a quote opened on line 10 and never closed is named where it opens', async () => {
    const input = files.file('links100c.csv', hundred('https://example.com/10,link10,"Row 10'));
    const r = await runMain(['import', 'csv', input, '--map', 'url=url,alias=alias,title=title'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${input}:10:31: this quote opens a cell that is never closed (the file ends inside it, 90 lines later)\nhint: close the quote, or write a quote that belongs to the text twice (""); nothing was written`);
  });

  it('text after a closing quote is named too', async () => {
    const input = files.file('after.csv', 'url,alias\n"https://example.com/1"x,one\n');
    const r = await runMain(['import', 'csv', input, '--map', 'url=url,alias=alias'], { env: fx.env });
    expect(r.stderr).toContain(`${input}:2:24: text after the closing quote of the cell that opens at line 2, column 1`);
  });
});

describe('bad rows do not block good ones', () => {
  const rows = [
    'id,link,long_url,title',
    'bit.ly/good1,https://bit.ly/good1,https://example.com/1,One', // line 2
    'bit.ly/ftp,https://bit.ly/ftp,ftp://example.com/file,FTP', // line 3: not http(s)
    'bit.ly/good2,https://bit.ly/good2,https://example.com/2,"Two, quoted"', // line 4
    'bit.ly/quote,https://bit.ly/quote,https://example.com/3,Say "hi"', // line 5: a stray quote
    '=1+2,https://bit.ly/formula,,Formula', // line 6: no destination, and a row a spreadsheet would run
  ];

  it('--skip-invalid imports the valid rows, writes the others with line and reason to --rejects, and counts both', async () => {
    const input = files.file('bitly-bad.csv', rows.join('\n'));
    const out = join(files.root, 'good.yaml');
    const rejects = join(files.root, 'rejects.csv');
    const r = await runCli(['import', 'bitly', input, '--skip-invalid', '--rejects', rejects, '--file', out], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Imported 2 links from ${input} to ${out} (2 new, 3 rows rejected, in ${rejects}); next: linkctl plan -f ${out}\n`);
    expect(parse(readFileSync(out, 'utf8')).links.map((l: Rec) => l.alias)).toEqual(['good1', 'good2']);
    expect(csvRecords(readFileSync(rejects, 'utf8'))).toEqual([
      ['line', 'column', 'reason', 'row'],
      ['3', '', 'destination must start with http:// or https://, got "ftp://example.com/file"', rows[2]],
      ['5', String(rows[4]!.indexOf('"') + 1), 'a quote (") in the middle of a cell that does not start with one', rows[4]],
      // The rejects file is a CSV linkctl writes: a cell a spreadsheet would run starts with '.
      ['6', '', 'no destination (the long_url column is empty)', `'${rows[5]}`],
    ]);
    expect(statMode(rejects)).toBe(0o600);
  });

  it('without --skip-invalid the refusal lists up to 20 bad rows, then how many more; --rejects alone is refused', async () => {
    const many = files.file('many-bad.csv', ['keyword,url', ...Array.from({ length: 25 }, (_, i) => `bad${i},ftp://example.com/${i}`)].join('\n'));
    const r = await runMain(['import', 'yourls', many], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('25 rows are not valid:');
    expect(r.stderr.match(/destination must start with http/g)).toHaveLength(20);
    expect(r.stderr).toContain(`  ${many}:21: destination must start`);
    expect(r.stderr).toContain('  ... and 5 more\n');
    const alone = await runMain(['import', 'yourls', many, '--rejects', join(files.root, 'r.csv')], { env: fx.env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--rejects names the file for the rows --skip-invalid sets aside');
    expect(requests()).toEqual([]);
  });
});

describe('aliases as the product stores them', () => {
  const input = files.file('aliases.csv', 'keyword,url\ncafé,https://example.com/cafe\n日本語,https://example.com/jp\nwith space,https://example.com/space\n???,https://example.com/nothing\n');

  it('rewrites are listed, never fatal alone; an alias the rewrite empties is collision-like, with the same choices', async () => {
    const refused = await runMain(['import', 'yourls', input], { env: fx.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`linkctl: 1 link cannot keep its alias:\n  ${input}:5: alias "???" is empty once the server rewrites it`);

    const r = await runCli(['import', 'yourls', input, '--on-collision', 'suffix'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      [
        `note: ${input}:4: alias "with space" is stored as "with-space" by the server (it turns spaces, most punctuation and _ into -)`,
        `note: ${input}:5: renamed to "link-2": alias "???" is empty once the server rewrites it (it turns spaces and punctuation into - and trims them)`,
        `imported 4 links from ${input} (3 new, 1 link renamed, 1 alias rewritten as the server stores it)`,
        '',
      ].join('\n'),
    );
    expect(r.stdout).toContain('  # alias "with space" is stored as "with-space" by the server');
    expect(parse(r.stdout).links.map((l: Rec) => l.alias)).toEqual(['café', '日本語', 'with-space', 'link-2']);
    const skip = await runMain(['import', 'yourls', input, '--on-collision', 'skip'], { env: fx.env });
    expect(skip.stderr).toContain(`note: ${input}:5: skipped: alias "???" is empty`);
    const replace = await runMain(['import', 'yourls', input, '--on-collision', 'replace'], { env: fx.env });
    expect(replace.stderr).toContain(`note: ${input}:5: skipped: alias "???" is empty once the server rewrites it (it turns spaces and punctuation into - and trims them) (replace keeps aliases; there is nothing to replace here)`);

    // The sandbox stores them as the product does, so the file applies and then matches.
    expect((await runMain(['apply', '-f', '-', '--yes'], { env: fx.env, stdin: r.stdout })).code).toBe(0);
    expect((await links()).map((l) => l.alias)).toEqual(expect.arrayContaining(['café', '日本語', 'with-space', 'link-2']));
    expect((await runMain(['plan', '-f', '-'], { env: fx.env, stdin: r.stdout })).stdout).toBe('No changes: the account matches the file.\n');
  });
});

describe('issue 29: hostile exports', () => {
  it('kutt: a field nested 100,000 levels deep is a bad row named by its line, not "Maximum call stack size exceeded"', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const input = files.file('deep.json', `{"data": [\n{"address": "fine", "target": "https://example.com/fine"},\n{"address": "deep", "target": "https://example.com/deep", "description": ${deep}}\n]}`);
    const r = await runCli(['import', 'kutt', input], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${input}:3: a field of this link is nested more than 64 levels deep (a Kutt link is a flat object)`);
    expect(r.stderr).not.toMatch(/call stack|\n\s+at /);
    const skipped = await runCli(['import', 'kutt', input, '--skip-invalid'], { env: fx.env });
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(parse(skipped.stdout).links).toEqual([{ alias: 'fine', url: 'https://example.com/fine' }]);
    // Without --rejects the rows set aside are listed on stderr, and counted.
    expect(skipped.stderr).toContain(`note: ${input}:3: rejected: a field of this link is nested more than 64 levels deep`);
    expect(skipped.stderr).toContain('1 row rejected)');
  });

  it('$${ and ${env:...} in a title arrive unchanged through import and apply', async () => {
    const titles = ['cost: $${price}', '${env:HOME} and $${env:HOME}', 'ends with $'];
    const input = files.file('dollars.csv', ['keyword,url,title', ...titles.map((t, i) => `dollar${i},https://example.com/d${i},"${t}"`)].join('\n'));
    const r = await runMain(['import', 'yourls', input], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('title: "cost: $$${price}"');
    const applied = await runMain(['apply', '-f', '-', '--yes'], { env: { ...fx.env, HOME: '/should/not/appear' }, stdin: r.stdout });
    expect(applied.code, applied.stderr).toBe(0);
    const got = Object.fromEntries((await links()).map((l) => [l.alias, l.title]));
    expect(titles.map((_, i) => got[`dollar${i}`])).toEqual(titles);
  });

  it("formula cells: a Dub tag written '-internal is imported as -internal, and csv and tsv output write it with ' again (--csv-raw: as it is)", async () => {
    const dub = fileURLToPath(new URL('../fixtures/import/dub.csv', import.meta.url));
    const r = await runMain(['import', 'dub', dub, '--tags-to', 'campaign'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(parse(r.stdout).campaigns).toContainEqual({ name: '-internal' });
    expect((await runMain(['apply', '-f', '-', '--yes'], { env: fx.env, stdin: r.stdout })).code).toBe(0);
    const csv = await runCli(['campaign', 'list', '-o', 'csv', '--fields', 'name'], { env: fx.env });
    expect(csv.stdout.split('\n')).toContain("'-internal");
    const tsv = await runCli(['campaign', 'list', '-o', 'tsv', '--fields', 'name'], { env: fx.env });
    expect(tsv.stdout.split('\n')).toContain("'-internal");
    const raw = await runCli(['campaign', 'list', '-o', 'csv', '--fields', 'name', '--csv-raw'], { env: fx.env });
    expect(raw.stdout.split('\n')).toContain('-internal');
    expect(raw.stdout).not.toContain("'-internal");
  });

  it('formula cells from a server: =, +, @, a tab and a CR are disarmed in csv and tsv; numbers, including negative ones, are not', async () => {
    const hostile = ['=HYPERLINK("https://evil.example","Click")', '+1+1', '@SUM(A1)', '\t=1', '\r=1', '-5', 'plain'];
    for (const [i, title] of hostile.entries()) {
      const add = await runMain(['api', 'POST', '/api/url/add', '-f', `url=https://example.com/f${i}`, '-f', `custom=formula${i}`, '-f', `metatitle=${title}`], { env: fx.env });
      expect(add.code, add.stderr).toBe(0);
    }
    const csv = await runCli(['link', 'list', '--all', '-o', 'csv', '--fields', 'alias,title'], { env: fx.env });
    const byAlias = Object.fromEntries(csvRecords(csv.stdout).slice(1));
    // the product 7.7 stores the title's quotes as entities (real-servers.md, fact 15); the formula is still one
    const formula = "'=HYPERLINK(&quot;https://evil.example&quot;,&quot;Click&quot;)";
    expect(hostile.map((_, i) => byAlias[`formula${i}`])).toEqual([formula, "'+1+1", "'@SUM(A1)", "'\t=1", "'\\x0d=1", '-5', 'plain']);
    const tsv = await runCli(['link', 'list', '--all', '-o', 'tsv', '--fields', 'alias,title', '--no-header'], { env: fx.env });
    const tsvTitles = Object.fromEntries(tsv.stdout.trim().split('\n').map((l) => l.split('\t')));
    expect(hostile.map((_, i) => tsvTitles[`formula${i}`])).toEqual([formula, "'+1+1", "'@SUM(A1)", "' =1", "' =1", '-5', 'plain']);
  });
});

const statMode = (path: string) => statSync(path).mode & 0o777;
