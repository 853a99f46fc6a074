/**
 * Issue 39, import: every record of every format is capped (a JSON link as a CSV row is, at 1 MiB),
 * and `--encoding` never garbles rows of a file that mixes encodings silently.
 */
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir, useSandbox } from '../helpers.js';

const fx = useSandbox();

describe('a size cap on every record (finding 11)', () => {
  it('a 200 MB Kutt link object is refused within seconds, in 64 MB of heap, naming its line', async () => {
    const file = join(tempDir(), 'kutt.json');
    const fd = openSync(file, 'w');
    writeSync(fd, '{"total": 2, "data": [\n  {"address": "ok1", "target": "https://example.com/ok"},\n  {"address": "big", "target": "https://example.com/big", "description": "');
    const block = Buffer.alloc(8 * 1024 * 1024, 'A');
    for (let i = 0; i < 25; i++) writeSync(fd, block);
    writeSync(fd, '"}\n]}\n');
    closeSync(fd);
    const started = Date.now();
    // A heap of 64 MB: a reader that kept the object whole would run out of memory and crash.
    const r = await runCli(['import', 'kutt', file], { env: { ...fx.env, NODE_OPTIONS: '--max-old-space-size=64' } });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${file}:3: the link that starts here is longer than 1 MiB`);
    expect(r.stdout).toBe('');
    expect(fx.sandbox.requests.filter((q) => q.method !== 'GET')).toEqual([]);
  }, 60_000);
});

describe('--encoding with a file of mixed encodings (finding 13)', () => {
  it('UTF-8 rows and a Windows-1252 row: refused without --encoding (naming the byte), and with --encoding windows-1252 (naming the UTF-8 rows); nothing garbled is written', async () => {
    const dir = tempDir();
    const file = join(dir, 'mixed.csv');
    writeFileSync(file, Buffer.concat([
      Buffer.from('url,alias,title\nhttps://example.com/a,naive-a,Naïve\nhttps://example.com/b,naive-b,Crème\n', 'utf8'),
      Buffer.from('https://example.com/c,cafe-c,Caf', 'latin1'), Buffer.from([0xe9]), Buffer.from('\n'),
    ]));
    const plain = await runCli(['import', 'csv', file, '--map', 'url=url,alias=alias,title=title'], { env: fx.env });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain(`${file}:4: not UTF-8 text: byte 0xE9`);
    const chosen = await runCli(['import', 'csv', file, '--map', 'url=url,alias=alias,title=title', '--encoding', 'windows-1252'], { env: fx.env });
    expect(chosen.code).toBe(2);
    expect(chosen.stdout).toBe('');
    expect(chosen.stderr).toContain(`${file}:2: --encoding windows-1252 would garble 2 lines that are UTF-8 (lines 2, 3): "Naïve" would be read as "NaÃ¯ve"`);
    expect(chosen.stderr).toMatch(/hint: the file mixes encodings \(1 line is not UTF-8\): save it again in one encoding, UTF-8 best, and import it without --encoding/);
    // A file all in Windows-1252 is read as it says.
    const legacy = join(dir, 'legacy.csv');
    writeFileSync(legacy, Buffer.concat([Buffer.from('url,alias,title\nhttps://example.com/c,cafe-c,Caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    const ok = await runCli(['import', 'csv', legacy, '--map', 'url=url,alias=alias,title=title', '--encoding', 'windows-1252'], { env: fx.env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('title: "Café"');
  });
});
