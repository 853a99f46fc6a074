/**
 * The image reads alone, for the QR rows of the benchmark: the code list read with one fetch,
 * then every code's content read as linkctl reads it (src/qr/read.ts, the same limits), in one
 * process. Prints `{"ms","cpuMs","read","unreadable","maxRssMb"}`.
 *
 *   node qr-read.mjs BASE_URL KEY
 */
import { ApiClient } from '../../src/http/client.js';
import { readCodes } from '../../src/qr/read.js';

const [base, key] = process.argv.slice(2) as [string, string];
const started = performance.now();
const list = (await (await fetch(`${base}/api/qr?limit=100000`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { data: { qrs: Array<{ id: number; name: string; link: string }> } };
const client = new ApiClient({ baseUrl: base, apiKey: key, timeoutMs: 30_000, maxWaitMs: 60_000, env: {} });
const reads = await readCodes(client, list.data.qrs.map((q) => ({ id: q.id, name: q.name, link: q.link })));
const ms = performance.now() - started;
const unreadable = reads.filter((r) => !r.content);
const usage = process.resourceUsage();
process.stdout.write(`${JSON.stringify({ ms, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, read: reads.length - unreadable.length, unreadable: unreadable.length, reasons: unreadable.slice(0, 3).map((r) => r.unreadable), maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
