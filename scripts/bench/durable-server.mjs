/**
 * The yardstick of the `listen` rows (scripts/bench/listen.mjs, issue 52): the least a durable
 * webhook receiver does. It appends each post's body to a file and syncs the file before it
 * answers; posts that arrive while a sync runs wait for the next one (a group commit), so a burst
 * pays one sync per batch, not one per post. The writes and syncs run on libuv's thread pool.
 *
 *   node durable-server.mjs FILE    prints its port on stdout, serves until SIGTERM
 */
import { createServer } from 'node:http';
import { fsync, openSync, write } from 'node:fs';

const fd = openSync(process.argv[2], 'a');
let waiting = [];
let syncing = false;

function commit() {
  if (syncing || !waiting.length) return;
  syncing = true;
  const batch = waiting;
  waiting = [];
  write(fd, Buffer.concat(batch.map((b) => b.line)), (error) => {
    if (error) return done(batch, 503);
    fsync(fd, (err) => done(batch, err ? 503 : 200));
  });
}

function done(batch, status) {
  syncing = false;
  for (const { res } of batch) {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(status === 200 ? '{"ok":true}' : '{"ok":false}');
  }
  commit();
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    waiting.push({ line: Buffer.concat([...chunks, Buffer.from('\n')]), res });
    commit();
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
