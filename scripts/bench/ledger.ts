/**
 * The ledger's cost per write (`npm run bench -- --only ledger`): what recording one write adds
 * to a command that writes, measured apart from the network. One writer records WRITES link
 * creations and updates in a fresh SQLite history, one after another as a run records them
 * (each entry chained and committed before the next), after a warm-up of its own. Bundled by
 * scripts/bench.mjs (esbuild) and run in a process of its own; prints one JSON line.
 *
 *   node ledger.mjs DIR [WRITES]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LedgerWriter, type WriteSeen } from '../../src/history/ledger-writer.js';

const dir = mkdtempSync(join(process.argv[2] ?? '/tmp', 'ledger-bench-'));
const WRITES = Number(process.argv[3] ?? 500);
const writer = new LedgerWriter({
  env: { LINKCTL_DB: join(dir, 'history.db') },
  where: () => ({ profile: 'default', server: 'http://127.0.0.1:1' }),
  command: () => 'link add',
  via: () => 'cli',
  override: () => undefined,
  secrets: ['bench-key-0123456789'],
  warn: (message) => process.stderr.write(`${message}\n`),
});

const write = (i: number): WriteSeen => i % 2
  ? { method: 'PUT', path: `/api/url/${i}/update`, json: { url: `https://example.invalid/page/${i}?utm_source=bench`, custom: `bench-${i}`, description: 'x'.repeat(200) }, result: { error: 0, id: i } }
  : { method: 'POST', path: '/api/url/add', json: { url: `https://example.invalid/page/${i}`, custom: `bench-${i}`, pass: 'not stored' }, result: { error: 0, id: i, shorturl: `http://127.0.0.1:1/bench-${i}` } };

try {
  for (let i = 0; i < 20; i++) await writer.record(write(100_000 + i)); // open the database, prepare, warm up
  const times: number[] = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < WRITES; i++) {
    const t = performance.now();
    await writer.record(write(i));
    times.push(performance.now() - t);
  }
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({
    writes: WRITES, ms, perWrite: ms / WRITES, p50: times[Math.floor(WRITES / 2)], p99: times[Math.floor(WRITES * 0.99)],
    cpuPerWrite: (used.user + used.system) / 1000 / WRITES, maxRssMb: process.memoryUsage().rss / 1048576,
  }));
} finally {
  await writer.close();
  rmSync(dir, { recursive: true, force: true });
}
