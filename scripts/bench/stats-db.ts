/**
 * A year of click history for the benchmark, written through the history API that `stats
 * snapshot` uses (src/history/store.ts), so the file is exactly what snapshots make:
 *
 *   node stats-db.mjs FILE [--links 10000] [--days 365] [--change 0.1] [--details 0] [--qrs 0]
 *
 * One snapshot a day at 06:00 UTC from 2025-01-01 of `--links` links, a `--change` share of them
 * clicked each day (a fixed pseudo-random choice, so every run writes the same file). With
 * `--details N`, as `stats snapshot --details N`: the top countries, referrers, browsers and
 * systems of the N most clicked links (counts in fixed shares of the link's clicks, so a read
 * changes when its link was clicked); with `--qrs N`, N QR codes scanned now and then. Prints
 * `{"file","snapshots","links","from","to"}`. Run with NODE_PATH pointing at the repository's
 * node_modules (the bundle lives in a temporary folder; libsql stays outside it).
 */
import { openHistory, type HistoryRecord } from '../../src/history/store.js';

const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const file = process.argv[2];
if (!file || file.startsWith('--')) throw new Error('usage: stats-db.mjs FILE [--links N] [--days N] [--change SHARE]');
const links = flag('--links', 10_000);
const days = flag('--days', 365);
const change = flag('--change', 0.1);
const detailed = flag('--details', 0);
const qrCount = flag('--qrs', 0);

/** Names and shares of each breakdown: a link's clicks split over them, rounded down. */
const SHARES = {
  countries: [['United States', 0.31], ['Canada', 0.17], ['Germany', 0.12], ['France', 0.09], ['United Kingdom', 0.08], ['Brazil', 0.06], ['India', 0.05], ['Japan', 0.04]],
  referrers: [['Direct, email and other', 0.41], ['https://news.example.invalid/', 0.22], ['https://social.example.invalid/', 0.15], ['https://search.example.invalid/', 0.12]],
  browsers: [['Chrome', 0.52], ['Safari', 0.27], ['Firefox', 0.11], ['Edge', 0.07]],
  os: [['Android', 0.38], ['iOS', 0.29], ['Windows', 0.2], ['macOS', 0.09], ['Linux', 0.04]],
} as const;
const details = (clicks: number) => Object.fromEntries(Object.entries(SHARES).map(([dimension, shares]) => [dimension, Object.fromEntries(shares.map(([name, share]) => [name, Math.floor(clicks * share)]))]));

const START = Date.UTC(2025, 0, 1, 6);
const DAY = 86_400_000;
let seed = 42;
const random = () => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);

const clicks = Array.from({ length: links }, (_, i) => ((i + 1) * 37) % 1000);
const unique = clicks.map((c) => Math.floor(c * 0.7));
const scans = Array.from({ length: qrCount }, (_, i) => (i + 1) * 11);
const history = await openHistory({ env: { LINKCTL_DB: file } }, { create: true });
const source = { baseUrl: 'http://bench.invalid', account: '1', name: 'bench' };
try {
  for (let d = 0; d < days; d++) {
    if (d > 0) {
      for (let n = 0; n < links * change; n++) {
        const i = Math.floor(random() * links);
        const more = 1 + Math.floor(random() * 20);
        clicks[i]! += more;
        unique[i]! += Math.ceil(more / 2);
      }
      for (let q = 0; q < qrCount; q++) if (random() < 0.3) scans[q]! += 1 + Math.floor(random() * 5);
    }
    const records: HistoryRecord[] = clicks.map((c, i) => ({ kind: 'link', id: i + 1, alias: `bulk${i + 1}`, label: `Bulk link ${i + 1}`, url: `http://bench.invalid/bulk${i + 1}`, campaign: null, clicks: c, uniqueClicks: unique[i]! }));
    if (detailed) {
      const top = records.map((r, i) => [i, clicks[i]!] as const).sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, detailed);
      for (const [i, c] of top) records[i]!.details = details(c);
    }
    for (let q = 0; q < qrCount; q++) records.push({ kind: 'qr', id: q + 1, alias: `QR ${q + 1}`, label: `QR ${q + 1}`, clicks: scans[q]! });
    await history.snapshot({ source, at: START + d * DAY, records });
  }
} finally {
  await history.close();
}
process.stdout.write(`${JSON.stringify({ file, snapshots: days, links, from: new Date(START).toISOString(), to: new Date(START + (days - 1) * DAY).toISOString() })}\n`);
