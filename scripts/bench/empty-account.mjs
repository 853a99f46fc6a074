/**
 * An account with nothing in it, behind an HTTP proxy: every API list answers with no records
 * (the product's envelope). For the bench's `stats report` row, whose history is of
 * http://bench.invalid: the report reads the account's channels from its server, and through
 * HTTP_PROXY this answers for it, on 127.0.0.1, with no name looked up. The proxy takes CONNECT
 * (undici tunnels through it) and plain requests alike.
 *
 *   node empty-account.mjs    prints the proxy's URL on stdout, serves until SIGTERM
 */
import { createServer } from 'node:http';
import { connect } from 'node:net';

const api = createServer((req, res) => {
  const kind = /\/api\/([a-z]+)/.exec(req.url ?? '')?.[1] ?? 'data';
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ error: 0, data: { result: 0, perpage: 1000, currentpage: 1, nextpage: null, maxpage: 1, [kind]: [] } }));
});
await new Promise((resolve) => api.listen(0, '127.0.0.1', resolve));
const proxy = createServer((req, res) => api.emit('request', req, res));
proxy.on('connect', (req, socket, head) => {
  const upstream = connect(api.address().port, '127.0.0.1', () => {
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.on('error', () => socket.destroy());
  socket.on('error', () => upstream.destroy());
});
proxy.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${proxy.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
