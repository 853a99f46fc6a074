/**
 * The QR and link-health rows of `npm run bench` (`--only qr-decoders,qr-read,qr-export,check`),
 * called by scripts/bench.mjs with its helpers and options: how the QR decoder was chosen, reading
 * 1,000 QR images from a local server and exporting an account of them, and `check` of many
 * destinations on this machine's addresses. Each row runs only when `--only` names it.
 */
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export async function benchQrAndCheck({ CHECK, CHECK_RUNS, MAXRSS, MEMORY_CAP_MB, NODE, ONLY, QR, QR_RUNS, ROOT, children, clean, control, median, report, sandbox, sandboxJs, timed, tmp }) {
  // How the QR decoder was chosen: rates and times only, no target (README, Install). Not in the default rows.
  if (ONLY.includes('qr-decoders')) {
    const out = join(ROOT, 'node_modules/.cache/linkctl-bench');
    await build({
      entryPoints: [join(ROOT, 'scripts/bench/qr-decoders.ts')], outfile: join(out, 'qr-decoders.mjs'), bundle: true, format: 'esm', platform: 'node', target: 'node20',
      external: ['@resvg/resvg-js', 'zxing-wasm', 'jsqr'],
      banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
      logLevel: 'warning',
    });
    console.log('\nQR decoders on 420 styled codes like the product\'s (scripts/bench/qr-decoders.ts):');
    process.stdout.write(timed([join(out, 'qr-decoders.mjs')], clean()).stdout);
  }

  if (ONLY.includes('qr-read') || ONLY.includes('qr-export')) {
    // Bundled beside node_modules: the QR readers (resvg, zxing-wasm) stay outside the bundle and are found there.
    const out = join(ROOT, 'node_modules/.cache/linkctl-bench');
    for (const name of ['qr-server', 'qr-read']) {
      await build({
        entryPoints: [join(ROOT, `scripts/bench/${name}.ts`)], outfile: join(out, `${name}.mjs`), bundle: true, format: 'esm', platform: 'node', target: 'node20',
        external: ['@resvg/resvg-js', 'zxing-wasm'],
        banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
        logLevel: 'warning',
      });
    }
    const server = spawn(NODE, [join(out, 'qr-server.mjs'), String(QR.codes)], { env: clean(), stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(server);
    const { url, key } = JSON.parse(await new Promise((resolve, reject) => {
      server.on('exit', (code) => reject(new Error(`bench QR server exited ${code}`)));
      createInterface({ input: server.stdout }).once('line', resolve);
    }));
    const count = (method = 'GET') => control(`${url}/__count`, { method });
    const env = (extra = {}) => clean({ LINKCTL_BASE_URL: url, LINKCTL_API_KEY: key, LINKCTL_CONFIG_DIR: join(tmp, 'qr-config'), ...extra });
    const rssFile = join(tmp, 'maxrss-qr');
    const reads = [];
    const readCpu = [];
    const readPeaks = [];
    const exports = [];
    const exportPeaks = [];
    const problems = [];
    await count('POST');
    timed([MAXRSS, 'export', '--no-qr-content', '--file', join(tmp, 'qr-bare.yaml'), '--force'], env({ BENCH_MAXRSS_FILE: rssFile }));
    const bareApi = (await count('POST')).api;
    for (let i = 0; i <= QR_RUNS; i++) {
      const r = JSON.parse(timed([join(out, 'qr-read.mjs'), url, key], clean()).stdout);
      if (r.read !== QR.codes) problems.push(`image reads, run ${i}: ${r.read} of ${QR.codes} read (${r.reasons.join('; ')})`);
      await count('POST');
      // --include-secrets: every code is written with its content (a wifi code's password is a secret, written by name only without it)
      const e = timed([MAXRSS, 'export', '--include-secrets', '--file', join(tmp, 'qr.yaml'), '--force'], env({ BENCH_MAXRSS_FILE: rssFile }));
      const seen = await count('POST');
      const file = readFileSync(join(tmp, 'qr.yaml'), 'utf8');
      const withContent = (file.match(/^ {4}type: /gm) ?? []).length;
      if (withContent !== QR.codes) problems.push(`export, run ${i}: ${withContent} of ${QR.codes} codes with their content`);
      if (seen.api !== bareApi) problems.push(`export, run ${i}: ${seen.api} API requests, ${bareApi} without reading images`);
      if (i === 0) continue; // warm-up
      reads.push(r.ms);
      readCpu.push(r.cpuMs);
      readPeaks.push(r.maxRssMb);
      exports.push(e.ms);
      exportPeaks.push(Number(readFileSync(rssFile, 'utf8')) / 1024);
    }
    if (ONLY.includes('qr-read')) {
      report(
        `read the content of ${QR.codes.toLocaleString('en')} QR images (half styled SVG behind a 302, half PNG, every type) from a local server  vs  its budget`,
        [['budget', reads.map(() => QR.budgetMs), 'ms'], ['image reads (src/qr/read.ts, one process)', reads, 'ms'], ['  its CPU time (user + system)', readCpu, 'ms'], ['  peak RSS (MB)', readPeaks, 'MB']],
        median(reads) / QR.budgetMs,
        1,
        [
          { ok: Math.max(...readPeaks) <= QR.budgetMb, text: `largest peak ${Math.max(...readPeaks).toFixed(1)} MB (target at most ${QR.budgetMb} MB)` },
          { ok: problems.length === 0, text: problems.length ? problems.join('\n    ') : `every run read all ${QR.codes} codes` },
        ],
      );
    }
    if (ONLY.includes('qr-export')) {
      report(
        `export of an account with ${QR.codes.toLocaleString('en')} QR codes (their content read)  vs  the image reads alone`,
        [['image reads alone', reads, 'ms'], ['linkctl export --file', exports, 'ms'], ['  peak RSS (MB)', exportPeaks, 'MB']],
        median(exports) / median(reads),
        QR.exportRatio,
        [{ ok: problems.length === 0, text: problems.length ? problems.join('\n    ') : `API requests: ${bareApi}, as with --no-qr-content (images are not API requests)` }],
      );
    }
  }

  if (ONLY.includes('check')) {
    const { destinations, hosts, delayMs, concurrency, perHost } = CHECK;
    const sb = await sandbox(sandboxJs, ['--rate-limit', 'off']);
    // The destinations, in a process of their own (scripts/bench/destinations.mjs).
    const server = spawn(NODE, [join(ROOT, 'scripts/bench/destinations.mjs'), String(delayMs), String(hosts)], { env: clean(), stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(server);
    const { port } = JSON.parse(await new Promise((resolve, reject) => {
      server.on('exit', (code) => reject(new Error(`bench destinations exited ${code}`)));
      createInterface({ input: server.stdout }).once('line', resolve);
    }));
    const stats = (method = 'GET') => control(`http://127.0.0.1:${port}/__stats`, { method });
    // The account: the seeded links (on example.com) deleted, then one link a destination, host by host in turn.
    // The hosts are addresses of this machine (127.0.0.1 to .50): the per-host limit counts addresses.
    const api = (method, path, body) => control(`${sb.url}/api/${path}`, { method, headers: { Authorization: `Bearer ${sb.key}`, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
    for (const id of [1, 2]) await api('DELETE', `url/${id}/delete`);
    for (let i = 0; i < destinations; i++) {
      const r = await api('POST', 'url/add', { url: `http://127.0.0.${(i % hosts) + 1}:${port}/d/${i}`, custom: `check${i}` });
      if (r.error) throw new Error(`url/add: ${JSON.stringify(r)}`);
    }
    // The least time the limits allow: rounds of min(concurrency, hosts × per host) destinations, each a HEAD
    // and then a GET (a 200 to HEAD is confirmed by GET), each request taking the delay.
    const parallel = Math.min(concurrency, hosts * perHost);
    const least = Math.ceil(destinations / parallel) * 2 * delayMs;
    const rssFile = join(tmp, 'maxrss-check');
    // The destinations are on this machine: --allow-private lets linkctl request them.
    const env = { ...sb.env, LINKCTL_CONFIG_DIR: join(tmp, 'check-config'), BENCH_MAXRSS_FILE: rssFile, LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.0/8' };
    // For comparison only (no target): the same requests with bare undici, `concurrency` at a time, in one
    // process; on a loaded machine it shows how far the delay itself stretches.
    const bareChecks = join(tmp, 'bare-checks.mjs');
    writeFileSync(
      bareChecks,
      [
        `import { request, Agent } from ${JSON.stringify(join(ROOT, 'node_modules/undici/index.js'))};`,
        'const [port, n, hosts, parallel] = process.argv.slice(2).map(Number);',
        'const agent = new Agent();',
        'let next = 0;',
        'await Promise.all(Array.from({ length: parallel }, async () => {',
        '  for (let i = next++; i < n; i = next++) {',
        '    const url = `http://127.0.0.${(i % hosts) + 1}:${port}/d/${i}`;',
        "    for (const method of ['HEAD', 'GET']) await (await request(url, { method, dispatcher: agent })).body.dump();",
        '  }',
        '}));',
        'await agent.close();',
      ].join('\n'),
    );
    const bare = [];
    const took = [];
    const peaks = [];
    const problems = [];
    let seen;
    for (let i = 0; i <= CHECK_RUNS; i++) {
      const b = timed([bareChecks, String(port), String(destinations), String(hosts), String(parallel)], clean());
      await stats('POST');
      const r = timed([MAXRSS, 'check', '-o', 'ndjson'], env);
      const records = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
      seen = await stats();
      const wrong = records.filter((x) => x.status !== 'ok' || x.code !== 200 || x.flags.join() !== 'insecure').length; // http:// destinations answering 200
      if (records.length !== destinations || wrong || seen.heads !== destinations || seen.gets !== destinations) problems.push(`run ${i}: ${records.length} records, ${wrong} not answered 200, ${seen.heads} HEAD and ${seen.gets} GET requests at the destinations`);
      if (seen.maxInFlight > concurrency || seen.maxPerHost > perHost) problems.push(`run ${i}: ${seen.maxInFlight} requests at a time (limit ${concurrency}), ${seen.maxPerHost} to one host (limit ${perHost})`);
      if (i === 0) continue; // warm-up
      bare.push(b.ms);
      took.push(r.ms);
      peaks.push(Number(readFileSync(rssFile, 'utf8')) / 1024);
    }
    const max = Math.max(...peaks);
    report(
      `check of ${destinations.toLocaleString('en')} destinations on ${hosts} hosts answering after ${delayMs} ms  vs  the least time ${concurrency} at a time (${perHost} per host) allow`,
      [['least time the limits allow', took.map(() => least), 'ms'], ['linkctl check -o ndjson (whole run)', took, 'ms'], ['  peak RSS (MB)', peaks, 'MB'],
        [`  for comparison: bare undici, ${parallel} at a time`, bare, 'ms']],
      median(took) / least,
      1.2,
      [
        { ok: max < MEMORY_CAP_MB, text: `largest peak ${max.toFixed(1)} MB (target under ${MEMORY_CAP_MB} MB)` },
        { ok: problems.length === 0, text: problems.length ? problems.join('\n    ') : `every run: ${destinations} records, one HEAD and one GET a destination, at most ${seen.maxInFlight} at a time and ${seen.maxPerHost} per address` },
      ],
    );
  }
}
