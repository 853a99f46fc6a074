/**
 * The `linkctl listen` row of `npm run bench` (`--only listen`), called by scripts/bench.mjs with
 * its helpers: a burst of 2,000 visit posts (the product's body, test/fixtures/product-7.7) from
 * 50 senders at once, each on its own kept-alive connection, against the built CLI storing into
 * an SQLite history file. Targets (issue 40): every post answered 2xx (each after its event was
 * committed), p99 of the answer time under 50 ms, listen's peak memory under 200 MB, and all
 * 2,000 events in the database afterwards. The door answers on a thread of its own, warmed up
 * before it is announced (src/listen/door-thread.ts); the bench warms its own client too.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';

const POSTS = 2_000;
const SENDERS = 50;
const P99_MS = 50;
const MEMORY_MB = 200;

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

function post(agent, url, body) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', accept: '*/*', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(body);
  });
}

/** Sends POSTS visit bodies from SENDERS senders (kept-alive connections) to `url`; each answer's status and time. */
async function burst(url, body) {
  const agent = new Agent({ keepAlive: true, maxSockets: SENDERS });
  const results = [];
  let next = 0;
  const date = () => new Date().toISOString().slice(0, 19).replace('T', ' ');
  const sender = async () => {
    while (next < POSTS) {
      const i = next++;
      results.push(await post(agent, url, body.replace('"Firefox"', `"Firefox ${i}"`).replace(/"date":"[^"]+"/, `"date":"${date()}"`)));
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: SENDERS }, sender));
  const wall = performance.now() - started;
  agent.destroy();
  return { results, wall };
}

/**
 * The same burst against a bare Node HTTP server that stores nothing and answers at once, in a
 * process of its own, not warmed up: a receiver that does nothing but is cold (libuv takes
 * one new connection per turn of a loop, and the client's fifty connections open at once).
 */
async function bareServer(NODE, body) {
  const code = "const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => r.end('{\"ok\":true}')); }); s.listen(0, '127.0.0.1', () => console.log(s.address().port));";
  const child = spawn(NODE, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(String(d).trim())));
  const { results } = await burst(`http://127.0.0.1:${port}/`, body);
  child.kill();
  return percentile(results.map((r) => r.ms), 99);
}

/**
 * The bench's client is one Node process: its first requests compile its own HTTP code, and that
 * time would count as listen's. It sends a burst to a throwaway server of its own first.
 */
async function warmClient(body) {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{"ok":true}'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  await burst(`http://127.0.0.1:${server.address().port}/`, body);
  await new Promise((resolve) => server.close(resolve));
}

export async function benchListen({ MAXRSS, NODE, tmp, report, sandbox, sandboxJs, clean }) {
  const sb = await sandbox(sandboxJs, ['--rate-limit', 'off']);
  const db = join(tmp, 'listen-bench.db');
  const rssFile = join(tmp, 'maxrss-listen');
  const cpuFile = join(tmp, 'cpu-listen');
  const env = clean({ LINKCTL_BASE_URL: sb.url, LINKCTL_API_KEY: sb.key, LINKCTL_CONFIG_DIR: join(tmp, 'listen-config'), BENCH_MAXRSS_FILE: rssFile, BENCH_CPU_FILE: cpuFile });
  const child = spawn(NODE, [MAXRSS, 'listen', '--port', '0', '--json', '--db', db], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let lines = 0;
  child.stdout.setEncoding('utf8').on('data', (d) => (lines += d.split('\n').length - 1));
  const visits = await new Promise((resolve, reject) => {
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d) => {
      err += d;
      const m = /visits: +(\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`listen exited ${code}: ${err}`)));
  });
  const fixture = JSON.parse(readFileSync(new URL('../../test/fixtures/product-7.7/webhooks.json', import.meta.url), 'utf8'));
  const template = fixture.received.find((r) => r.path === '/clicked').body.replace('{BASE}', 'https:\\/\\/s.invalid');
  await warmClient(template);
  const { results, wall } = await burst(visits, template);
  const stopped = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await stopped;
  const bareP99 = await bareServer(NODE, template);
  const rssMb = Number(readFileSync(rssFile, 'utf8')) / 1024;
  const cpuMs = Number(readFileSync(cpuFile, 'utf8'));
  const ok = results.filter((r) => r.status >= 200 && r.status < 300).length;
  const ms = results.map((r) => r.ms);
  const p99 = percentile(ms, 99);
  report(`listen: a burst of ${POSTS.toLocaleString('en')} visit posts from ${SENDERS} senders, each stored before its 2xx (p99 / ${P99_MS} ms)`, [['answer time', ms, 'ms']], p99 / P99_MS, 1, [
    { ok: ok === POSTS, text: `${ok.toLocaleString('en')} of ${POSTS.toLocaleString('en')} answered 2xx; ${lines.toLocaleString('en')} events printed; ${Math.round(wall)} ms for the burst (${Math.round((POSTS / wall) * 1000)} posts/s)` },
    { text: `p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms` },
    { text: `for comparison, the same burst to a bare Node server (stores nothing, not warmed up): p99 ${bareP99.toFixed(1)} ms` },
    // CPU time is less sensitive than wall time to other work on a shared machine: what listen itself spent
    { text: `listen's CPU time ${Math.round(cpuMs)} ms for its whole run (start-up included): ${(cpuMs / POSTS).toFixed(2)} ms a post; load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores` },
    { ok: lines === POSTS, text: `every acknowledged event printed once (${lines})` },
    { ok: rssMb < MEMORY_MB, text: `listen's peak memory ${rssMb.toFixed(0)} MB (at most ${MEMORY_MB})` },
  ]);
}
