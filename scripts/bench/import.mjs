/**
 * The import row of `npm run bench` (`--only import`), called by scripts/bench.mjs with its
 * helpers and options: `linkctl import` of a large export, its time and memory.
 */
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export async function benchImport({ BULK_RUNS, IMPORT_BIG, IMPORT_SMALL, MAXRSS, MEMORY_CAP_MB, ONLY, alternate, clean, median, report, sandbox, sandboxJs, timed, tmp }) {
  if (ONLY.includes('import')) {
    // A Bitly export (its documented link fields), every row a link with a title, tags and a custom back-half.
    const bitlyCsv = (rows) => {
      const file = join(tmp, `import-bitly-${rows}.csv`);
      const lines = ['id,link,long_url,title,created_at,tags,custom_bitlinks,archived'];
      for (let i = 0; i < rows; i++) lines.push(`bit.ly/h${i},https://bit.ly/h${i},https://example.com/landing/${i}?utm_source=bitly,"Landing page ${i}, spring",2024-03-01T10:00:00+0000,"spring,tag-${i % 50}",https://bit.ly/promo-${i},false`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      return file;
    };
    const small = bitlyCsv(IMPORT_SMALL);
    const big = bitlyCsv(IMPORT_BIG);
    const rssFile = join(tmp, 'maxrss-import');
    const out = join(tmp, 'import-out.yaml');
    // Import compares the export with the target account (one read of its domains and links): a sandbox of the seed here.
    const sb = await sandbox(sandboxJs, ['--rate-limit', 'off']);
    const env = clean({ LINKCTL_BASE_URL: sb.url, LINKCTL_API_KEY: sb.key, LINKCTL_CONFIG_DIR: join(tmp, 'import-config'), BENCH_MAXRSS_FILE: rssFile });
    const times = { [IMPORT_SMALL]: [], [IMPORT_BIG]: [] };
    const peak = (file, rows) => () => {
      // The file streams to stdout, as `linkctl import bitly FILE > account.yaml` does.
      const fd = openSync(out, 'w');
      try {
        times[rows].push(timed([MAXRSS, 'import', 'bitly', file, '--tags-to', 'campaign'], env, { stdout: fd }).ms);
      } finally {
        closeSync(fd);
      }
      const text = readFileSync(out, 'utf8');
      const count = text.split('\n  - alias: ').length - 1;
      if (count !== rows) throw new Error(`import wrote ${count} links for ${rows} rows`);
      return Number(readFileSync(rssFile, 'utf8')) / 1024;
    };
    const [a, b] = alternate(peak(small, IMPORT_SMALL), peak(big, IMPORT_BIG), BULK_RUNS);
    const max = Math.max(...b);
    report(
      `import bitly (to stdout): peak RSS over ${IMPORT_BIG.toLocaleString('en')} vs ${IMPORT_SMALL.toLocaleString('en')} rows`,
      [[`${IMPORT_SMALL.toLocaleString('en')} rows (MB)`, a, 'MB'], [`${IMPORT_BIG.toLocaleString('en')} rows (MB)`, b, 'MB']],
      median(b) / median(a),
      // Looser than the bulk rows' 1.3: to find collisions the import keeps every alias of the
      // input (about 10 MB for 100,000); the file itself is streamed, and the cap is the target.
      1.8,
      [
        { ok: max < MEMORY_CAP_MB, text: `largest peak over ${IMPORT_BIG.toLocaleString('en')} rows ${max.toFixed(1)} MB (target under ${MEMORY_CAP_MB} MB)` },
        { text: `time: ${IMPORT_SMALL.toLocaleString('en')} rows median ${median(times[IMPORT_SMALL]).toFixed(0)} ms, ${IMPORT_BIG.toLocaleString('en')} rows median ${median(times[IMPORT_BIG]).toFixed(0)} ms` },
      ],
    );
  }
}
