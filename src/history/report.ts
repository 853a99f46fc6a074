/**
 * `stats report --html`: one self-contained page a marketer can forward. Styles inline, charts
 * drawn here; no script at all and nothing fetched from elsewhere (a Content-Security-Policy
 * says so too), so the page opens the same offline, in a mail attachment or from a CI artefact,
 * and prints (A4 or Letter) as it reads. Every name from the server is escaped and isolated.
 *
 * What people read first: the totals of the window with the change from the period before
 * (where the history covers it), then a bar chart per series with readable dates and round
 * ticks, the most clicked links and QR codes, and the breakdowns `--details` kept (countries,
 * referrers, browsers, systems) as ranked bars. Each chart carries its numbers as a table.
 *
 * Text is HTML, never SVG text: an SVG scaled down to a phone would shrink its labels below
 * what can be read (11 px at 390 px wide is the floor). The SVG draws only bars and bands.
 */
import type { Series } from './series.js';
import type { Window } from './series.js';
import type { Ranked, Ranking } from './rank.js';
import type { Period } from './time.js';
import { nextPeriod } from './time.js';
import { thousands } from '../numbers.js';

export interface BreakdownRow {
  name: string;
  clicks: number;
  previous: number | null;
  change: number | null;
  changePercent: number | null;
}

export interface Breakdown {
  dimension: string;
  title: string;
  rows: BreakdownRow[];
  /** Links whose details were read at both ends of a span in the window. */
  links: number;
  /** The clicks every name of this breakdown adds up to (not only the rows shown), and the window's link clicks: what part it covers. */
  covered?: number;
  of?: number;
  /** Links with details read in only some of the window's snapshots: their changes count only between two reads. */
  partial?: number;
}

/** A rollup of the links' clicks (by campaign, by channel) as the report shows it. */
export interface GroupSection {
  group: string;
  title: string;
  /** The label of links in none: "No campaign". */
  none: string;
  note: string;
  rows: Array<{ group: string; links: number; clicks: number; previous: number | null; change: number | null; changePercent: number | null; estimated: boolean; shared: number }>;
  ungrouped: { links: number; clicks: number; previous: number | null };
  clicks: number;
  shared: number;
}

export interface ReportInput {
  title: string;
  server: string;
  account: string;
  window: Window;
  series: Series[];
  links: Ranking;
  qrs: Ranking | null;
  breakdowns: Breakdown[];
  /** Rollups by campaign and channel (empty sections left out). */
  groups?: GroupSection[];
  /** Snapshots from the server in the window's reach, and the newest one's time. */
  snapshots: number;
  newest: number | null;
  generated: number;
  /** After a first snapshot: what to do next (the cron line). */
  firstRun?: string;
  uniqueNote: string;
}

const escape = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const number = (n: number | null) => (n === null ? '–' : thousands(Math.round(n)));
const signed = (n: number | null) => (n === null ? '–' : `${n > 0 ? '+' : n < 0 ? '−' : '±'}${thousands(Math.abs(Math.round(n)))}`);
const percent = (n: number | null) => (n === null ? '' : ` (${n > 0 ? '+' : n < 0 ? '−' : '±'}${thousands(Math.abs(n))} %)`);

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

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTHS_LONG = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A date for people: `3 Jun 2025`; `year: false` leaves the year out. */
export function day(ms: number, year = true): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}${year ? ` ${d.getUTCFullYear()}` : ''}`;
}

/** A time for people: `3 Jun 2025, 06:00 UTC`. */
export function moment(ms: number): string {
  const d = new Date(ms);
  return `${day(ms)}, ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')} UTC`;
}

/** `1 June – 30 June 2025` (an end as given: the last instant inside the range). */
export function dateRange(from: number, lastInside: number): string {
  const a = new Date(from);
  const b = new Date(lastInside);
  const long = (d: Date) => `${d.getUTCDate()} ${MONTHS_LONG[d.getUTCMonth()]}`;
  if (a.getUTCFullYear() !== b.getUTCFullYear()) return `${long(a)} ${a.getUTCFullYear()} – ${long(b)} ${b.getUTCFullYear()}`;
  if (a.getUTCMonth() === b.getUTCMonth() && a.getUTCDate() === b.getUTCDate()) return `${long(a)} ${a.getUTCFullYear()}`;
  return `${long(a)} – ${long(b)} ${b.getUTCFullYear()}`;
}

/** A period's label on an axis or in a table: `3 Jun`, `Jun 2025`, `14:00`. */
function periodName(by: Period, start: number, withYear = false): string {
  const d = new Date(start);
  if (by === 'month') return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  if (by === 'hour') return `${day(start, withYear)} ${String(d.getUTCHours()).padStart(2, '0')}:00`;
  if (by === 'week') return `week of ${day(start, withYear)}`;
  return day(start, withYear);
}

const PER: Record<Period, string> = { hour: 'hour', day: 'day', week: 'week', month: 'month' };

/** Round ticks from 0 to at least `max`: steps of 1, 2, 2.5 or 5 times a power of ten, whole numbers, about four of them. */
export function niceTicks(max: number): number[] {
  if (max <= 0) return [0, 1];
  const rough = max / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(1, [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= rough && Number.isInteger(s)) ?? 10 * power);
  const ticks: number[] = [];
  for (let v = 0; v < max + step; v += step) {
    ticks.push(v);
    if (v >= max) break;
  }
  return ticks;
}

/** The colours the tests look for in screenshots, and the print keeps. */
export const BAR_COLOUR = '#1f6feb';
export const ESTIMATE_COLOUR = '#9ec5fe';
export const RESET_COLOUR = '#d1242f';
const GAP_COLOUR = '#eceff3';

/** Label every `step`-th period: about `labels` labels across the axis, starting with the first. */
const everyNth = (count: number, labels: number) => Math.max(1, Math.ceil(count / labels));

/**
 * One series as a bar chart: a bar a period (lighter and dashed when spread over a missed
 * snapshot, a red cap on a reset), gaps as one grey band per run of periods without a snapshot,
 * labelled; round ticks on the left, readable dates below; HTML text around an SVG of shapes.
 */
export function chart(series: Series, by: Period, unit: string): string {
  const points = series.points;
  const n = Math.max(1, points.length);
  const ticks = niceTicks(Math.max(0, ...points.map((p) => p.clicks ?? 0)));
  const top = ticks[ticks.length - 1]!;
  const y = (v: number) => 100 - (v / top) * 100;
  const shapes: string[] = [];
  // gap bands: one per run, with a label when it is wide enough to hold one
  const bands: string[] = [];
  for (let i = 0; i < points.length; ) {
    if (!points[i]!.gap) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < points.length && points[j + 1]!.gap) j++;
    shapes.push(`<rect class="gap" x="${i}" y="0" width="${j - i + 1}" height="100" fill="${GAP_COLOUR}"/>`);
    const left = (i / n) * 100;
    const width = ((j - i + 1) / n) * 100;
    bands.push(`<span class="band" style="left:${left.toFixed(2)}%;width:${width.toFixed(2)}%">${width >= 12 ? 'no snapshot' : ''}</span>`);
    i = j + 1;
  }
  for (const tick of ticks) shapes.push(`<line x1="0" x2="${n}" y1="${y(tick).toFixed(2)}" y2="${y(tick).toFixed(2)}" stroke="#d8dee4" stroke-width="1" vector-effect="non-scaling-stroke"/>`);
  points.forEach((p, i) => {
    if (p.clicks === null) return;
    const h = Math.max(p.clicks > 0 || p.estimated ? 0.6 : 0, (p.clicks / top) * 100); // an estimated zero still shows its dashed mark
    const cls = p.estimated ? 'bar estimated' : 'bar';
    const fill = p.estimated ? ESTIMATE_COLOUR : BAR_COLOUR;
    const stroke = p.estimated ? ` stroke="${BAR_COLOUR}" stroke-width="1" stroke-dasharray="3 2" vector-effect="non-scaling-stroke"` : '';
    shapes.push(`<rect class="${cls}" x="${(i + 0.12).toFixed(2)}" y="${(100 - h).toFixed(2)}" width="0.76" height="${h.toFixed(2)}" fill="${fill}"${stroke}/>`);
    if (p.reset) shapes.push(`<rect class="reset" x="${(i + 0.05).toFixed(2)}" y="${Math.max(0, 100 - h - 3).toFixed(2)}" width="0.9" height="3" fill="${RESET_COLOUR}"/>`);
  });
  const yLabels = ticks.map((t) => `<span style="top:${y(t).toFixed(2)}%">${number(t)}</span>`).join('');
  // dates: about 8 across a desktop, 4 on a phone (the others hidden there)
  const wide = everyNth(points.length, 8);
  const narrow = everyNth(points.length, 4);
  const xLabels = points.map((p, i) => {
    if (i % wide !== 0 && i % narrow !== 0) return '';
    const start = Date.parse(p.start);
    const newYear = i === 0 || new Date(Date.parse(points[i - 1]!.start)).getUTCFullYear() !== new Date(start).getUTCFullYear();
    const cls = i % narrow === 0 ? (i % wide === 0 ? '' : ' class="phone"') : ' class="desk"';
    return `<span${cls} style="left:${(((i + 0.5) / n) * 100).toFixed(2)}%">${escape(periodName(by, start, newYear && by !== 'month').replace(/^week of /, ''))}</span>`;
  }).join('');
  const label = `${unit} per ${PER[by]}, ${escape(series.spec.label)}: bar chart; the numbers are in the table below it`;
  return `<div class="chart" role="img" aria-label="${label}">
<div class="y">${yLabels}</div>
<div class="plot"><svg viewBox="0 0 ${n} 100" preserveAspectRatio="none" aria-hidden="true" xmlns="http://www.w3.org/2000/svg">${shapes.join('')}</svg>${bands.join('')}</div>
<div class="x">${xLabels}</div>
</div>`;
}

/** The numbers of a chart, as a table (inside a closed `<details>`: a screen reader opens it, print leaves it out). */
function dataTable(series: Series, by: Period, unit: string): string {
  const rows = series.points.map((p) => {
    const start = Date.parse(p.start);
    const what = p.gap ? 'no snapshot' : [p.estimated ? 'estimate: spread over a missed snapshot' : '', p.reset ? 'a total went down: counted from zero' : ''].filter(Boolean).join('; ');
    return `<tr><th scope="row">${escape(periodName(by, start, true))}</th><td class="n">${p.gap ? '–' : number(p.clicks)}</td><td>${escape(what)}</td></tr>`;
  });
  return `<details class="data"><summary>The numbers of this chart</summary><div class="wide"><table><caption>${escape(unit)} per ${PER[by]}, ${nameHtml(series.spec.label)}</caption><thead><tr><th scope="col">${by === 'week' ? 'Week of' : by === 'month' ? 'Month' : by === 'hour' ? 'Hour' : 'Day'}</th><th scope="col" class="n">${escape(unit[0]!.toUpperCase() + unit.slice(1))}</th><th scope="col">Note</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></details>`;
}

function card(title: string, value: number | null, sub: string, ranking?: Ranking): string {
  let compare = '';
  if (ranking?.comparison && ranking.previous !== null) {
    const change = ranking.clicks - ranking.previous;
    const pct = ranking.previous ? Math.round((change / ranking.previous) * 1000) / 10 : null;
    compare = `<div class="change ${change > 0 ? 'up' : change < 0 ? 'down' : ''}">${signed(change)}${percent(pct)} <span class="muted">vs ${number(ranking.previous)} in the ${ranking.comparison.periods} ${PER[ranking.by]}${ranking.comparison.periods === 1 ? '' : 's'} before</span></div>`;
  } else if (ranking) compare = '<div class="change muted">no comparison: the history does not cover the period before</div>';
  const data = ` data-value="${value ?? ''}"${ranking?.comparison && ranking.previous !== null ? ` data-previous="${ranking.previous}"` : ''}`;
  return `<div class="card"${data}><div class="label">${escape(title)}</div><div class="total">${number(value)}</div><div class="sub">${escape(sub)}</div>${compare}</div>`;
}

function rankTable(id: string, ranking: Ranking, noun: string, unit: string, what: string): string {
  if (!ranking.rows.length) return `<p class="muted">${escape(ranking.note)}</p>`;
  const max = Math.max(1, ...ranking.rows.map((r) => r.clicks));
  const row = (r: Ranked) => `<tr data-clicks="${r.clicks}" data-previous="${r.previous ?? ''}"><td class="n">${r.rank}</td><th scope="row">${nameHtml(r.alias ?? r.id)}${r.label && r.label !== r.alias ? `<div class="muted">${nameHtml(r.label)}</div>` : ''}</th><td class="bar"><span style="width:${((r.clicks / max) * 100).toFixed(1)}%"></span></td><td class="n">${number(r.clicks)}${r.estimated ? '<abbr title="holds an estimate: spread over a missed snapshot">~</abbr>' : ''}</td><td class="n">${number(r.previous)}</td><td class="n ${r.change === null ? '' : r.change > 0 ? 'up' : r.change < 0 ? 'down' : ''}">${signed(r.change)}${r.changePercent === null ? '' : `<div class="muted">${r.changePercent > 0 ? '+' : r.changePercent < 0 ? '−' : '±'}${Math.abs(r.changePercent)} %</div>`}</td></tr>`;
  return `<p class="muted">${escape(ranking.note)}.</p><div class="wide"><table id="${id}" class="rank"><caption>${escape(what)}</caption><thead><tr><th scope="col" class="n">#</th><th scope="col">${escape(noun)}</th><th scope="col" class="bar"><span class="sr">share</span></th><th scope="col" class="n">${escape(unit)}</th><th scope="col" class="n">Before</th><th scope="col" class="n">Change</th></tr></thead><tbody>${ranking.rows.map(row).join('')}</tbody></table></div>`;
}

function breakdownBlock(b: Breakdown, unit: string): string {
  if (!b.rows.length) return '';
  const max = Math.max(1, ...b.rows.map((r) => r.clicks));
  const rows = b.rows.map((r) => `<tr data-name="${escape(r.name)}" data-clicks="${r.clicks}" data-previous="${r.previous ?? ''}"><th scope="row">${nameHtml(r.name, 40)}</th><td class="bar"><span style="width:${((r.clicks / max) * 100).toFixed(1)}%"></span></td><td class="n">${number(r.clicks)}</td><td class="n ${r.change === null ? '' : r.change > 0 ? 'up' : r.change < 0 ? 'down' : ''}">${signed(r.change)}${percent(r.changePercent)}</td></tr>`);
  const part = b.covered !== undefined && b.of !== undefined ? `${number(b.covered)} of ${number(b.of)} ${unit}` : '';
  const partial = b.partial ? `, ${b.partial} of them read in only some snapshots` : '';
  const coverage = `<p class="muted coverage">${escape(`${part ? `${part}: ` : ''}those of the ${b.links} link${b.links === 1 ? '' : 's'} with details${partial}`)}</p>`;
  return `<section class="breakdown" id="breakdown-${escape(b.dimension)}"><h3>${escape(b.title)}</h3>${coverage}<div class="wide"><table class="bars"><caption>${escape(b.title)}: ${escape(unit)} in the window, most first</caption><thead><tr><th scope="col">Name</th><th scope="col"><span class="sr">share</span></th><th scope="col" class="n">${escape(unit[0]!.toUpperCase() + unit.slice(1))}</th><th scope="col" class="n">Change</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></section>`;
}

function groupBlock(g: GroupSection): string {
  const max = Math.max(1, ...g.rows.map((r) => r.clicks), g.ungrouped.clicks);
  const change = (c: number | null, pct: number | null) => `<td class="n ${c === null ? '' : c > 0 ? 'up' : c < 0 ? 'down' : ''}">${signed(c)}${pct === null ? '' : `<div class="muted">${pct > 0 ? '+' : pct < 0 ? '−' : '±'}${Math.abs(pct)} %</div>`}</td>`;
  const row = (name: string, r: { links: number; clicks: number; previous: number | null; change: number | null; changePercent: number | null; estimated?: boolean; shared?: number }, cls = '') =>
    `<tr class="${cls}" data-clicks="${r.clicks}" data-previous="${r.previous ?? ''}"><th scope="row">${cls ? `<em>${escape(name)}</em>` : nameHtml(name)}<div class="muted">${r.links} link${r.links === 1 ? '' : 's'}${r.shared ? `, ${r.shared} also in another` : ''}</div></th><td class="bar"><span style="width:${((r.clicks / max) * 100).toFixed(1)}%"></span></td><td class="n">${number(r.clicks)}${r.estimated ? '<abbr title="holds an estimate: spread over a missed snapshot">~</abbr>' : ''}</td><td class="n">${number(r.previous)}</td>${change(r.change, r.changePercent)}</tr>`;
  const none = g.ungrouped.previous === null ? null : g.ungrouped.clicks - g.ungrouped.previous;
  const rows = [...g.rows.map((r) => row(r.group, r)), ...(g.ungrouped.links ? [row(g.none, { ...g.ungrouped, change: none, changePercent: none === null || !g.ungrouped.previous ? null : Math.round((none / g.ungrouped.previous) * 1000) / 10 }, 'none')] : [])];
  return `<section class="block" id="group-${escape(g.group)}">${g.note ? `<p class="muted">${escape(g.note)}.</p>` : ''}<div class="wide"><table class="rank"><caption>${escape(g.title)}: clicks in the window, with the period before</caption><thead><tr><th scope="col">${escape(g.group[0]!.toUpperCase() + g.group.slice(1))}</th><th scope="col" class="bar"><span class="sr">share</span></th><th scope="col" class="n">Clicks</th><th scope="col" class="n">Before</th><th scope="col" class="n">Change</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></section>`;
}

/** The numbers of a chart in print, where the closed table is left out: one line of period and value pairs. */
function printNumbers(series: Series, by: Period, unit: string): string {
  const pairs = series.points.map((p) => `${periodName(by, Date.parse(p.start))}: ${p.gap ? '–' : `${number(p.clicks)}${p.estimated ? '~' : ''}`}`);
  return `<p class="print-only numbers">${escape(unit[0]!.toUpperCase() + unit.slice(1))} per ${PER[by]}: ${escape(pairs.join(' · '))}</p>`;
}

/** A heading and the block after it, kept on one page in print (a heading never ends a page alone). */
const kept = (heading: string, block: string) => `<div class="keep">${heading}${block}</div>`;

const STYLE = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; background: #f6f8fa; margin: 0; padding: 24px; }
main { max-width: 860px; margin: 0 auto; }
h1 { font-size: 24px; margin: 0 0 4px; line-height: 1.25; } h2 { font-size: 19px; margin: 32px 0 10px; } h3 { font-size: 16px; margin: 0 0 4px; }
.muted { color: #57606a; font-size: 13px; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 12px; }
.card { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 12px 14px; min-width: 0; }
.card .label { color: #57606a; font-size: 13px; font-weight: 600; }
.card .total { font-size: 28px; font-weight: 650; font-variant-numeric: tabular-nums; line-height: 1.2; }
.card .sub, .card .change { font-size: 13px; }
.up { color: #1a7f37; } .down { color: #b42318; }
.notice { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 8px; padding: 10px 14px; margin: 16px 0; }
.notice code { font-size: 13px; overflow-wrap: anywhere; }
figure.series { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; margin: 14px 0; padding: 14px; break-inside: avoid; }
figcaption { margin-bottom: 10px; }
.chart { display: grid; grid-template-columns: 48px 1fr; grid-template-rows: 180px 22px; }
.chart .y { position: relative; grid-row: 1; grid-column: 1; }
.chart .y span { position: absolute; right: 8px; transform: translateY(-50%); font-size: 12px; color: #57606a; font-variant-numeric: tabular-nums; white-space: nowrap; }
.chart .plot { position: relative; grid-row: 1; grid-column: 2; border-left: 1px solid #8c959f; border-bottom: 1px solid #8c959f; }
.chart .plot svg { position: absolute; inset: 0; width: 100%; height: 100%; display: block; }
.chart .band { position: absolute; top: 0; bottom: 0; display: flex; align-items: center; justify-content: center; font-size: 12px; color: #57606a; text-align: center; overflow: hidden; }
.chart .x { position: relative; grid-row: 2; grid-column: 2; }
.chart .x span { position: absolute; top: 3px; transform: translateX(-50%); font-size: 12px; color: #57606a; white-space: nowrap; }
.chart .x span.phone { display: none; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 13px; color: #57606a; margin-top: 8px; }
.legend i { display: inline-block; width: 12px; height: 12px; vertical-align: -1px; margin-right: 5px; border-radius: 2px; }
.legend .k-bar { background: ${BAR_COLOUR}; } .legend .k-est { background: ${ESTIMATE_COLOUR}; outline: 1px dashed ${BAR_COLOUR}; outline-offset: -1px; }
.legend .k-gap { background: ${GAP_COLOUR}; border: 1px solid #d0d7de; } .legend .k-reset { background: ${RESET_COLOUR}; }
details.data { margin-top: 10px; font-size: 14px; } details.data summary { cursor: pointer; color: #0969da; }
table { border-collapse: collapse; width: 100%; background: #fff; }
caption { text-align: left; font-size: 13px; color: #57606a; padding: 4px 0; }
th, td { padding: 6px 8px; border-bottom: 1px solid #eaeef2; text-align: left; vertical-align: top; font-size: 14px; }
thead th { font-size: 13px; color: #57606a; font-weight: 600; }
.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.bar { width: 30%; min-width: 60px; vertical-align: middle; }
table.rank th[scope=row], table.bars th[scope=row] { min-width: 7em; }
td.bar span { display: block; height: 10px; background: ${BAR_COLOUR}; border-radius: 2px; min-width: 2px; }
.wide { overflow-x: auto; }
section.block { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 14px; margin: 14px 0; }
.breakdowns { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 14px; }
section.breakdown { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 14px; min-width: 0; break-inside: avoid; }
bdi.name { unicode-bidi: isolate; overflow-wrap: anywhere; word-break: break-word; }
td, th, figcaption, .card { overflow-wrap: anywhere; }
ul.notes { padding-left: 20px; } ul.notes li { margin: 4px 0; }
.print-only { display: none; }
tr.none th em { font-style: normal; color: #57606a; }
@media (max-width: 600px) {
  body { padding: 12px; font-size: 15px; }
  h1 { font-size: 21px; }
  .chart { grid-template-columns: 40px 1fr; grid-template-rows: 150px 22px; }
  .chart .x span.desk { display: none; } .chart .x span.phone { display: inline; }
  .breakdowns { grid-template-columns: 1fr; }
  th, td { padding: 5px 6px; }
  td.bar { width: 22%; min-width: 40px; }
  table.rank td.bar, table.rank th.bar { display: none; }
}
@page { margin: 14mm 12mm; }
@media print {
  body { background: #fff; padding: 0; font-size: 12pt; }
  main { max-width: none; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  figure.series, section.block, section.breakdown, .card { border-color: #c4c9cf; break-inside: avoid; }
  details.data { display: none; }
  .print-only { display: block; }
  p.numbers { font-size: 9pt; color: #1f2328; margin: 6px 0 0; overflow-wrap: anywhere; }
  .keep { break-inside: avoid; page-break-inside: avoid; }
  h3 { break-after: avoid; page-break-after: avoid; }
  .chart { grid-template-rows: 130px 22px; }
  .cards { grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); }
  th, td { font-size: 10pt; padding: 4px 6px; }
  h2 { break-after: avoid; page-break-after: avoid; }
  .wide { overflow: visible; }
}
`;

export function renderReport(input: ReportInput): string {
  const { window } = input;
  const by = window.by;
  const lastInside = nextPeriod(by, Date.parse(input.series[0]?.points.at(-1)?.start ?? new Date(window.until).toISOString())) - 1;
  const firstStart = Date.parse(input.series[0]?.points[0]?.start ?? new Date(window.since).toISOString());
  const range = dateRange(firstStart, Math.min(lastInside, window.until));
  const links = input.series.find((s) => s.spec.key === 'links');
  const cards = [
    card('Link clicks', input.links.clicks, range, input.links),
    ...(input.qrs ? [card('QR code scans', input.qrs.clicks, range, input.qrs)] : []),
    ...(links && links.uniqueClicks !== null ? [card('New unique visitors*', links.uniqueClicks, 'first counted in the window')] : []),
    ...(links && links.total !== null ? [card('All-time link clicks', links.total, input.newest === null ? 'none yet' : `as of ${moment(input.newest)}`)] : []),
  ];
  const figures = input.series.map((s) => {
    const unit = s.spec.kind === 'qr' ? 'scans' : 'clicks';
    const notes = [
      `${number(s.clicks)} ${unit} in ${range}`,
      s.gaps ? `${s.gaps} ${PER[by]}${s.gaps === 1 ? '' : 's'} without a snapshot (grey)` : '',
      s.estimated ? `${s.estimated} ${PER[by]}${s.estimated === 1 ? '' : 's'} estimated (lighter bars: spread evenly over a missed snapshot)` : '',
      s.resets ? `${s.resets} reset${s.resets === 1 ? '' : 's'} (red: a total went down, counted from zero)` : '',
    ].filter(Boolean);
    const heading = s.spec.key === 'links' ? 'Link clicks' : s.spec.key === 'qrs' ? 'QR code scans' : `${s.spec.kind === 'qr' ? 'Scans' : 'Clicks'}: `;
    const title = s.spec.key === 'links' || s.spec.key === 'qrs' ? `${heading} per ${PER[by]}` : `${heading}${nameHtml(s.spec.label)}`;
    return `<figure class="series" id="series-${escape(s.spec.key.replace(/[^\w-]/g, '-'))}"><figcaption><h3>${s.spec.key === 'links' || s.spec.key === 'qrs' ? escape(title) : title}</h3><div class="muted">${s.spec.key === 'links' || s.spec.key === 'qrs' ? '' : `${escape(unit)} per ${PER[by]} · `}${escape(notes.join(' · '))}</div></figcaption>${chart(s, by, unit)}
<div class="legend"><span><i class="k-bar"></i>${escape(unit)} per ${PER[by]}</span>${s.estimated ? '<span><i class="k-est"></i>estimate</span>' : ''}${s.gaps ? '<span><i class="k-gap"></i>no snapshot</span>' : ''}${s.resets ? '<span><i class="k-reset"></i>reset</span>' : ''}</div>
${printNumbers(s, by, unit)}
${dataTable(s, by, unit)}</figure>`;
  });
  const breakdowns = input.breakdowns.filter((b) => b.rows.length);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="referrer" content="no-referrer">
<title>${escape(input.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header>
<h1>${escape(input.title)}</h1>
<div class="muted">${escape(range)} (UTC, per ${PER[by]}) · account ${nameHtml(input.account)} on ${escape(input.server)} · ${thousands(input.snapshots)} snapshot${input.snapshots === 1 ? '' : 's'}, the newest ${input.newest === null ? 'none' : escape(moment(input.newest))} · made ${escape(moment(input.generated))}</div>
</header>
${input.firstRun ? `<div class="notice" id="first-run"><strong>One snapshot so far.</strong> ${escape(input.firstRun.replace(/\n\s*/g, ' ').replace(/ 15 6 .*$/, ''))} <code>${escape(/15 6 .*$/.exec(input.firstRun)?.[0] ?? '')}</code></div>` : ''}
${kept('<h2>The window at a glance</h2>', `<div class="cards" id="totals">${cards.join('')}</div>`)}
${figures.length ? `${kept('<h2>Over time</h2>', figures[0]!)}\n${figures.slice(1).join('\n')}` : ''}
${kept('<h2>Most clicked links</h2>', `<section class="block" id="links">${rankTable('top-links', input.links, 'Link', 'Clicks', 'Links ranked by clicks in the window, with the period before')}</section>`)}
${input.qrs && input.qrs.rows.length ? kept('<h2>Most scanned QR codes</h2>', `<section class="block" id="qrs">${rankTable('top-qrs', input.qrs, 'QR code', 'Scans', 'QR codes ranked by scans in the window, with the period before')}</section>`) : ''}
${(input.groups ?? []).filter((g) => g.rows.length).map((g) => kept(`<h2>${escape(g.title)}</h2>`, groupBlock(g))).join('\n')}
${breakdowns.length ? kept(`<h2>Where the clicks came from</h2><p class="muted">From the links whose details the snapshots read (the top countries, referrers, browsers and systems of the most clicked links, when snapshots are taken with details): the change of each name's count in the window, where two snapshots both listed it (a server lists its top names only). Each breakdown says what part of the window's clicks it covers. The change is against the same span before, where the history covers it.</p>`, `<div class="breakdowns">${breakdowns.map((b) => breakdownBlock(b, 'clicks')).join('')}</div>`) : ''}
<h2>Reading this page</h2>
<ul class="notes muted">
<li>The server counts totals only; the history stores them at each snapshot, and the ${escape(PER[by])}s are the differences between snapshots, in UTC.</li>
<li>A ${escape(PER[by])} no two snapshots span is a gap (grey): unknown, not zero. When a snapshot was missed, the clicks between the two around it are spread evenly over the ${escape(PER[by])}s between them (lighter bars, marked ~): estimates, never a spike.</li>
<li>A total that went down (a link recreated, statistics reset) is a reset (red): counted as a counter restarted from zero, never subtracted.</li>
<li>* ${escape(input.uniqueNote)}.</li>
</ul>
</main>
</body>
</html>
`;
}
