/**
 * `stats report --html`: one self-contained page. Charts are SVG drawn here, styles inline;
 * no script at all and nothing fetched from elsewhere, so the page opens the same offline, in a
 * mail attachment or from a CI artefact. Every name from the server is escaped.
 */
import type { Series } from './series.js';
import type { Window } from './series.js';
import { iso } from './time.js';

export interface ReportInput {
  title: string;
  account: string;
  window: Window;
  series: Series[];
  movers: Array<{ direction: string; rank: number; alias: string | null; label: string | null; id: number | null; clicks: number; previous: number | null; change: number | null; changePercent: number | null; reset: boolean }>;
  moversNote: string;
  snapshots: number;
  newest: string | null;
  generated: string;
  uniqueNote: string;
}

const escape = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Names longer than this are cut on the page, whole in their tooltip (up to NAME_TITLE). */
export const NAME_MAX = 80;
const NAME_TITLE = 2_000;

/**
 * A name from the server on the page: in its own bidi isolate (`<bdi>`), so that right-to-left
 * text or a stray override (U+202E) cannot reorder the page's own words around it; C0 and C1
 * controls shown as the visible pictures of their codes; cut to NAME_MAX characters with the
 * whole name (up to NAME_TITLE) as its tooltip, so a 200,000-character alias cannot widen the page.
 */
export function nameHtml(raw: unknown, max = NAME_MAX): string {
  const text = String(raw ?? '').replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => (c.charCodeAt(0) < 0x20 ? String.fromCharCode(0x2400 + c.charCodeAt(0)) : '\ufffd'));
  const chars = [...text];
  if (chars.length <= max) return `<bdi class="name">${escape(text)}</bdi>`;
  const whole = chars.length > NAME_TITLE ? `${chars.slice(0, NAME_TITLE).join('')}…` : text;
  return `<bdi class="name" title="${escape(whole)}">${escape(chars.slice(0, max - 1).join(''))}…</bdi>`;
}
const number = (n: number | null) => (n === null ? '–' : n.toLocaleString('en'));

/** The line colour: the Chromium test looks for it in the screenshot. */
export const LINE_COLOUR = '#1f6feb';
const RESET_COLOUR = '#d1242f';

const W = 720;
const H = 220;
const PAD = { left: 56, right: 16, top: 16, bottom: 36 };

/** A line chart of a series: gaps break the line (no point is drawn for them), resets are red dots. */
export function chart(series: Series): string {
  const points = series.points;
  const max = Math.max(1, ...points.map((p) => p.clicks ?? 0));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (points.length <= 1 ? plotW / 2 : (i / (points.length - 1)) * plotW);
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const segments: string[][] = [];
  let current: string[] = [];
  points.forEach((p, i) => {
    if (p.clicks === null) {
      if (current.length) segments.push(current);
      current = [];
      return;
    }
    current.push(`${x(i).toFixed(1)},${y(p.clicks).toFixed(1)}`);
  });
  if (current.length) segments.push(current);
  const lines = segments.map((s) => `<polyline class="line" points="${s.join(' ')}" fill="none" stroke="${LINE_COLOUR}" stroke-width="2.5" stroke-linejoin="round"/>`);
  const dots = points.map((p, i) => (p.clicks === null ? '' : `<circle class="${p.reset ? 'reset' : 'dot'}" cx="${x(i).toFixed(1)}" cy="${y(p.clicks).toFixed(1)}" r="${p.reset ? 4.5 : 3}" fill="${p.reset ? RESET_COLOUR : LINE_COLOUR}"><title>${escape(p.period)}: ${number(p.clicks)}${p.reset ? ' (a total went down: counted from zero)' : ''}</title></circle>`));
  const gaps = points.map((p, i) => (p.gap ? `<rect class="gap" x="${(x(i) - 3).toFixed(1)}" y="${PAD.top}" width="6" height="${plotH}" fill="#e5e7eb"><title>${escape(p.period)}: no snapshot (gap)</title></rect>` : ''));
  const first = points[0]?.period ?? '';
  const last = points[points.length - 1]?.period ?? '';
  return `<svg class="chart" role="img" aria-label="${escape(series.spec.label)}: clicks per period" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">
<rect x="${PAD.left}" y="${PAD.top}" width="${plotW}" height="${plotH}" fill="#ffffff" stroke="#d0d7de"/>
${gaps.join('')}
<line x1="${PAD.left}" y1="${y(max / 2).toFixed(1)}" x2="${W - PAD.right}" y2="${y(max / 2).toFixed(1)}" stroke="#eaeef2"/>
<text x="${PAD.left - 6}" y="${PAD.top + 4}" text-anchor="end" font-size="11" fill="#57606a">${number(max)}</text>
<text x="${PAD.left - 6}" y="${PAD.top + plotH}" text-anchor="end" font-size="11" fill="#57606a">0</text>
<text x="${PAD.left}" y="${H - 12}" font-size="11" fill="#57606a">${escape(first)}</text>
<text x="${W - PAD.right}" y="${H - 12}" text-anchor="end" font-size="11" fill="#57606a">${escape(last)}</text>
${lines.join('\n')}
${dots.join('')}
</svg>`;
}

export function renderReport(input: ReportInput): string {
  const { window } = input;
  const cards = input.series.map((s) => `<div class="card"><div class="name">${nameHtml(s.spec.label)}</div><div class="total">${number(s.clicks)}</div><div class="sub">clicks${s.uniqueClicks === null ? '' : `, ${number(s.uniqueClicks)} new uniques*`}</div></div>`);
  const charts = input.series.map((s) => {
    const notes = [s.gaps ? `${s.gaps} period${s.gaps === 1 ? '' : 's'} without a snapshot (grey: gaps, not zeros)` : '', s.resets ? `${s.resets} reset${s.resets === 1 ? '' : 's'} (red: a total went down, counted from zero)` : ''].filter(Boolean);
    return `<figure class="series"><figcaption><strong>${nameHtml(s.spec.label)}</strong> <span class="muted">${escape(s.spec.key)} · ${number(s.clicks)} clicks per ${escape(window.by)}</span>${notes.length ? `<br><span class="muted">${escape(notes.join('; '))}</span>` : ''}</figcaption>${chart(s)}</figure>`;
  });
  const moverRows = input.movers.map((m) => `<tr class="${m.direction}"><td>${m.direction === 'up' ? '↑' : '↓'} ${m.rank}</td><td>${nameHtml(m.alias ?? m.id)}</td><td>${nameHtml(m.label ?? '')}</td><td class="n">${number(m.clicks)}</td><td class="n">${number(m.previous)}</td><td class="n">${m.change === null ? '–' : `${m.change > 0 ? '+' : ''}${number(m.change)}`}</td><td class="n">${m.changePercent === null ? '–' : `${m.changePercent > 0 ? '+' : ''}${m.changePercent}%`}</td></tr>`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${escape(input.title)}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; background: #f6f8fa; margin: 0; padding: 24px; }
main { max-width: 780px; margin: 0 auto; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.muted { color: #57606a; font-size: 12px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 12px 16px; min-width: 150px; }
.card .total { font-size: 24px; font-weight: 600; } .card .name, .card .sub { color: #57606a; font-size: 12px; }
figure.series { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; margin: 12px 0; padding: 12px; }
figcaption { margin-bottom: 6px; }
svg.chart { max-width: 100%; height: auto; display: block; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid #d0d7de; }
th, td { padding: 6px 10px; border-bottom: 1px solid #eaeef2; text-align: left; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr.up td:first-child { color: #1a7f37; } tr.down td:first-child { color: #d1242f; }
.wide { overflow-x: auto; }
bdi.name { unicode-bidi: isolate; overflow-wrap: anywhere; word-break: break-word; }
td, figcaption, .card { overflow-wrap: anywhere; min-width: 0; }
</style>
</head>
<body>
<main>
<h1>${escape(input.title)}</h1>
<div class="muted">Account ${nameHtml(input.account)} · ${escape(iso(window.since))} to ${escape(iso(window.until))}, per ${escape(window.by)} (UTC) · ${input.snapshots} snapshot${input.snapshots === 1 ? '' : 's'}, newest ${escape(input.newest ?? 'none')} · generated ${escape(input.generated)}</div>
<h2>Totals in the window</h2>
<div class="cards">${cards.join('')}</div>
<h2>Clicks per ${escape(window.by)}</h2>
${charts.join('\n') || '<p>No series.</p>'}
<h2>Top movers: the second half of the window against the first</h2>
<p class="muted">${escape(input.moversNote)}</p>
${moverRows.length ? `<div class="wide"><table id="movers"><thead><tr><th></th><th>Link</th><th>Title</th><th class="n">Clicks</th><th class="n">Before</th><th class="n">Change</th><th class="n">%</th></tr></thead><tbody>${moverRows.join('')}</tbody></table></div>` : '<p>No movers yet.</p>'}
<h2>Reading this page</h2>
<ul class="muted">
<li>Clicks of a period are the differences between snapshots: what happened between the snapshot before it and its last one.</li>
<li>A period without a snapshot is a gap (grey), not a zero; the period after it holds the clicks since the snapshot before the gap.</li>
<li>A total that went down (a link recreated, statistics reset) is a reset (red): counted as a counter restarted from zero, never subtracted.</li>
<li>* ${escape(input.uniqueNote)}.</li>
</ul>
</main>
</body>
</html>
`;
}
