/**
 * Destinations for the `check` row of scripts/bench.mjs, in their own process: every request is
 * answered 200 after DELAY_MS, whatever its Host (the bench's 50 hosts are h1.localhost to
 * h50.localhost, all on this one server). It counts requests in flight, overall and per Host, so
 * the bench can show that linkctl kept to its limits.
 *
 *   node destinations.mjs DELAY_MS
 *
 * Prints one JSON line `{"port"}`, then serves until stdin closes or SIGTERM.
 * GET /__stats answers `{requests, maxInFlight, maxPerHost}`; POST /__stats resets them.
 */
import { createServer } from 'node:http';

const delay = Number(process.argv[2] ?? 100);
let requests = 0;
let inFlight = 0;
let maxInFlight = 0;
let maxPerHost = 0;
const perHost = new Map();

const server = createServer((req, res) => {
  if (req.url === '/__stats') {
    if (req.method === 'POST') {
      requests = maxInFlight = maxPerHost = 0;
      return void res.end('{}');
    }
    return void res.end(JSON.stringify({ requests, maxInFlight, maxPerHost }));
  }
  const host = String(req.headers.host).replace(/:\d+$/, '');
  requests++;
  maxInFlight = Math.max(maxInFlight, ++inFlight);
  perHost.set(host, (perHost.get(host) ?? 0) + 1);
  maxPerHost = Math.max(maxPerHost, perHost.get(host));
  setTimeout(() => {
    inFlight--;
    perHost.set(host, perHost.get(host) - 1);
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '3' }).end(req.method === 'HEAD' ? undefined : 'ok\n');
  }, delay);
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop).resume();
