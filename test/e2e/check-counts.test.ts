/**
 * `check` counts destinations as destinations (issue 42): three links on two destinations were
 * "3 blocked" in a summary that began "checked 2 destinations of 3 links". Statuses and flags
 * belong to a destination; the summary line, the terminal's table and the blocked note count
 * them once, however many links share one. Private addresses are never requested (no network).
 */
import { describe, expect, it } from 'vitest';
import { runMain, useSandbox } from '../helpers.js';

const fx = useSandbox({ seed: { empty: true } });

describe('check counts destinations', () => {
  it('two links on one blocked destination and one on another: 2 destinations blocked, of 3 links, everywhere it is said', async () => {
    for (const [url, alias] of [['http://10.1.2.3/shop', 'shop'], ['http://10.1.2.3/shop', 'shop-again'], ['http://192.168.1.1/', 'router']]) {
      const added = await runMain(['link', 'add', url, '--alias', alias, '--if-exists', 'fail', '--json'], { env: fx.env });
      expect(added.code, added.stderr).toBe(0);
    }
    const { LINKCTL_CHECK_ALLOW_PRIVATE: _, ...env } = fx.env as Record<string, string>;
    const piped = await runMain(['check', '--json'], { env });
    expect(piped.code).toBe(0);
    expect((JSON.parse(piped.stdout) as unknown[]).length).toBe(3); // a record per link
    expect(piped.stderr).toMatch(/^checked 2 destinations of 3 links in [\d.]+ s: 2 blocked; flags: 2 insecure; 2 findings$/m); // findings are the links': both are the same destination as another
    expect(piped.stderr).toMatch(/^2 destinations blocked: a private, loopback or link-local address was not requested; --allow-private \[networks\] checks them$/m);

    const terminal = await runMain(['check', '--no-color'], { env, tty: true });
    expect(terminal.stdout).toMatch(/^Checked 2 destinations of 3 links in [\d.]+ s: 2 blocked; flags: 2 insecure; 2 findings\.$/m);
    expect(terminal.stdout).toMatch(/^ {2}2 {2}insecure /m);
    expect(terminal.stdout).toMatch(/^ {2}2 {2}blocked /m);
    expect(terminal.stdout).toMatch(/^ {2}2 destinations blocked: /m);
  });
});
