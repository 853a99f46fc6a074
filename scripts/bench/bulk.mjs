/**
 * The bulk rows of `npm run bench` (`--only bulk-rate,bulk-speed,bulk-update,bulk-memory`, and
 * the several-requests-in-flight rows `pipeline-add,pipeline-migration,pipeline-limited`), called
 * by scripts/bench.mjs with its helpers and options: `link add --from` and `link update --from`
 * against sandboxes with and without a rate limit or latency, a migration by export and apply,
 * and the memory of a dry run over many rows. Each row runs only when `--only` names it.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export async function benchBulk({ BIN, BULK_MEMORY_BIG, BULK_MEMORY_SMALL, BULK_RATE, BULK_RUNS, BULK_SPEED_ROWS, LIMITED, MAXRSS, MEMORY_CAP_MB, NODE, ONLY, PIPELINE, PIPELINE_RUNS, SEEDED_LINKS, alternate, argv, clean, control, freshConfig, leastTime, line, median, pacedRow, report, sandbox, sandboxJs, timed, tmp }) {
  // ---------------------------------------------------------------- bulk (--from)
  /** A CSV of `rows` distinct long URLs, written once per size. */
  const bulkCsv = (rows, tag) => {
    const file = join(tmp, `bulk-${tag}-${rows}.csv`);
    const lines = ['url,description'];
    for (let i = 0; i < rows; i++) lines.push(`https://example.com/${tag}/${i},row ${i}`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };

  /**
   * A bulk run against the same requests sent bare, one after the other, in one Node process: each
   * from a fresh account, a warm-up first, then BULK_RUNS alternating runs; each must print a line a row.
   */
  async function bulkVersusBare({ title, sb, rows, bare, linkctl, what, floor, target }) {
    const xs = [];
    const ys = [];
    const zs = [];
    const check = (out, who) => {
      const n = out.split('\n').filter(Boolean).length;
      if (n !== rows) throw new Error(`${who} printed ${n} lines for ${rows} rows`);
    };
    for (let i = 0; i <= BULK_RUNS; i++) {
      await sb.reset();
      const a = timed(bare, sb.env);
      check(a.stdout, `bare fetch ${what}`);
      await sb.reset();
      const b = timed(linkctl, { ...sb.env, LINKCTL_CONFIG_DIR: freshConfig() });
      check(b.stdout, `linkctl ${linkctl.slice(1, 3).join(' ')} --from`);
      // What the same requests cost bare, as linkctl sends them: the least linkctl could take.
      let c;
      if (floor) {
        await sb.reset();
        c = timed(floor.argv, sb.env);
        check(c.stdout, floor.label);
      }
      if (i === 0) continue; // warm-up
      xs.push(a.ms);
      ys.push(b.ms);
      if (c) zs.push(c.ms);
    }
    const sides = [[`bare fetch ${what}`, xs, 'ms'], [`linkctl ${linkctl.slice(1, 3).join(' ')} --from`, ys, 'ms']];
    if (floor) sides.push([floor.label, zs, 'ms']);
    // With a floor (the same requests linkctl sends, sent bare), the ratio is to the floor: what linkctl adds to its requests.
    const extra = floor ? [{ text: `${floor.label}: ${(median(zs) / median(xs)).toFixed(3)} × the bare ${what}; linkctl: ${(median(ys) / median(xs)).toFixed(3)} × the bare ${what}` }] : [];
    report(title, sides, median(ys) / median(floor ? zs : xs), target, extra);
  }

  if (ONLY.includes('bulk-rate')) {
    const { limit, windowSeconds, rows } = BULK_RATE;
    const sb = await sandbox(sandboxJs, ['--rate-limit', `${limit}/${windowSeconds}`]);
    await pacedRow({
      title: `link add --from (${rows} rows)`,
      sb,
      argv: ['link', 'add', '--from', bulkCsv(rows, 'rate'), '-o', 'ndjson'],
      env: () => ({ ...sb.env, LINKCTL_CONFIG_DIR: freshConfig() }), // a fresh journal each run
      limit,
      windowSeconds,
      // A POST a row, and the one read of the account's links that finds what exists already.
      requests: rows + 1,
      expectedLines: rows,
      counts: (line) => line.includes('"created"'),
      what: 'rows created',
      target: 1.05,
    });
  }

  if (ONLY.includes('bulk-speed')) {
    const rows = BULK_SPEED_ROWS;
    const sb = await sandbox(sandboxJs, ['--rate-limit', 'off']);
    const csv = bulkCsv(rows, 'speed');
    // The baseline: the same POSTs, one after the other, with bare fetch in one Node process.
    const bare = join(tmp, 'bare-posts.mjs');
    writeFileSync(
      bare,
      [
        "import { readFileSync } from 'node:fs';",
        "const [base, file] = process.argv.slice(2);",
        "const rows = readFileSync(file, 'utf8').trim().split('\\n').slice(1).map((l) => l.split(','));",
        'for (const [url, description] of rows) {',
        "  const r = await fetch(`${base}/api/url/add`, { method: 'POST', headers: { Authorization: `Bearer ${process.env.LINKCTL_API_KEY}`, 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ url, description }) });",
        "  const body = await r.json();",
        "  if (body.error) throw new Error(JSON.stringify(body));",
        "  process.stdout.write(`${body.id}\\n`);",
        '}',
      ].join('\n'),
    );
    await bulkVersusBare({
      title: `link add --from --concurrency 1 (${rows.toLocaleString('en')} rows, no limit, one at a time)  vs  ${rows.toLocaleString('en')} bare fetch POSTs in one process`,
      sb, rows, what: 'POSTs',
      bare: [bare, sb.url, csv],
      linkctl: [BIN, 'link', 'add', '--from', csv, '-o', 'ndjson', '--concurrency', '1'],
      target: 1.5,
    });
  }

  if (ONLY.includes('bulk-update')) {
    // link update --from: each row is a read of the link and its update (the safe update); the
    // baseline is the updates alone, bare PUTs one after the other in one Node process.
    const rows = 1000;
    const sb = await sandbox(sandboxJs, ['--seed-links', String(rows), '--rate-limit', 'off']);
    const ids = join(tmp, 'update-ids.csv');
    writeFileSync(ids, `id\n${Array.from({ length: rows }, (_, i) => SEEDED_LINKS + 1 + i).join('\n')}\n`);
    const bare = join(tmp, 'bare-puts.mjs');
    writeFileSync(
      bare,
      [
        "import { readFileSync } from 'node:fs';",
        'const [base, file] = process.argv.slice(2);',
        "const ids = readFileSync(file, 'utf8').trim().split('\\n').slice(1);",
        'for (const id of ids) {',
        "  const r = await fetch(`${base}/api/url/${id}/update`, { method: 'PUT', headers: { Authorization: `Bearer ${process.env.LINKCTL_API_KEY}`, 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ metadescription: 'bulk' }) });",
        '  const body = await r.json();',
        '  if (body.error) throw new Error(JSON.stringify(body));',
        '  process.stdout.write(`${id}\\n`);',
        '}',
      ].join('\n'),
    );
    // linkctl's own requests, bare: a read of the link and its update a row, the next row's read
    // sent while this row's update is (as linkctl's prefetch does).
    const floor = join(tmp, 'bare-read-and-put.mjs');
    writeFileSync(
      floor,
      [
        "import { readFileSync } from 'node:fs';",
        'const [base, file] = process.argv.slice(2);',
        "const ids = readFileSync(file, 'utf8').trim().split('\\n').slice(1);",
        "const headers = { Authorization: `Bearer ${process.env.LINKCTL_API_KEY}`, Accept: 'application/json' };",
        'const read = (id) => fetch(`${base}/api/url/${id}`, { headers }).then((r) => r.json());',
        'let next = read(ids[0]);',
        'for (let i = 0; i < ids.length; i++) {',
        '  const link = await next;',
        '  if (link.error) throw new Error(JSON.stringify(link));',
        '  if (i + 1 < ids.length) next = read(ids[i + 1]);',
        "  const r = await fetch(`${base}/api/url/${ids[i]}/update`, { method: 'PUT', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ url: link.details.longurl, metadescription: 'bulk' }) });",
        '  const body = await r.json();',
        '  if (body.error) throw new Error(JSON.stringify(body));',
        '  process.stdout.write(`${ids[i]}\\n`);',
        '}',
      ].join('\n'),
    );
    await bulkVersusBare({
      title: `link update --from --concurrency 1 (${rows.toLocaleString('en')} rows, no limit, one at a time)  vs  the same reads and PUTs sent bare (read + PUT a row, overlapped)`,
      sb, rows, what: 'PUTs',
      floor: { label: 'bare fetch read + PUT a row, overlapped', argv: [floor, sb.url, ids] },
      bare: [bare, sb.url, ids],
      // The meta description: the note (--description) is refused by an update (real servers ignore it there).
      linkctl: [BIN, 'link', 'update', '--from', ids, '--meta-description', 'bulk', '--yes', '-o', 'ndjson', '--concurrency', '1'],
      target: 1.5,
    });
  }

  // ---------------------------------------------------------------- several requests in flight (issue 33)
  /** Runs a CLI job to completion without blocking this process (the sandboxes answer through it); resolves to its wall time and output. */
  function job(argv, env, input) {
    return new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const child = spawn(NODE, argv, { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
      child.on('error', reject);
      child.on('close', (code) => {
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (code !== 0) reject(new Error(`node ${argv.join(' ')} exited ${code}\n${err}`));
        else resolve({ ms, stdout: out, stderr: err });
      });
      child.stdin.end(input ?? '');
    });
  }
  const inFlight = (sb) => control(`${sb.url}/__sandbox/requests/in-flight`, { headers: { Authorization: `Bearer ${sb.key}` } });
  /** The time `requests` requests take at `latencyMs` each with `n` in flight: what the pipelined rows are held to. */
  const ideal = (requests) => (requests * PIPELINE.latencyMs) / PIPELINE.inFlight;

  if (ONLY.includes('pipeline-add')) {
    const rows = PIPELINE.addRows;
    const sb = await sandbox(sandboxJs, ['--rate-limit', 'off', '--latency', String(PIPELINE.latencyMs)]);
    const csv = bulkCsv(rows, 'pipeline');
    // The yardstick (issue 52): the same POSTs with bare fetch, 8 in flight, in a process of its own (its start-up counts, as linkctl's does).
    const bare8 = join(tmp, 'bare-posts-8.mjs');
    writeFileSync(
      bare8,
      [
        "import { readFileSync } from 'node:fs';",
        'const [base, file, n] = process.argv.slice(2);',
        "const rows = readFileSync(file, 'utf8').trim().split('\\n').slice(1).map((l) => l.split(','));",
        'let next = 0;',
        'await Promise.all(Array.from({ length: Number(n) }, async () => {',
        '  for (let i = next++; i < rows.length; i = next++) {',
        "    const [url, description] = rows[i];",
        "    const r = await fetch(`${base}/api/url/add`, { method: 'POST', headers: { Authorization: `Bearer ${process.env.LINKCTL_API_KEY}`, 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ url, description }) });",
        '    const body = await r.json();',
        '    if (body.error) throw new Error(JSON.stringify(body));',
        "    process.stdout.write(`${body.id}\\n`);",
        '  }',
        '}));',
      ].join('\n'),
    );
    const took = [];
    const bare = [];
    const most = [];
    const problems = [];
    for (let i = 0; i <= PIPELINE_RUNS; i++) {
      await sb.reset();
      const b = await job([bare8, sb.url, csv, String(PIPELINE.inFlight)], sb.env);
      if (b.stdout.split('\n').filter(Boolean).length !== rows) problems.push(`run ${i}: the bare POSTs did not all succeed`);
      await sb.reset();
      const r = await job([BIN, 'link', 'add', '--from', csv, '-o', 'ndjson'], { ...sb.env, LINKCTL_CONFIG_DIR: freshConfig() });
      const created = r.stdout.split('\n').filter((l) => l.includes('"created"')).length;
      const { api } = await sb.requestCount();
      if (created !== rows || api !== rows + 1) problems.push(`run ${i}: ${created} rows created, ${api} API requests (expected ${rows} and ${rows + 1})`);
      if (i === 0) continue; // warm-up
      took.push(r.ms);
      bare.push(b.ms);
      most.push((await inFlight(sb)).max);
    }
    const least = ideal(rows);
    const ratios = took.map((t, i) => t / bare[i]);
    report(
      `link add --from (${rows.toLocaleString('en')} rows, default settings, sandbox answering after ${PIPELINE.latencyMs} ms, no limit)  vs  a bare fetch loop, ${PIPELINE.inFlight} in flight`,
      [['linkctl link add --from (whole run)', took, 'ms'], [`bare fetch, ${PIPELINE.inFlight} in flight (whole run)`, bare, 'ms'], ['  most in flight at the sandbox', most, 'x'], [`  the time ${PIPELINE.inFlight} in flight take: ${rows} × ${PIPELINE.latencyMs} ms / ${PIPELINE.inFlight}`, took.map(() => least), 'ms']],
      median(ratios),
      PIPELINE.addTarget,
      [
        { text: `ratio per run: ${ratios.map((r) => r.toFixed(3)).join(', ')} (the row's ratio is their median)` },
        { ok: problems.length === 0, text: problems.length ? problems.join('\n    ') : `every run: ${rows} rows created with ${rows + 1} requests (a POST a row and one read of the links)` },
      ],
    );
  }

  if (ONLY.includes('pipeline-migration')) {
    const links = PIPELINE.migrationLinks;
    const source = await sandbox(sandboxJs, ['--seed-links', String(links - SEEDED_LINKS), '--seed-campaigns', '20', '--seed-channels', '20', '--rate-limit', 'off', '--latency', String(PIPELINE.latencyMs)]);
    const target = await sandbox(sandboxJs, ['--empty', '--rate-limit', 'off', '--latency', String(PIPELINE.latencyMs)]);
    const file = join(tmp, 'migration.yaml');
    const took = [];
    const counted = [];
    const most = [];
    const problems = [];
    for (let i = 0; i <= PIPELINE_RUNS; i++) {
      await source.reset();
      await target.reset();
      const e = await job([BIN, 'export', '--file', file, '--force'], { ...source.env, LINKCTL_CONFIG_DIR: freshConfig() });
      const a = await job([BIN, 'apply', '-f', file, '--yes'], { ...target.env, LINKCTL_CONFIG_DIR: freshConfig() });
      const requests = (await source.requestCount()).api + (await target.requestCount()).api;
      const added = Number(/Applied: (\d+) added/.exec(a.stdout)?.[1]);
      const exported = (readFileSync(file, 'utf8').match(/^ {2}- alias: /gm) ?? []).length;
      if (exported !== links || !(added >= links)) problems.push(`run ${i}: ${exported} links exported, ${added} records added`);
      if (i === 0) continue; // warm-up
      took.push(e.ms + a.ms);
      counted.push(requests);
      most.push((await inFlight(target)).max);
    }
    const least = ideal(median(counted));
    report(
      `migration of ${links.toLocaleString('en')} links (export, then apply to an empty account; both sandboxes answering after ${PIPELINE.latencyMs} ms)  vs  every request of both, ${PIPELINE.inFlight} in flight`,
      [['the time 8 in flight take', took.map(() => least), 'ms'], ['linkctl export + apply (whole runs)', took, 'ms'], ['  requests of both', counted, 'x'], ['  most in flight at the target', most, 'x']],
      median(took) / least,
      PIPELINE.migrationTarget,
      [{ ok: problems.length === 0, text: problems.length ? problems.join('\n    ') : `every run: ${links.toLocaleString('en')} links exported and added` }],
    );
  }

  if (ONLY.includes('pipeline-limited')) {
    // The same jobs where the server shows its limit (30 a minute): one at a time, as paced as before.
    const { limit, windowSeconds, rows, links, runs } = LIMITED;
    console.log(`\n(rate-limited rows at ${limit}/${windowSeconds}: ${rows} rows and a migration of ${links} links, ${runs} run${runs === 1 ? '' : 's'} each; the full sizes would take an hour)`);
    const sb = await sandbox(sandboxJs, ['--rate-limit', `${limit}/${windowSeconds}`, '--latency', String(PIPELINE.latencyMs)]);
    const limitedRow = async (title, argv, env, expected, target, input) => {
      const ratios = [];
      const spans = [];
      const bounds = [];
      const problems = [];
      for (let i = 0; i < runs; i++) {
        await target.reset();
        const r = await job(argv, env(), input);
        const api = (await target.requests()).filter((q) => q.path.startsWith('/api/'));
        const most = (await inFlight(target)).max;
        if (!expected(r.stdout)) problems.push(`run ${i + 1}: not every record was written\n${r.stderr.slice(0, 500)}`);
        if (most !== 1) problems.push(`run ${i + 1}: ${most} requests in flight at once`);
        const windows = Math.ceil(api.length / limit);
        const bound = leastTime(api[0].at, windows, windowSeconds);
        spans.push(api.at(-1).at - api[0].at);
        bounds.push(bound);
        ratios.push((api.at(-1).at - api[0].at) / bound);
      }
      report(title, [['least time allowed (first to last request)', bounds, 'ms'], ['linkctl (first to last request)', spans, 'ms'], ['ratio per run', ratios, 'x']], median(ratios), LIMITED.target,
        [{ ok: problems.length === 0, text: problems.length ? problems.join('\n    ') : 'every run: every record written, one request in flight at a time' }]);
    };
    await limitedRow(
      `link add --from (${rows} rows, --concurrency auto), sandbox limited to ${limit} per ${windowSeconds} s  vs  the least time the limit allows`,
      [BIN, 'link', 'add', '--from', bulkCsv(rows, 'limited'), '-o', 'ndjson'],
      () => ({ ...sb.env, LINKCTL_CONFIG_DIR: freshConfig() }),
      (out) => out.split('\n').filter((l) => l.includes('"created"')).length === rows,
      sb,
    );
    // The migration's apply (the export of a small account is a few reads, within one window of its own server).
    const source = await sandbox(sandboxJs, ['--seed-links', String(links - SEEDED_LINKS), '--seed-campaigns', '2', '--seed-channels', '2', '--rate-limit', 'off']);
    const exported = (await job([BIN, 'export'], { ...source.env, LINKCTL_CONFIG_DIR: freshConfig() })).stdout;
    const target = await sandbox(sandboxJs, ['--empty', '--rate-limit', `${limit}/${windowSeconds}`, '--latency', String(PIPELINE.latencyMs)]);
    await limitedRow(
      `migration of ${links} links: apply to an empty account (--concurrency auto), sandbox limited to ${limit} per ${windowSeconds} s  vs  the least time the limit allows`,
      [BIN, 'apply', '-f', '-', '--yes'],
      () => ({ ...target.env, LINKCTL_CONFIG_DIR: freshConfig() }),
      (out) => Number(/Applied: (\d+) added/.exec(out)?.[1]) >= links,
      target,
      exported,
    );
  }

  if (ONLY.includes('bulk-memory')) {
    const small = bulkCsv(BULK_MEMORY_SMALL, 'memory');
    const big = bulkCsv(BULK_MEMORY_BIG, 'memory');
    const rssFile = join(tmp, 'maxrss-bulk');
    // --dry-run needs no server, but a base URL and key so that nothing asks for a login.
    const env = clean({ LINKCTL_BASE_URL: 'http://127.0.0.1:9', LINKCTL_API_KEY: 'bench-key', LINKCTL_CONFIG_DIR: join(tmp, 'bulk-dry'), BENCH_MAXRSS_FILE: rssFile });
    const peak = (file, rows) => () => {
      const out = timed([MAXRSS, 'link', 'add', '--from', file, '--dry-run', '--json'], env).stdout;
      if (JSON.parse(out).rows !== rows) throw new Error(`link add --from --dry-run counted ${out.trim()} for ${rows} rows`);
      return Number(readFileSync(rssFile, 'utf8')) / 1024;
    };
    const [a, b] = alternate(peak(small, BULK_MEMORY_SMALL), peak(big, BULK_MEMORY_BIG), BULK_RUNS);
    const max = Math.max(...b);
    report(
      `link add --from --dry-run: peak RSS over ${BULK_MEMORY_BIG.toLocaleString('en')} vs ${BULK_MEMORY_SMALL.toLocaleString('en')} rows`,
      [[`${BULK_MEMORY_SMALL.toLocaleString('en')} rows (MB)`, a, 'MB'], [`${BULK_MEMORY_BIG.toLocaleString('en')} rows (MB)`, b, 'MB']],
      median(b) / median(a),
      1.3,
      [{ ok: max < MEMORY_CAP_MB, text: `largest peak over ${BULK_MEMORY_BIG.toLocaleString('en')} rows ${max.toFixed(1)} MB (target under ${MEMORY_CAP_MB} MB)` }],
    );
  }
}
