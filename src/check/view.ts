/**
 * `check` on a terminal, for people: a summary by status (counts, with what each means), then
 * the problems, worst first, each as a short block: its status and link (and short URL), its
 * destination after an arrow, whole (wrapped, never cut), one line of detail. Healthy destinations are only counted unless asked
 * for (`--all`). Every line fits the terminal's width: nothing is left for the terminal to wrap.
 * Text from servers and links is made safe here (safe-text.ts) before it is measured.
 */
import { safeText, safeTruncate } from '../output/safe-text.js';
import { wrapProse as wrap } from '../output/wrap.js';
import type { CheckRecord } from './record.js';
import { BROKEN, FINDINGS, FINDING_HELP, FLAGS, FLAG_HELP, HEALTHY, STATUS_HELP, STATUS_ORDER, type Status } from './statuses.js';

export interface Paint {
  bold(s: string): string;
  dim(s: string): string;
  /** A status word in its colour: red when broken, yellow when it needs a look, green when healthy. */
  status(s: string, tone: 'bad' | 'warn' | 'good'): string;
}

export const PLAIN: Paint = { bold: (s) => s, dim: (s) => s, status: (s) => s };

export interface View {
  /** Every record of the run (the summary counts them all). */
  records: CheckRecord[];
  /** The records to list (with --since-last: the changes); those that are no problem only with `all`. */
  shown: CheckRecord[];
  all: boolean;
  sinceLast: boolean;
  /** --fail-on's names: a record they match is listed, flags included. */
  failOn: ReadonlySet<string>;
  /** `Checked 21 destinations of 22 links in 4.1 s` and what else the run says (notes). */
  headline: string;
  notes: string[];
  width: number;
  paint?: Paint;
}

/**
 * How many destinations among the records pass `test`. A record is a link (or QR code) and its
 * destination; links that share a destination share its status and flags, so "3 blocked" counts
 * the destinations checked, as the headline's "checked 2 destinations of 3 links" does.
 */
export function destinationsWhere(records: readonly CheckRecord[], test: (r: CheckRecord) => boolean): number {
  return new Set(records.filter(test).map((r) => r.destination)).size;
}

/** Whether a record needs a look: not healthy, or with a finding, or with a flag --fail-on names. */
export function isProblem(record: CheckRecord, failOn: ReadonlySet<string> = new Set()): boolean {
  if (!HEALTHY.includes(record.status)) return true;
  if (record.findings.length > 0) return true;
  return record.flags.some((f) => failOn.has(f));
}

const toneOf = (status: string): 'bad' | 'warn' | 'good' =>
  BROKEN.includes(status as Status) || status === 'newly-broken' ? 'bad' : HEALTHY.includes(status as Status) || status === 'fixed' ? 'good' : 'warn';

/** The order records are listed in: the worst status first (stable within a status). */
const rank = (r: CheckRecord) => STATUS_ORDER.indexOf(r.status);
const CHANGE_ORDER = ['newly-broken', 'changed', 'fixed'];

export function renderView(view: View): string {
  const width = Math.max(40, view.width);
  const paint = view.paint ?? PLAIN;
  const lines: string[] = [];
  lines.push(...wrap(view.headline, width, ''));
  for (const note of view.notes) lines.push(...wrap(note, width, '    ', '  '));
  lines.push('');
  lines.push(...summary(view, width, paint));

  const listed = view.shown.filter((r) => view.all || view.sinceLast || isProblem(r, view.failOn));
  const sorted = view.sinceLast
    ? [...listed].sort((a, b) => CHANGE_ORDER.indexOf(a.change ?? 'changed') - CHANGE_ORDER.indexOf(b.change ?? 'changed') || rank(a) - rank(b))
    : [...listed].sort((a, b) => rank(a) - rank(b));
  lines.push('');
  if (sorted.length === 0) {
    lines.push(view.sinceLast ? 'Nothing changed since the previous check.' : 'No problems.');
  } else {
    const what = view.sinceLast ? `${sorted.length} change${sorted.length === 1 ? '' : 's'} since the previous check` : view.all ? 'Every destination, the worst first' : `${sorted.length} problem${sorted.length === 1 ? '' : 's'}, the worst first`;
    lines.push(paint.bold(`${what}:`));
    const label = Math.max(...sorted.map((r) => labelOf(r, view.sinceLast).length));
    for (const record of sorted) {
      lines.push('');
      lines.push(...entry(record, view, label, width, paint));
    }
    const hidden = view.shown.length - listed.length;
    if (hidden > 0) lines.push('', ...wrap(`${hidden} healthy destination${hidden === 1 ? ' is' : 's are'} not listed: --all lists them, --json gives every field.`, width, '').map(paint.dim));
  }
  return `${lines.join('\n')}\n`;
}

/** Counts by status, then by flag and finding, each with what it means (cut to the width: these texts are ours). */
function summary(view: View, width: number, paint: Paint): string[] {
  const rows: Array<[count: number, name: string, meaning: string, tone: 'bad' | 'warn' | 'good']> = [];
  // Statuses and flags are a destination's: counted by destination. Findings are a link's: by link.
  const count = (test: (r: CheckRecord) => boolean) => view.records.filter(test).length;
  for (const status of STATUS_ORDER) {
    const n = destinationsWhere(view.records, (r) => r.status === status);
    if (n) rows.push([n, status, STATUS_HELP[status], toneOf(status)]);
  }
  for (const flag of FLAGS) {
    const n = destinationsWhere(view.records, (r) => r.flags.includes(flag));
    if (n) rows.push([n, flag, `flag: ${FLAG_HELP[flag]}`, 'warn']);
  }
  for (const finding of FINDINGS) {
    const n = count((r) => r.findings.some((f) => f.kind === finding));
    if (n) rows.push([n, finding, `finding: ${FINDING_HELP[finding]}`, 'warn']);
  }
  if (rows.length === 0) return ['  nothing to check'];
  const countWidth = Math.max(...rows.map(([n]) => String(n).length));
  const nameWidth = Math.max(...rows.map(([, name]) => name.length));
  return rows.map(([n, name, meaning, tone]) => {
    const head = `  ${String(n).padStart(countWidth)}  `;
    const room = width - head.length - nameWidth - 2;
    return `${head}${paint.status(name, tone)}${' '.repeat(nameWidth - name.length)}  ${paint.dim(safeTruncate(meaning, Math.max(1, room)))}`;
  });
}

/** The first word of an entry: its status, or with --since-last its change. */
function labelOf(record: CheckRecord, sinceLast: boolean): string {
  return sinceLast ? (record.change ?? 'changed') : record.status;
}

/** One problem: `status  link 3 alias  short URL`, the destination whole, one line of detail. */
function entry(record: CheckRecord, view: View, labelWidth: number, width: number, paint: Paint): string[] {
  const label = labelOf(record, view.sinceLast);
  const who = record.qr !== null ? `QR ${record.qr}` : `link ${record.link ?? '?'}${record.alias ? ` ${record.alias}` : ''}`;
  const subject = safeText(`${who}${record.target ? ` (${record.target})` : ''}${record.shorturl ? `  ${record.shorturl}` : ''}`);
  // What does not fit goes on under the link, apart from the destination's lines.
  const first = wrap(`${label.padEnd(labelWidth)}  ${subject}`, width, ' '.repeat(Math.min(labelWidth + 2, width / 2)));
  // The label is coloured once the line is cut to the width (escape codes take no columns).
  first[0] = paint.status(label, toneOf(label)) + first[0]!.slice(label.length);
  const destination = record.destination ? wrap(safeText(record.destination), width, '    ', '  → ') : ['  → (no destination)'];
  return [...first, ...destination, paint.dim(safeTruncate(`    ${detailOf(record, view.sinceLast)}`, width))];
}

/** What a person needs to know of a record, on one line. */
export function detailOf(record: CheckRecord, sinceLast = false): string {
  const parts: string[] = [];
  if (sinceLast) parts.push(record.previous ? `was ${record.previous}, now ${record.status}` : `now ${record.status} (not checked before)`);
  const hops = record.chain.length - 1;
  if ((record.status === 'redirect' || record.status === 'redirect-offsite') && hops > 0) {
    const last = record.chain.at(-1)!.url;
    let where = last;
    try {
      const url = new URL(last);
      where = url.protocol === 'http:' || url.protocol === 'https:' ? url.host : `an app (${url.protocol})`;
    } catch {
      // not a URL: said as it is
    }
    parts.push(`${hops} redirect${hops === 1 ? '' : 's'} to ${where}${record.status === 'redirect-offsite' ? ', another site' : ''}`);
  } else if (record.error) parts.push(record.error);
  else if (record.code !== null) parts.push(`HTTP ${record.code}`);
  if (record.flags.length) parts.push(`flags: ${record.flags.join(', ')}`);
  for (const f of record.findings) parts.push(`${f.kind}: ${f.detail}`);
  return parts.join('; ');
}

