/**
 * `stats report` as the page people forward (issue 31), with the clock the test's own: two
 * weeks of daily snapshots (one day missed) of a server of the test's own, with QR scans and
 * `--details` breakdowns. The page's totals, comparison, top links and breakdown bars are checked
 * against what `stats top` and `stats show --breakdown` print; headless Chromium (Debian's
 * `chromium`, installed by .ci/run when it can) lays it out at 1280 and 390 px (no text under
 * 11 px, nothing wider than the window, nothing loaded) and screenshots it, and `--pdf` prints it
 * on A4 and Letter. Skipped, saying why, without Chromium.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, type RunResult } from '../helpers.js';
import { plainState, startHistoryServer, type HistoryServer } from '../history-server.js';
import { browser, chromium, layout, noBrowser } from '../browser.js';
import { BAR_COLOUR, ESTIMATE_COLOUR } from '../../src/history/report.js';

const dir = tempDir('linkctl-report-');
const NOW = '2025-06-15T07:00:00Z';
const at = (d: number) => `2025-06-${String(d).padStart(2, '0')}T06:00:00Z`;
let s: HistoryServer;
const db = join(dir, 'history.db');

const ok = (r: RunResult) => {
  expect(r.code, r.stderr).toBe(0);
  return r;
};
const cli = (args: string[], now = NOW, env: Record<string, string> = {}) => runCli(args, { env: { ...s.env, LINKCTL_DB: db, LINKCTL_NOW: now, ...env }, timeoutMs: 120_000 });

/** Two weeks, the 9th missed: docs grows by 2 more each day, spring falls, the menu's scans grow; the links' details with them. */
beforeAll(async () => {
  mkdirSync(join(dir, 'config'));
  s = await startHistoryServer(plainState(), join(dir, 'config'));
  let docs = 100;
  let spring = 500;
  let scans = 40;
  for (let d = 1; d <= 15; d++) {
    docs += 2 * d;
    spring += Math.max(1, 30 - 2 * d);
    scans += d % 3;
    s.state.links[0]!.clicks = String(docs);
    s.state.links[1]!.clicks = String(spring);
    s.state.qrs[0]!.scans = String(scans);
    const split = (n: number, shares: number[]) => shares.map((f) => Math.round(n * f));
    const [ca, de, us] = split(docs, [0.5, 0.3, 0.2]);
    s.state.stats[1] = { clicks: docs, topCountries: { Canada: ca, Germany: de, 'United States': us }, topReferrers: { 'https://news.example.invalid/': Math.round(docs * 0.6) }, topBrowsers: { Firefox: Math.round(docs * 0.7) }, topOs: { Linux: docs } };
    const [ca2, fr] = split(spring, [0.25, 0.75]);
    s.state.stats[2] = { clicks: spring, topCountries: { Canada: ca2, France: fr }, topReferrers: {}, topBrowsers: { Safari: spring }, topOs: { iOS: spring } };
    if (d !== 9) ok(await cli(['stats', 'snapshot', '-q', '--details', '2'], at(d)));
  }
}, 240_000);
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const attr = (html: string, pattern: RegExp) => [...html.matchAll(pattern)].map((m) => m.slice(1));

describe('stats report: the page people forward', () => {
  let file: string;
  beforeAll(async () => {
    file = join(dir, 'report.html');
    ok(await cli(['stats', 'report', '--since', '7d', '--html', file]));
  }, 120_000);

  it('its totals, comparison, top links and breakdown bars are the CLI\'s numbers', async () => {
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(/<script|\b(src|href)\s*=|url\(|@import/i); // nothing loaded from anywhere
    expect(html).toContain("default-src 'none'");
    const top = JSON.parse(ok(await cli(['stats', 'top', '--since', '7d', '--json'])).stdout);
    const qrs = JSON.parse(ok(await cli(['stats', 'top', '--since', '7d', '--qr', '--json'])).stdout);
    expect(top.comparison).toEqual({ from: '2025-06-02T00:00:00.000Z', to: '2025-06-09T00:00:00.000Z', periods: 7 });
    const cards = attr(html, /<div class="card" data-value="(\d*)"(?: data-previous="(\d+)")?><div class="label">([^<]+)</g);
    expect(cards).toEqual([
      [String(top.clicks), String(top.previous), 'Link clicks'],
      [String(qrs.clicks), String(qrs.previous), 'QR code scans'],
      [expect.stringMatching(/^\d+$/), undefined, 'New unique visitors*'],
      [expect.stringMatching(/^\d+$/), undefined, 'All-time link clicks'],
    ]);
    expect(html).toMatch(/vs [\d,]+ in the 7 days before/);
    const table = /<table id="top-links"[^]*?<\/table>/.exec(html)![0];
    expect(attr(table, /<tr data-clicks="(\d+)" data-previous="(\d*)"><td class="n">\d+<\/td><th scope="row"><bdi class="name">([^<]+)</g)).toEqual(
      top.links.map((l: { clicks: number; previous: number; alias: string }) => [String(l.clicks), String(l.previous), l.alias]),
    );
    // the breakdown bars: each country's clicks in the window and in the 7 days before, summed over the links as `show --breakdown` gives them
    const breakdown = async (since: string, until: string) => {
      const r = JSON.parse(ok(await cli(['stats', 'show', '--since', since, '--until', until, '--link', 'docs', '--link', 'spring', '--breakdown', 'countries', '--json'])).stdout);
      const sums = new Map<string, number>();
      for (const p of r.points as Array<{ name: string; clicks: number | null; period: string }>) {
        if (p.clicks !== null && p.period >= since.slice(0, 10) && p.period < until.slice(0, 10)) sums.set(p.name, (sums.get(p.name) ?? 0) + p.clicks);
      }
      return sums;
    };
    const now = await breakdown('2025-06-09', '2025-06-16T00:00Z');
    const before = await breakdown('2025-06-02', '2025-06-09T00:00Z');
    const section = /<section class="breakdown" id="breakdown-countries">[^]*?<\/section>/.exec(html)![0];
    const bars = attr(section, /<tr data-name="([^"]+)" data-clicks="(\d+)" data-previous="(\d*)">/g);
    expect(bars).toEqual([...now.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([name, clicks]) => [name, String(clicks), String(before.get(name))]));
    expect(bars.length).toBe(4); // Canada, France, Germany, United States
    for (const id of ['breakdown-referrers', 'breakdown-browsers', 'breakdown-os']) expect(html).toContain(`id="${id}"`);
    // the missed day: its bars lighter, labelled as estimates, and in the chart's table
    expect(html).toMatch(/class="bar estimated"/);
    expect(html).toMatch(/<th scope="row">9 Jun 2025<\/th><td class="n">\d+<\/td><td>estimate: spread over a missed snapshot<\/td>/);
    // readable dates and round ticks
    expect(html).toMatch(/9 June – 15 June 2025 \(UTC, per day\)/);
    const ticks = attr(html, /<div class="y">([^]*?)<\/div>/g).map(([y]) => attr(y!, />([\d,]+)</g).map(([t]) => Number(t!.replace(/,/g, ''))));
    for (const list of ticks) {
      expect(list[0]).toBe(0);
      const step = list[1]!;
      expect(String(step)).toMatch(/^(1|2|25|5)0*$/); // 1, 2, 2.5 or 5 times a power of ten, whole
      list.forEach((t, i) => expect(t).toBe(i * step));
    }
  });

  it.skipIf(!browser)(`in Chromium at 1280 and 390 px: no text under 11 px, nothing wider than the window, nothing loaded; screenshots show the bars${browser ? '' : ` (skipped: ${noBrowser})`}`, async () => {
    for (const width of [1280, 390]) {
      const measured = await layout(file, width, 'h2');
      expect(measured.small, `${width} px`).toEqual([]);
      expect(measured.smallest).toBeGreaterThanOrEqual(11);
      expect(measured.scrollWidth, `${width} px`).toBeLessThanOrEqual(measured.clientWidth);
      expect(measured.resources).toEqual([]);
      expect(measured.texts).toEqual(['The window at a glance', 'Over time', 'Most clicked links', 'Most scanned QR codes', 'By campaign', 'Where the clicks came from', 'Reading this page']); // no channels on this server: no section by channel
      const shot = join(dir, `report-${width}.png`);
      await chromium(dir, [`--screenshot=${shot}`, `--window-size=${width},2400`], pathToFileURL(file).href);
      const png = PNG.sync.read(readFileSync(shot));
      const count = (hex: string) => {
        const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
        let n = 0;
        for (let i = 0; i < png.data.length; i += 4) if (Math.abs(png.data[i]! - r!) < 12 && Math.abs(png.data[i + 1]! - g!) < 12 && Math.abs(png.data[i + 2]! - b!) < 12) n++;
        return n;
      };
      expect(count(BAR_COLOUR), `${width} px: bars`).toBeGreaterThan(2000);
      expect(count(ESTIMATE_COLOUR), `${width} px: the estimated days`).toBeGreaterThan(100);
    }
  }, 240_000);

  it.skipIf(!browser)(`--pdf prints it through headless Chromium, on A4 or Letter${browser ? '' : ` (skipped: ${noBrowser})`}`, async () => {
    for (const [paper, size] of [['a4', [595, 842]], ['letter', [612, 792]]] as const) {
      const pdf = join(dir, `report-${paper}.pdf`);
      const r = ok(await cli(['stats', 'report', '--since', '7d', '--pdf', pdf, '--paper', paper]));
      expect(r.stdout).toMatch(new RegExp(`^Wrote ${pdf.replace(/[.]/g, '\\.')}: \\d+ charts, 2 ranked links, 14 snapshots\\.\\n$`));
      const bytes = readFileSync(pdf);
      expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      const boxes = [...bytes.toString('latin1').matchAll(/\/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]/g)].map((m) => [Math.round(Number(m[1])), Math.round(Number(m[2]))]);
      expect(boxes.length).toBeGreaterThan(1); // pages
      for (const box of boxes) expect(box).toEqual(size);
      if (spawnSync('sh', ['-c', 'command -v pdftotext']).status === 0) {
        const text = spawnSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' }).stdout;
        expect(text).toContain('The window at a glance');
        expect(text).toContain('Where the clicks came from');
      }
    }
    expect(existsSync(join(dir, 'report-a4.html'))).toBe(false); // printed from a private copy, removed
  }, 240_000);

  it('--pdf without Chromium: exit 7 saying so, and the page written beside it', async () => {
    const pdf = join(dir, 'nochrome.pdf');
    const r = await cli(['stats', 'report', '--since', '7d', '--pdf', pdf], NOW, { LINKCTL_BROWSER: join(dir, 'no-such-chromium') });
    expect(r.code).toBe(7);
    expect(r.stderr).toBe(`linkctl: no Chromium to print the PDF with (looked for LINKCTL_BROWSER=${join(dir, 'no-such-chromium')}); the page is written: ${join(dir, 'nochrome.html')}\nhint: open it in a browser and print it to PDF, or install Chromium (Debian: apt-get install chromium) or set LINKCTL_BROWSER to one\n`);
    expect(readFileSync(join(dir, 'nochrome.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/);
    expect(existsSync(pdf)).toBe(false);
  });
});
