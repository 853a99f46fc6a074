/**
 * The `linkctl listen` rows of `npm run bench` (`--only listen`; issue 52), called by
 * scripts/bench.mjs with its helpers. The product posts its visit webhook while the visitor waits
 * for the redirect, so every millisecond listen takes is the visitor's. Each row sets listen (the
 * built CLI storing into an SQLite history file, each event committed before its 2xx) beside the
 * least a durable receiver does (scripts/bench/durable-server.mjs: append each post to a file and
 * sync it before answering, posts that arrive during a sync waiting for the next), on the same
 * load in the same run:
 *
 * - a burst of 2,000 visit posts from 50 senders, a new connection each, `Content-Type:
 *   application/json`, as the product sends them (a fresh curl handle per post);
 * - the same burst from kept-alive senders (a reverse proxy in front);
 * - a sustained 15,000 posts at about 500 a second, new connections, with listen's memory
 *   sampled through the run (flat: the last third's no more than the first third's + 10%).
 *
 * The figure is the p99 of the answer time; the ratio is listen's over the bare server's, per
 * run, and the row prints the median of --listen-runs runs (3). Each burst goes to one server and
 * then the same to the other (each has the machine to itself; which goes first alternates),
 * --listen-pairs times a run (3); a run's burst ratio is the median of its pairs'. The sustained
 * load goes to both at once, their posts interleaved: at 500 a second neither is short of CPU, and
 * an open-loop p99 is set by the machine's slowest seconds (a shared machine stalls now and then
 * for tens of ms), which one after the other would fall on one side only. Before its bursts, each
 * server gets the same unmeasured burst of 200 posts (both warm, as a receiver the product has
 * posted to is), and the bench warms its own client.
 */
import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Agent, createServer, request } from 'node:http';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';

const BURST = { posts: 2_000, senders: 50 };
const TARGET = 1.1;
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

const date = () => new Date().toISOString().slice(0, 19).replace('T', ' ');
let serial = 0;
const visit = (template) => template.replace('"Firefox"', `"Firefox ${serial++}"`).replace(/"date":"[^"]+"/, `"date":"${date()}"`);
/** The template's post for one of `links` links (`x0`, `x1`, ... in base 36), picked at random: visits spread over an account. */
const visitOf = (template, links) => visit(template.replace('\\/hooked"', `\\/x${Math.floor(Math.random() * links).toString(36)}"`));

/**
 * `posts` posts from `senders` senders, each waiting for its answer before the next; `keepAlive` or
 * a new connection each (agent false); `links`: the posts spread over that many links (else all one link's).
 */
async function burst(url, template, { posts = BURST.posts, senders = BURST.senders, keepAlive = false, links = 0 } = {}) {
  const agent = keepAlive ? new Agent({ keepAlive: true, maxSockets: senders }) : false;
  const results = [];
  let next = 0;
  const sender = async () => {
    while (next < posts) {
      next++;
      results.push(await post(agent, url, links ? visitOf(template, links) : visit(template)));
    }
  };
  await Promise.all(Array.from({ length: senders }, sender));
  if (agent) agent.destroy();
  return results;
}

/** VmRSS of a process, in MB (Linux); undefined elsewhere. */
function rssMb(pid) {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `count` posts at `perSecond` to each server at once, each on a new connection, sent on schedule
 * whatever the answers (open loop), the two servers' posts interleaved; `pid`'s memory sampled
 * every 250 ms. At once, because an open-loop p99 is made by the machine's slowest moments: run
 * one after the other, a stall of the (shared) machine lands on one side and sets the ratio.
 */
async function sustained(servers, template, pid, { count, perSecond }) {
  const results = servers.map(() => []);
  const memory = [];
  const sampler = setInterval(() => memory.push(rssMb(pid)), 250);
  const started = performance.now();
  const pending = [];
  let sent = 0;
  await new Promise((resolve) => {
    const tick = () => {
      const due = Math.min(count, Math.floor(((performance.now() - started) / 1000) * perSecond) + 1);
      while (sent < due) {
        sent++;
        // which server gets the first of the pair alternates
        for (let k = 0; k < servers.length; k++) {
          const i = (k + sent) % servers.length;
          pending.push(post(false, servers[i].url, visit(template)).then((r) => results[i].push(r)));
        }
      }
      if (sent < count) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  await Promise.all(pending);
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  const known = memory.filter((m) => m !== undefined);
  const third = Math.max(1, Math.floor(known.length / 3));
  return { results, seconds, first: median(known.slice(0, third)), last: median(known.slice(-third)), peak: Math.max(...known) };
}

const median = (xs) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The bench's client is one Node process: its first requests compile its own HTTP code. It sends a burst to a throwaway server of its own first. */
async function warmClient(template) {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{"ok":true}'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  await burst(url, template, { posts: 500 });
  await burst(url, template, { posts: 500, keepAlive: true });
  await new Promise((resolve) => server.close(resolve));
}

async function startListen({ MAXRSS, NODE, tmp, clean, sb, run, db = join(tmp, `listen-bench-${run}.db`) }) {
  const env = clean({ LINKCTL_BASE_URL: sb.url, LINKCTL_API_KEY: sb.key, LINKCTL_CONFIG_DIR: join(tmp, 'listen-config'), BENCH_MAXRSS_FILE: join(tmp, `maxrss-listen-${run}`), BENCH_CPU_FILE: join(tmp, `cpu-listen-${run}`) });
  // its JSON lines into a file: read by this process, they would cost the client's loop (which
  // times the answers) work the bare server's answers do not, and count against listen
  const printed = join(tmp, `listen-out-${run}.jsonl`);
  const out = openSync(printed, 'w');
  const child = spawn(NODE, [MAXRSS, 'listen', '--port', '0', '--json', '--db', db], { env, stdio: ['ignore', out, 'pipe'] });
  closeSync(out);
  const lines = () => newlines(readFileSync(printed));
  const url = await new Promise((resolve, reject) => {
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d) => {
      err += d;
      const m = /^ {2}(http\S+\/visits)$/m.exec(err);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`listen exited ${code}: ${err}`)));
  });
  return {
    url, pid: child.pid, lines,
    stop: async () => {
      const stopped = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await stopped;
      return { peakMb: Number(readFileSync(join(tmp, `maxrss-listen-${run}`), 'utf8')) / 1024, cpuMs: Number(readFileSync(join(tmp, `cpu-listen-${run}`), 'utf8')) };
    },
  };
}

async function startBare({ NODE, tmp, run }) {
  const child = spawn(NODE, [new URL('./durable-server.mjs', import.meta.url).pathname, join(tmp, `durable-${run}.log`)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(String(d).trim())));
  const lines = () => newlines(readFileSync(join(tmp, `durable-${run}.log`)));
  return {
    url: `http://127.0.0.1:${port}/`, pid: child.pid, lines,
    stop: async () => {
      const stopped = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await stopped;
    },
  };
}

/** The lines of a file's bytes (read while a server waits to be asked again: no strings made). */
function newlines(bytes) {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

/** Resolves once `server` has `lines` lines out (stored and printed, or synced), or after 10 s. */
async function settled(server, lines) {
  const until = performance.now() + 10_000;
  while (server.lines() < lines && performance.now() < until) await new Promise((r) => setTimeout(r, 25));
}

export async function benchListen({ MAXRSS, NODE, tmp, report, sandbox, sandboxJs, clean, argv = [] }) {
  const opt = (name, fallback) => {
    const i = argv.indexOf(name);
    return i < 0 ? fallback : Number(argv[i + 1]);
  };
  const runs = opt('--listen-runs', 3);
  const pairs = opt('--listen-pairs', 3);
  const sustain = { count: opt('--listen-sustained', 15_000), perSecond: 500 };
  const sb = await sandbox(sandboxJs, ['--rate-limit', 'off']);
  const fixture = JSON.parse(readFileSync(new URL('../../test/fixtures/product-7.7/webhooks.json', import.meta.url), 'utf8'));
  const template = fixture.received.find((r) => r.path === '/clicked').body.replace('{BASE}', 'https:\\/\\/s.invalid');
  await warmClient(template);

  const rows = { fresh: [], kept: [], steady: [] };
  const checks = [];
  for (let run = 0; run < runs; run++) {
    const one = { listen: undefined, bare: undefined };
    const servers = { listen: await startListen({ MAXRSS, NODE, tmp, clean, sb, run }), bare: await startBare({ NODE, tmp, run }) };
    // Each burst goes to one server and then the same to the other (each has the machine to
    // itself; a pair's two bursts a second or two apart, which goes first alternating),
    // --listen-pairs times (3) a run: one burst's p99 is 20 answers, and a stall of the machine
    // moves it by tens of ms.
    // After each burst, the bench waits until that server has stored every post (listen prints an
    // event once the history holds it): its work after the answers must not fall on the next burst.
    const sent = { listen: 0, bare: 0 };
    const send = async (side, options) => {
      const results = await burst(servers[side].url, template, options);
      sent[side] += results.length;
      await settled(servers[side], sent[side]);
      return results;
    };
    for (const side of ['listen', 'bare']) {
      await send(side, { posts: 200 }); // warm, unmeasured
      one[side] = { fresh: [], kept: [] };
    }
    for (const load of ['fresh', 'kept']) {
      for (let pair = 0; pair < pairs; pair++) {
        for (const side of (run + pair) % 2 ? ['bare', 'listen'] : ['listen', 'bare']) one[side][load].push(await send(side, { keepAlive: load === 'kept' }));
      }
    }
    // the sustained load to both at once: the same seconds of the same machine
    const steady = await sustained([servers.listen, servers.bare], template, servers.listen.pid, sustain);
    one.listen.steady = { ...steady, results: steady.results[0] };
    one.bare.steady = { ...steady, results: steady.results[1] };
    for (const side of ['listen', 'bare']) await settled(servers[side], sent[side] + sustain.count);
    for (const side of ['listen', 'bare']) {
      one[side].lines = servers[side].lines();
      one[side].usage = await servers[side].stop();
    }
    for (const load of ['fresh', 'kept']) {
      // a burst's p99 per side, and the run's ratio: the median of the pairs' ratios
      const p99s = (side) => one[side][load].map((results) => percentile(results.map((r) => r.ms), 99));
      const [l, b] = [p99s('listen'), p99s('bare')];
      rows[load].push({ listen: median(l), bare: median(b), ratio: median(l.map((x, i) => x / b[i])) });
    }
    const steadyP99 = (side) => percentile(one[side].steady.results.map((r) => r.ms), 99);
    rows.steady.push({ listen: steadyP99('listen'), bare: steadyP99('bare'), memory: one.listen.steady, seconds: one.listen.steady.seconds });
    const answers = (side) => ['fresh', 'kept', 'steady'].flatMap((load) => (load === 'steady' ? one[side].steady.results : one[side][load].flat()));
    const all = answers('listen');
    const ok = all.filter((r) => r.status >= 200 && r.status < 300).length;
    const bareOk = answers('bare').filter((r) => r.status === 200).length;
    checks.push({ ok, sent: all.length + 200, printed: one.listen.lines, bareOk, bareLines: one.bare.lines, peakMb: one.listen.usage.peakMb, cpuMs: one.listen.usage.cpuMs });
  }

  const title = {
    fresh: `listen: ${BURST.posts.toLocaleString('en')} visit posts from ${BURST.senders} senders, a new connection each (as the product), p99  vs  a bare durable server`,
    kept: `listen: the same burst from kept-alive senders (a reverse proxy in front), p99  vs  a bare durable server`,
    steady: `listen: sustained, ${sustain.count.toLocaleString('en')} posts at ${sustain.perSecond} a second, new connections, p99  vs  a bare durable server`,
  };
  const stored = checks.every((c) => c.ok === c.sent - 200 && c.printed === c.sent);
  for (const load of ['fresh', 'kept', 'steady']) {
    const ratios = rows[load].map((r) => r.ratio ?? r.listen / r.bare);
    const extra = [
      { text: `ratio per run: ${ratios.map((r) => r.toFixed(3)).join(', ')} (the row's ratio is their median${load === 'steady' ? '' : `; a run's, the median of its ${pairs} pairs of bursts`})` },
    ];
    if (load === 'fresh') {
      extra.push({ ok: stored, text: `every post answered 2xx and every event stored (printed after its commit): ${checks.map((c) => `${c.ok.toLocaleString('en')} + 200 warm-up answered, ${c.printed.toLocaleString('en')} printed`).join('; ')}` });
      extra.push({ ok: checks.every((c) => c.bareOk === c.sent - 200 && c.bareLines === c.sent), text: `the bare server: ${checks.map((c) => `${c.bareOk.toLocaleString('en')} answered, ${c.bareLines.toLocaleString('en')} lines synced`).join('; ')}` });
      extra.push({ text: `listen's CPU time per post (whole run, start-up included): ${checks.map((c) => (c.cpuMs / c.sent).toFixed(2)).join(', ')} ms; load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores` });
    }
    if (load === 'steady') {
      const flat = rows.steady.every((r) => r.memory.last <= r.memory.first * 1.1);
      extra.push({ ok: flat, text: `listen's memory through the run (first third, last third, peak): ${rows.steady.map((r) => `${r.memory.first.toFixed(0)}, ${r.memory.last.toFixed(0)}, ${r.memory.peak.toFixed(0)} MB`).join('; ')} (flat: the last third within 10% of the first)` });
      extra.push({ ok: checks.every((c) => c.peakMb < MEMORY_MB), text: `listen's peak memory ${checks.map((c) => c.peakMb.toFixed(0)).join(', ')} MB (at most ${MEMORY_MB}); ${rows.steady.map((r) => `${(sustain.count / r.seconds).toFixed(0)}/s`).join(', ')} sent` });
    }
    report(title[load], [['linkctl listen p99', rows[load].map((r) => r.listen), 'ms'], ['bare durable server p99', rows[load].map((r) => r.bare), 'ms']], median(ratios), TARGET, extra);
  }
}

/** CPU time (ms) of a process and all its threads so far (Linux: /proc/<pid>/stat, in clock ticks of 10 ms). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const ITEMS = 20_000;
const LINKS = 5_000;
const LINKS_TARGET = 1.3;

/**
 * listen in a large account: its history holds 20,000 links (as `stats snapshot` of such an
 * account leaves it), and the visits spread over 5,000 of them. Listen ties each event to its
 * link's item, looked up once per link a run; that lookup once read every link item of the
 * account (issue 52: 0.33 ms of the main thread a post here, against 0.03 ms). The row sets
 * listen's CPU a post over the 5,000 links beside the same over one link, both on that history:
 * 3 bursts of 2,000 posts from 50 senders a start, --listen-runs starts each (3), the first alternating.
 */
export async function benchListenLinks({ ROOT, MAXRSS, NODE, tmp, report, sandbox, sandboxJs, clean, argv = [] }) {
  const i = argv.indexOf('--listen-runs');
  const runs = i < 0 ? 3 : Number(argv[i + 1]);
  const sb = await sandbox(sandboxJs, ['--rate-limit', 'off']);
  const fixture = JSON.parse(readFileSync(new URL('../../test/fixtures/product-7.7/webhooks.json', import.meta.url), 'utf8'));
  const template = fixture.received.find((r) => r.path === '/clicked').body.replace('{BASE}', 'https:\\/\\/s.invalid');
  // the history: made by listen (its schema and the account), then the account's links added as a snapshot stores them
  const made = join(tmp, 'listen-links-template.db');
  const first = await startListen({ MAXRSS, NODE, tmp, clean, sb, run: 'links-template', db: made });
  await first.stop();
  rmSync(`${made}-listen`, { recursive: true, force: true });
  const Database = createRequire(join(ROOT, 'package.json'))('libsql');
  const db = new Database(made);
  const [[source]] = db.prepare('SELECT id FROM sources').raw().all();
  const insert = db.prepare("INSERT INTO items (source_id, kind, remote_id, alias, label, url, campaign) VALUES (?, 'link', ?, ?, NULL, ?, NULL)");
  db.exec('BEGIN');
  for (let n = 0; n < ITEMS; n++) insert.run([source, 100_000 + n, `x${n.toString(36)}`, `https://s.invalid/x${n.toString(36)}`]);
  db.exec('COMMIT');
  db.close();

  const perPost = { many: [], one: [] };
  for (let run = 0; run < runs; run++) {
    for (const side of run % 2 ? ['one', 'many'] : ['many', 'one']) {
      const file = join(tmp, `listen-links-${run}-${side}.db`);
      copyFileSync(made, file);
      const server = await startListen({ MAXRSS, NODE, tmp, clean, sb, run: `links-${run}-${side}`, db: file });
      const links = side === 'many' ? LINKS : 1;
      await burst(server.url, template, { posts: 200, links });
      await settled(server, 200);
      const before = cpuMs(server.pid);
      for (let b = 0; b < 3; b++) {
        await burst(server.url, template, { links });
        await settled(server, 200 + (b + 1) * BURST.posts);
      }
      perPost[side].push(((cpuMs(server.pid) - before) * 1000) / (3 * BURST.posts));
      await server.stop();
    }
  }
  const ratios = perPost.many.map((m, k) => m / perPost.one[k]);
  report(
    `listen in a large account: CPU a post, visits over ${thousands(LINKS)} of ${thousands(ITEMS)} links in the history  vs  over one link`,
    [[`over ${thousands(LINKS)} links`, perPost.many, 'µs'], ['over one link', perPost.one, 'µs']],
    median(ratios),
    LINKS_TARGET,
    [{ text: `ratio per run: ${ratios.map((r) => r.toFixed(3)).join(', ')} (the row's ratio is their median); 3 bursts of ${thousands(BURST.posts)} posts from ${BURST.senders} senders a start, their storing included` }],
  );
}

const thousands = (n) => n.toLocaleString('en');
