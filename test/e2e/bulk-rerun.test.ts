/**
 * A `--from` file run again (issue 42): its rows already exist, so each is "failed" with a hint.
 * The hint names `--if-exists skip`, the choice that makes the file safe to run again, and the
 * run it suggests sends nothing and succeeds.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, sent, tempDir, useSandbox } from '../helpers.js';

const fx = useSandbox({ seed: { empty: true } });

describe('link add --from, run again', () => {
  it('offers --if-exists skip for rows that exist, and skip sends nothing, exit 0', async () => {
    const file = join(tempDir(), 'links.csv');
    writeFileSync(file, 'url,alias\nhttps://example.com/spring,spring\nhttps://example.com/summer,summer\n');
    const first = await runCli(['link', 'add', '--from', file], { env: fx.env });
    expect(first.code, first.stderr).toBe(0);

    const again = await runCli(['link', 'add', '--from', file, '--restart'], { env: fx.env });
    expect(again.code).toBe(1);
    const failed = again.stdout.trim().split('\n');
    expect(failed).toHaveLength(2);
    for (const row of failed) expect(row).toMatch(/\tfailed\t.*already has the alias "\w+" and this destination; nothing was sent.*\(pass --if-exists skip to leave it as it is and send nothing/);

    const before = fx.sandbox.requests.length;
    const skipped = await runCli(['link', 'add', '--from', file, '--restart', '--if-exists', 'skip'], { env: fx.env });
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stdout.trim().split('\n').map((row) => row.split('\t')[1])).toEqual(['skipped', 'skipped']);
    expect(sent(fx.sandbox).slice(before).filter((r) => r.method !== 'GET')).toEqual([]); // no create, no update
    expect(sent(fx.sandbox).slice(before).length).toBeGreaterThan(0); // the links were read to find them
  });
});
