/**
 * Destinations for the `check` row of scripts/bench.mjs, in their own process: every request is
 * answered 200 after DELAY_MS. The bench's hosts are addresses of this machine, 127.0.0.1 to
 * 127.0.0.HOSTS, one server on each, all on one port: linkctl's per-host limit counts addresses,
 * so hosts that are names of one address would share its 2 requests. It counts requests in
 * flight, overall and per address, so the bench can show that linkctl kept to its limits.
 *
 *   node destinations.mjs DELAY_MS HOSTS
 *
 * Prints one JSON line `{"port"}`, then serves until stdin closes or SIGTERM.
 * GET /__stats answers `{requests, heads, gets, maxInFlight, maxPerHost}`; POST /__stats resets them.
 */
import { createServer } from 'node:http';

const delay = Number(process.argv[2] ?? 100);
const hosts = Number(process.argv[3] ?? 50);
let requests = 0;
let heads = 0;
let inFlight = 0;
let maxInFlight = 0;
let maxPerHost = 0;
const perHost = new Map();

const answer = (req, res) => {
  if (req.url === '/__stats') {
    if (req.method === 'POST') {
      requests = heads = maxInFlight = maxPerHost = 0;
      return void res.end('{}');
    }
    return void res.end(JSON.stringify({ requests, heads, gets: requests - heads, maxInFlight, maxPerHost }));
  }
  const host = req.socket.localAddress;
  requests++;
  if (req.method === 'HEAD') heads++;
  maxInFlight = Math.max(maxInFlight, ++inFlight);
  perHost.set(host, (perHost.get(host) ?? 0) + 1);
  maxPerHost = Math.max(maxPerHost, perHost.get(host));
  setTimeout(() => {
    inFlight--;
    perHost.set(host, perHost.get(host) - 1);
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '3' }).end(req.method === 'HEAD' ? undefined : 'ok\n');
  }, delay);
};

const servers = [];
const listen = (address, port) =>
  new Promise((resolve, reject) => {
    const server = createServer(answer);
    server.keepAliveTimeout = 30_000;
    servers.push(server);
    server.once('error', reject).listen(port, address, () => resolve(server.address().port));
  });
const port = await listen('127.0.0.1', 0);
for (let n = 2; n <= hosts; n++) await listen(`127.0.0.${n}`, port);
process.stdout.write(`${JSON.stringify({ port })}\n`);

const stop = () => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))).then(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop).resume();
