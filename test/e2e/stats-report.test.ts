/**
 * `stats report --html` in a real browser: headless Chromium (Debian's `chromium`, installed by
 * .ci/run when it can) loads the page from a file, with the network off, and we look at what it
 * shows: the charts and the movers table in its DOM, and a screenshot that has the charts' line
 * colour in it. Skipped, saying why, without Chromium.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain, tempDir, useSandbox } from '../helpers.js';
import { LINE_COLOUR } from '../../src/history/report.js';

const browser = ['chromium', 'chromium-browser', 'google-chrome'].find((name) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0);

/** Runs headless Chromium on `url` with `flags`; resolves to its stdout. Network to anything but the file is refused. */
function chromium(dir: string, flags: string[], url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(browser!, [
      '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions', '--hide-scrollbars',
      `--user-data-dir=${join(dir, 'profile')}`, '--proxy-server=127.0.0.1:9', '--proxy-bypass-list=<-loopback>', ...flags, url,
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${browser} exited ${code}: ${err.slice(-2000)}`));
    });
  });
}

describe.skipIf(!browser)(`stats report in headless Chromium${browser ? '' : ' (skipped: no chromium on PATH; .ci/run installs Debian\'s chromium)'}`, () => {
  const fx = useSandbox();
  const dir = tempDir('linkctl-report-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the page renders its charts and movers: elements present, the line colour on screen', async () => {
    const db = join(dir, 'history.db');
    const run = (now: string, args: string[]) => runMain(['stats', ...args], { env: { ...fx.env, LINKCTL_DB: db, LINKCTL_NOW: now } });
    const visit = async (alias: string, n: number) => {
      for (let i = 0; i < n; i++) await fetch(`${fx.sandbox.url}/${alias}`, { redirect: 'manual', headers: { 'User-Agent': `report-test/${i}/${Math.random()}` } });
    };
    // ten days of snapshots, one day missed: growing clicks on docs, a burst on spring-sale
    for (let d = 1; d <= 10; d++) {
      if (d !== 6) expect((await run(`2025-06-${String(d).padStart(2, '0')}T06:00:00Z`, ['snapshot', '-q'])).code).toBe(0);
      await visit('docs', d);
      if (d === 8) await visit('spring-sale', 12);
    }
    const file = join(dir, 'report.html');
    const r = await run('2025-06-10T07:00:00Z', ['report', '--since', '9d', '--top', '2', '--html', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Wrote .*report\.html: 3 charts, 2 movers, 9 snapshots\.\n$/);

    const url = pathToFileURL(file).href;
    const dom = await chromium(dir, ['--dump-dom'], url);
    expect(dom.match(/<svg class="chart"/g)).toHaveLength(3);
    expect(dom.match(/<polyline class="line" points="[\d., ]+"/g)!.length).toBeGreaterThanOrEqual(3); // the gap breaks a line in two
    expect(dom.match(/<rect class="gap"/g)!.length).toBeGreaterThanOrEqual(3);
    expect(dom).toMatch(/<table id="movers">.*<td>docs<\/td>.*<td>spring-sale<\/td>/s);

    const shot = join(dir, 'report.png');
    await chromium(dir, [`--screenshot=${shot}`, '--window-size=900,1600'], url);
    const png = PNG.sync.read(readFileSync(shot));
    const [lr, lg, lb] = [1, 3, 5].map((i) => parseInt(LINE_COLOUR.slice(i, i + 2), 16));
    let line = 0;
    const colours = new Set<number>();
    for (let i = 0; i < png.data.length; i += 4) {
      const [r2, g2, b2] = [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
      colours.add((r2 << 16) | (g2 << 8) | b2);
      if (Math.abs(r2 - lr!) < 24 && Math.abs(g2 - lg!) < 24 && Math.abs(b2 - lb!) < 24) line++;
    }
    expect(colours.size).toBeGreaterThan(50); // not a blank page
    expect(line).toBeGreaterThan(1000); // three charts' lines and dots, in their colour
  }, 240_000);
});
