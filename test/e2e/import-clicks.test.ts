/**
 * `import --with-clicks` (issue 23): the export's click totals become the first snapshot of the
 * target account's click history, keyed by alias; after `apply`, `stats snapshot` finds each link
 * by its alias. The built CLI against the sandbox, the history read back from the SQLite file.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openHistory } from '../../src/history/store.js';
import { runCli, tempDir, useSandbox } from '../helpers.js';

const fx = useSandbox();
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/import/${name}`, import.meta.url));

/** Each imported link's alias with its stored totals, in snapshot order. */
async function history(db: string) {
  const h = await openHistory({ env: {} }, { db });
  try {
    const [source] = await h.sources();
    const snapshots = await h.snapshots(source!.id);
    const items = await h.items(source!.id, 'link');
    const counts = new Map<number, Array<[number, number | null]>>();
    await h.forEachCount(items.map((i) => i.id), (item, snapshot, clicks) => counts.set(item, [...(counts.get(item) ?? []), [snapshot, clicks]]));
    return { source: source!, snapshots, items: items.map((i) => ({ alias: i.alias, remoteId: i.remoteId, counts: counts.get(i.id) ?? [] })) };
  } finally {
    await h.close();
  }
}

describe('import --with-clicks', () => {
  it('records the totals as the first snapshot, and stats snapshot after apply goes on from them', async () => {
    const dir = tempDir();
    const db = join(dir, 'history.db');
    const file = join(dir, 'account.yaml');
    const env = { ...fx.env, LINKCTL_DB: db };
    const r = await runCli(['import', 'yourls', fixture('yourls.csv'), '--with-clicks', '--on-collision', 'suffix', '--file', file], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`recorded the click totals of 3 links as the starting point of this account's click history (${db})`);
    // The account's domains and links (import compares the export with them), then the account, to know whose history this is.
    expect(fx.sandbox.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/domains', 'GET /api/urls', 'GET /api/account']);

    const first = await history(db);
    expect(first.snapshots.map((s) => s.origin)).toEqual(['import:yourls']);
    expect(first.items.map((i) => [i.alias, i.remoteId, i.counts.map(([, clicks]) => clicks)])).toEqual([
      ['gh-2', null, [120]],
      ['newsletter', null, [35]],
      ['talk2024', null, [9]],
    ]);

    expect((await runCli(['apply', '-f', file, '--yes'], { env })).code).toBe(0);
    const snap = await runCli(['stats', 'snapshot', '--json'], { env: { ...env, LINKCTL_NOW: new Date(Date.now() + 60_000).toISOString() } });
    expect(snap.code, snap.stderr).toBe(0);
    const after = await history(db);
    expect(after.snapshots.map((s) => s.origin)).toEqual(['import:yourls', 'api']);
    // The imported items were found by alias: each now has the server's id, and no second item was made for it.
    for (const alias of ['gh-2', 'newsletter', 'talk2024']) {
      const found = after.items.filter((i) => i.alias === alias);
      expect(found, alias).toHaveLength(1);
      expect(Number.isInteger(found[0]!.remoteId), alias).toBe(true);
    }
  });

  it('an export without click totals records nothing and says so; a refused export reads no account and writes no database', async () => {
    const dir = tempDir();
    const db = join(dir, 'history.db');
    const r = await runCli(['import', 'bitly', fixture('bitly.csv'), '--with-clicks'], { env: { ...fx.env, LINKCTL_DB: db } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('note: --with-clicks: the export gives no click totals (a Bitly CSV export has none); nothing was recorded');
    fx.sandbox.requests.length = 0;
    const bad = await runCli(['import', 'yourls', fixture('yourls.csv'), '--with-clicks'], { env: { ...fx.env, LINKCTL_DB: join(dir, 'other.db') } });
    expect(bad.code).toBe(2); // "gh" is shorter than 3 characters: --on-collision fail
    expect(existsSync(join(dir, 'other.db'))).toBe(false);
    // The collision is known once the account's links are read; the account itself (whose history) is not asked for.
    expect(fx.sandbox.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/domains', 'GET /api/urls']);
  });

  it('without a key to read the account with: exit 3, no account file, no temporary file, no history database (the account is read first)', async () => {
    const dir = tempDir();
    const { LINKCTL_API_KEY: _key, ...noKey } = fx.env;
    const r = await runCli(['import', 'yourls', fixture('yourls.csv'), '--with-clicks', '--on-collision', 'suffix', '--file', join(dir, 'account.yaml')], { env: { ...noKey, LINKCTL_DB: join(dir, 'history.db') } });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(readdirSync(dir)).toEqual([]);
  });
});
