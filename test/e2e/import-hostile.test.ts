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
