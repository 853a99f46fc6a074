/**
 * The output layer: one place that turns a Result into text on stdout, in the format chosen
 * once. On a terminal, tables and colour; in a pipe, plain tab-separated text with no colour,
 * borders or truncation. Records stream page by page so `--all` keeps memory flat.
 */
import type { OutStream } from '../io.js';
import { UsageError } from '../errors.js';
import type { BarSection, Column, Format, ListSummary, Rec, Result } from './types.js';
import { safeStringify, safeText, safeTruncate } from './safe-text.js';
import { stableJson } from './stable.js';

export interface OutputOptions {
  format: Format;
  /** stdout is a terminal and the format is table: borders, colour, footer. */
  tty: boolean;
  color: boolean;
  fields?: string[];
  header: boolean;
  quiet: boolean;
  width: number;
  /** --csv-raw: csv and tsv cells exactly as they are, formula-like ones too. */
  csvRaw?: boolean;
}

export interface Streams {
  stdout: OutStream;
  stderr: OutStream;
}

type Style = { bold(s: string): string; dim(s: string): string; cyan(s: string): string };
const plain: Style = { bold: (s) => s, dim: (s) => s, cyan: (s) => s };

async function styleFor(color: boolean): Promise<Style> {
  if (!color) return plain;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return { bold: (s) => chalk.bold(s), dim: (s) => chalk.dim(s), cyan: (s) => chalk.cyan(s) };
}

/** The columns to print: --fields when given (checked against what the command knows), else the defaults. */
export function chooseColumns(columns: Column[], fields: string[] | undefined): Column[] {
  if (!fields?.length) return columns.filter((c) => !c.optional);
  return fields.map((name) => {
    const column = columns.find((c) => c.key === name);
    if (!column) throw new UsageError(`--fields: unknown field "${name}"; known fields: ${columns.map((c) => c.key).join(', ')}`);
    return column;
  });
}

/**
 * The columns of csv and tsv: those --fields names; else every field, as --json has them: the
 * table's columns first, then the optional ones, then the other fields of `records` in the order
 * they first appear (a list takes them from its first page: the header is written before the rest).
 */
export function fileColumns(columns: Column[], fields: string[] | undefined, records: Rec[]): Column[] {
  if (fields?.length) return chooseColumns(columns, fields);
  const chosen = [...columns.filter((c) => !c.optional), ...columns.filter((c) => c.optional)];
  const keys = new Set(chosen.map((c) => c.key));
  for (const record of records) {
    for (const key of Object.keys(record)) {
      if (keys.has(key)) continue;
      keys.add(key);
      chosen.push({ key });
    }
  }
  return chosen;
}

/** The value of a column, as data (JSON). */
export function cell(record: Rec, column: Column): unknown {
  return column.value ? column.value(record) : record[column.key];
}

/** The value of a column as people read it (tables, csv, tsv). */
function shown(record: Rec, column: Column): unknown {
  return column.show ? column.show(record) : cell(record, column);
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * Spreadsheet programs run a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return
 * as a formula (CSV injection): a link title `=HYPERLINK("https://evil.example","Click")` from a
 * server or an imported export would become a live link or worse. As OWASP advises, such a cell is
 * written with a leading `'`, which spreadsheets show as text; a number (`-5`) is left alone, as no
 * spreadsheet runs it. `--csv-raw` writes cells exactly, for scripts that need the bytes.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/** `s` as a spreadsheet cannot run it, when `disarm`. */
function unformula(s: string, disarm: boolean): string {
  return disarm && FORMULA_START.test(s) && !PLAIN_NUMBER.test(s) ? `'${s}` : s;
}

/** A cell for a csv file: quoted when needed; control characters other than tab and newline shown as escapes; formulas disarmed when asked. */
function csvField(value: unknown, disarm = false): string {
  const s = safeText(unformula(text(value), disarm), true);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A cell for a tsv file (and a piped table): tabs and line breaks become spaces; formulas disarmed when asked. */
function tsvField(value: unknown, disarm = false): string {
  return safeText(unformula(text(value), disarm).replace(/[\t\r\n]+/g, ' '));
}

/**
 * A line of a CSV file linkctl writes of its own (import's rejects): the same cells as `-o csv`,
 * formulas disarmed unless `disarm` is false (a file a spreadsheet never opens, such as
 * Cloudflare's bulk redirects, whose `-x.example/x` must stay as it is).
 */
export function csvLine(cells: unknown[], disarm = true): string {
  return `${cells.map((c) => csvField(c, disarm)).join(',')}\n`;
}

/** The cell writer of csv or tsv output, and its separator. */
function cellWriter(format: 'csv' | 'tsv', options: OutputOptions): [string, (value: unknown) => string] {
  const disarm = !options.csvRaw;
  return format === 'csv' ? [',', (v) => csvField(v, disarm)] : ['\t', (v) => tsvField(v, disarm)];
}

/** With --fields, JSON records carry just those fields, in that order. */
function project(record: Rec, columns: Column[] | undefined): Rec {
  if (!columns) return record;
  return Object.fromEntries(columns.map((c) => [c.key, cell(record, c) ?? null]));
}

export async function render(result: Result, options: OutputOptions, streams: Streams): Promise<void> {
  const out = (s: string) => streams.stdout.write(s);
  if (result.kind === 'none') return;
  if (result.kind === 'raw') {
    out(`${safeStringify(result.json, 2)}\n`);
    return;
  }
  if (result.kind === 'text') {
    if (typeof result.text === 'string') out(result.text);
    else for await (const piece of result.text) await writeAndDrain(streams.stdout, piece);
    return;
  }
  if (result.kind === 'message') {
    if (options.format === 'json' || options.format === 'ndjson') out(`${safeStringify(stableJson(result.json), options.format === 'json' ? 2 : 0)}\n`);
    else if (!options.quiet && result.message) out(`${safeText(result.message, true)}\n`);
    return;
  }
  if (result.kind === 'record') return renderRecord({ ...result, record: stableJson(result.record) as Rec, json: stableJson(result.json) }, options, out, (s) => streams.stderr.write(s));
  return renderList(result, options, streams);
}

async function renderRecord(result: Extract<Result, { kind: 'record' }>, options: OutputOptions, out: (s: string) => void, err: (s: string) => void): Promise<void> {
  const columns = chooseColumns(result.columns, options.fields);
  const fieldsGiven = Boolean(options.fields?.length);
  if (options.quiet) {
    out(`${safeText(text(result.record.id))}\n`);
    return;
  }
  switch (options.format) {
    case 'json':
      out(`${safeStringify(fieldsGiven ? project(result.record, columns) : (result.json ?? result.record), 2)}\n`);
      return;
    case 'ndjson':
      out(`${safeStringify(fieldsGiven ? project(result.record, columns) : (result.json ?? result.record))}\n`);
      return;
    case 'csv':
    case 'tsv': {
      const [sep, field] = cellWriter(options.format, options);
      const all = fileColumns(result.columns, options.fields, [result.record]);
      if (options.header) out(`${all.map((c) => field(c.key)).join(sep)}\n`);
      out(`${all.map((c) => field(shown(result.record, c))).join(sep)}\n`);
      return;
    }
    case 'table': {
      const style = await styleFor(options.color);
      const labelWidth = Math.max(...columns.map((c) => (c.header ?? c.key).length));
      for (const c of columns) {
        const value = safeText(text(shown(result.record, c)), true);
        out(options.tty ? `${style.bold((c.header ?? c.key).padEnd(labelWidth))}  ${value}\n` : `${c.key}\t${tsvField(value)}\n`);
      }
      // In a pipe the bars' data stays on stdout as `topCountries.Canada<TAB>31` lines; a note goes to stderr.
      if (!options.tty) {
        for (const section of result.bars ?? []) for (const [label, n] of section.entries) out(`${tsvField(`${section.key ?? section.title}.${label}`)}\t${n}\n`);
        if (result.note) err(`${safeText(result.note, true)}\n`);
        return;
      }
      if (result.note) out(`\n${safeText(result.note, true)}\n`);
      for (const section of result.bars ?? []) out(`\n${barChart(section, style, options.width)}`);
    }
  }
}

/** A horizontal bar chart: one row per entry, bars scaled to the largest count. */
export function barChart(section: BarSection, style: Style = plain, width = 80): string {
  const title = `${style.bold(section.title)}\n`;
  if (section.entries.length === 0) return `${title}  (none)\n`;
  section = { ...section, entries: section.entries.slice(0, 10) };
  const labelWidth = Math.min(24, Math.max(...section.entries.map(([label]) => safeText(label).length)));
  const countWidth = Math.max(...section.entries.map(([, n]) => String(n).length));
  const barWidth = Math.max(10, Math.min(40, width - labelWidth - countWidth - 8));
  const max = Math.max(...section.entries.map(([, n]) => n), 1);
  const rows = section.entries.map(([raw, n]) => {
    const label = safeText(raw);
    const name = label.length > labelWidth ? safeTruncate(raw, labelWidth) : label.padEnd(labelWidth);
    const bar = '█'.repeat(Math.max(n > 0 ? 1 : 0, Math.round((n / max) * barWidth)));
    return `  ${name}  ${style.cyan(bar.padEnd(barWidth))} ${String(n).padStart(countWidth)}\n`;
  });
  return title + rows.join('');
}

async function renderList(result: Extract<Result, { kind: 'list' }>, options: OutputOptions, streams: Streams): Promise<void> {
  const out = (s: string) => streams.stdout.write(s);
  const columns = chooseColumns(result.columns, options.fields);
  const fieldsGiven = Boolean(options.fields?.length);
  const format = options.quiet ? 'quiet' : options.format;
  let count = 0;
  let fileColumnsOfList: Column[] | undefined; // csv and tsv: every field, known once the first page is in
  // A terminal table and a JSON array need every row before printing (a JSON array cut by an
  // error half-way would not parse); ndjson, csv, tsv and piped tables stream.
  const rows: Rec[] = [];
  for await (const page of result.pages) {
    let chunk = ''; // a page is written at once, then the next is fetched only when stdout has taken it
    const out = (s: string) => (chunk += s);
    for (const raw of page) {
      const record = stableJson(raw) as Rec;
      switch (format) {
        case 'quiet':
          // Records without an id (system domains) have nothing to hand to xargs.
          if (record.id !== null && record.id !== undefined) out(`${safeText(text(record.id))}\n`);
          break;
        case 'json':
          rows.push(fieldsGiven ? project(record, columns) : record);
          break;
        case 'ndjson':
          out(`${safeStringify(fieldsGiven ? project(record, columns) : record)}\n`);
          break;
        case 'csv':
        case 'tsv':
        case 'table': {
          if (format === 'table' && options.tty) {
            rows.push(record);
            break;
          }
          // A piped table is bare data for `cut` and friends, as it always was; csv and tsv are for spreadsheets too.
          const [sep, field] = format === 'table' ? ['\t', (v: unknown) => tsvField(v)] : cellWriter(format, options);
          const shownColumns = format === 'table' ? columns : (fileColumnsOfList ??= fileColumns(result.columns, options.fields, page.map((r) => stableJson(r) as Rec)));
          // csv/tsv carry a header unless --no-header; a piped table is bare data, like `gh`.
          if (count === 0 && options.header && format !== 'table') out(`${shownColumns.map((c) => field(c.key)).join(sep)}\n`);
          out(`${shownColumns.map((c) => field(shown(record, c))).join(sep)}\n`);
        }
      }
      count++;
    }
    if (chunk) await writeAndDrain(streams.stdout, chunk);
  }
  if (format === 'json') out(`${safeStringify(rows, 2)}\n`);
  if (format === 'table' && options.tty) {
    const summary = result.summary?.();
    if (rows.length === 0) {
      streams.stderr.write('No results.\n');
    } else {
      // Columns left out anywhere (a group's table may leave out what another shows): one note.
      const dropped = new Set<Column>();
      /** Columns asked for by name and cut to fit (values other than names, titles and URLs, which are cut by their own rule). */
      const cut = new Set<Column>();
      if (result.groups) {
        const style = await styleFor(options.color);
        for (const [i, group] of result.groups(rows).entries()) {
          out(`${i ? '\n' : ''}${style.bold(safeText(group.title))}\n`);
          for (const c of await printTable(group.records, columns, options, out, cut)) dropped.add(c);
        }
      } else {
        for (const c of await printTable(rows, columns, options, out, cut)) dropped.add(c);
      }
      const note = leftOutNote(columns.filter((c) => dropped.has(c)), columns, options.width);
      if (note) streams.stderr.write(`${note}\n`);
      if (cut.size) streams.stderr.write(`cut to fit ${options.width} columns: ${[...cut].map(headerOf).join(', ')} (--json or -o tsv gives every value whole)\n`);
    }
    const footer = summary && footerLine(summary);
    if (footer) streams.stderr.write(`${footer}\n`);
  } else {
    // A list that is not whole says so in a pipe too: `... -q | xargs` must not pass for everything.
    const summary = result.summary?.();
    const note = summary && partialNote(summary);
    if (note) streams.stderr.write(`${note}\n`);
  }
  if (result.note && !options.quiet) streams.stderr.write(`${safeText(result.note, true)}\n`);
}

/** `page 1 of 4 (15 of 50 records); --all for every record`, for a list that is one page of several. */
export function partialNote(summary: ListSummary): string | undefined {
  if (summary.all || summary.page === undefined || !summary.maxpage || (summary.maxpage <= 1 && summary.page <= 1)) return undefined;
  const of = summary.result !== undefined ? ` of ${summary.result}` : '';
  return `page ${summary.page} of ${summary.maxpage} (${summary.shown}${of} record${summary.shown === 1 && !of ? '' : 's'}); --all for every record`;
}

/**
 * Writes, and when the stream says its buffer is full (a slow reader on the pipe) waits for it
 * to drain: otherwise pages would pile up in memory faster than they leave.
 */
async function writeAndDrain(stream: OutStream, text: string): Promise<void> {
  const full = stream.write(text) === false;
  const emitter = stream as Partial<Pick<NodeJS.WritableStream, 'once' | 'off'>>;
  if (!full || !emitter.once) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      emitter.off?.('drain', done);
      emitter.off?.('close', done);
      resolve();
    };
    emitter.once!('drain', done);
    emitter.once!('close', done);
  });
}

export function footerLine(summary: ListSummary): string | undefined {
  if (summary.all) return `${summary.shown} result${summary.shown === 1 ? '' : 's'}`;
  if (summary.page === undefined || !summary.maxpage) return undefined;
  const partial = partialNote(summary);
  if (partial) return partial;
  const total = summary.result !== undefined ? `, ${summary.result} result${summary.result === 1 ? '' : 's'}` : '';
  const more = summary.page < summary.maxpage ? `; --page ${summary.page + 1} for more, --all for every page` : '';
  return `page ${summary.page} of ${summary.maxpage}${total}${more}`;
}

const BORDERLESS = Object.fromEntries(
  ['top', 'top-mid', 'top-left', 'top-right', 'bottom', 'bottom-mid', 'bottom-left', 'bottom-right', 'left', 'left-mid', 'mid', 'mid-mid', 'right', 'right-mid'].map((k) => [k, '']),
) as Record<string, string>;

/** Spaces between two columns of a terminal table. */
const GAP = 2;

/**
 * Prints a terminal table that fits `options.width`: columns that cannot fit are left out (and
 * returned, for the note that says so), the others shrink; a value longer than its column is
 * shortened by one rule for the whole column (`shorten`), never only on some rows.
 */
async function printTable(rows: Rec[], columns: Column[], options: OutputOptions, out: (s: string) => void, cut: Set<Column> = new Set()): Promise<Column[]> {
  const [{ default: Table }, style] = await Promise.all([import('cli-table3'), styleFor(options.color)]);
  const all = rows.map((record) => columns.map((c) => text(shown(record, c)).replace(/[\r\n\t]+/g, ' ')));
  // Widths are those of the text as shown: control characters become escapes (safe-text.ts).
  const natural = columns.map((c, i) => Math.max(headerOf(c).length, ...all.map((row) => safeText(row[i]!).length)));
  const isUrl = columns.map((_, i) => all.length > 0 && all.every((row) => row[i] === '' || URL_START.test(row[i]!)));
  // The longest scheme and host of a URL column: it stays whole (see `shorten`), so the column is never narrower.
  const origins = columns.map((_, i) => (isUrl[i] ? Math.max(0, ...all.map((row) => originLength(row[i]!))) : 0));
  // Columns asked for by name (--fields) are never left out: on a narrow terminal they are cut
  // instead, every one down to its header (8 characters at least), the widest first, and the note
  // under the table says which were cut.
  const asked = Boolean(options.fields?.length);
  const { keep, widths } = asked
    ? {
        keep: columns.map(() => true),
        widths: fitWidths(natural, options.width, columns.map(() => 0), columns.map((c, i) => Math.min(natural[i]!, Math.max(8, headerOf(c).length, isUrl[i] ? origins[i]! + KEPT_AFTER_ORIGIN : 0)))),
      }
    : layOut(
        natural,
        columns.map((c, i) => narrowest(c, natural[i]!, isUrl[i] ? origins[i]! : undefined)),
        columns.map(giveWay),
        options.width,
        columns.map((c, i) => shrinkFirst(c, isUrl[i]!)),
      );
  if (asked) columns.forEach((c, i) => widths[i]! < natural[i]! && !isUrl[i] && giveWay(c) !== 1 && cut.add(c));
  const kept = columns.filter((_, i) => keep[i]);
  const table = new Table({
    head: options.header ? kept.map((c) => style.bold(headerOf(c))) : [],
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': GAP }, // colour is ours to decide (cli-table3 ignores NO_COLOR)
    chars: { ...BORDERLESS, middle: '' }, // like `gh` and `kubectl`: aligned columns under a bold header
    wordWrap: false,
  });
  const keptIndexes = columns.map((_, i) => i).filter((i) => keep[i]);
  for (const row of all) table.push(keptIndexes.map((i, k) => shorten(row[i]!, widths[k]!, isUrl[i]!)));
  out(`${table.toString().replace(/ +$/gm, '')}\n`);
  return columns.filter((_, i) => !keep[i]);
}

const headerOf = (column: Column) => column.header ?? column.key;
const URL_START = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]/i;

/**
 * `not shown at 80 columns: Created (--fields id,date shows it)`: what a table left out, and the
 * --fields that brings it back (with the first column, which is never left out). Short enough
 * for the terminal it is about.
 */
export function leftOutNote(dropped: Column[], all: Column[], width: number): string | undefined {
  if (!dropped.length) return undefined;
  const fields = [...new Set([all[0]!.key, ...dropped.map((c) => c.key)])].join(',');
  return `not shown at ${width} columns: ${dropped.map(headerOf).join(', ')} (--fields ${fields} shows ${dropped.length === 1 ? 'it' : 'them'})`;
}

/**
 * Which columns are left out first on a narrow terminal: dates (0), then titles and names (1),
 * then the rest (2), the rightmost first within a level. (Which shrink first is `shrinkFirst`.)
 */
function giveWay(column: Column): number {
  if (/date|created|expir/i.test(`${column.key} ${column.header ?? ''}`)) return 0;
  if (/title|description|name/i.test(column.key)) return 1;
  return 2;
}

/**
 * Which columns shrink first while a table is too wide: URLs (0: they keep their scheme, host
 * and the end of their path, and are known by them), then names and titles (1: cut text is
 * lost). Nothing else shrinks (see `narrowest`).
 */
const shrinkFirst = (column: Column, isUrl: boolean): number => (isUrl ? 0 : giveWay(column) === 1 ? 1 : 2);

/**
 * How narrow a column may become: `comfortable`, before a date column is left out to make room;
 * `least`, before any column is left out. Dates, numbers, ids and other values (notes, a
 * sparkline) never shrink: a cut value says something false or half, so such a column is left
 * out whole, and the note under the table says how to see it. Names and titles keep 12
 * characters, then 8; URLs their scheme and host and the end of their path, cut the same way on
 * every row.
 */
function narrowest(column: Column, natural: number, origin: number | undefined): { comfortable: number; least: number } {
  if (origin !== undefined) {
    const least = Math.min(40, Math.max(Math.max(8, headerOf(column).length), origin + KEPT_AFTER_ORIGIN));
    return { comfortable: Math.min(natural, Math.max(24, origin + KEPT_AFTER_ORIGIN, least)), least: Math.min(natural, least) };
  }
  if (giveWay(column) !== 1) return { comfortable: natural, least: natural };
  return { comfortable: Math.min(natural, 12), least: Math.min(natural, 8) };
}

/** Characters a shortened URL keeps after its scheme and host: the ellipsis and the end of its path (an alias, `/qr/1cc79v5`). */
const KEPT_AFTER_ORIGIN = 4;

/** `https://go.example.com` of a URL: its length as shown. */
function originLength(raw: string): number {
  const origin = /^[^:/?#]+:\/\/[^/?#]*/.exec(raw);
  return origin ? safeText(origin[0]).length : 0;
}

/**
 * Which columns to show and how wide. Dates are left out first, while the columns at their
 * comfortable widths do not fit `width`; then any column (names and titles first, then the
 * rightmost; never the first) while they do not fit at their least. The rest shrink to fit
 * (`fitWidths`), none below its least.
 */
export function layOut(natural: number[], narrow: Array<{ comfortable: number; least: number }>, order: number[], width: number, shrink: number[] = order): { keep: boolean[]; widths: number[] } {
  const keep = natural.map(() => true);
  const need = (which: 'comfortable' | 'least') => natural.reduce((sum, _, i) => sum + (keep[i] ? narrow[i]![which] + GAP : 0), -GAP);
  const leaveOut = (allowed: (i: number) => boolean): boolean => {
    const candidates = keep.map((_, i) => i).filter((i) => keep[i] && i > 0 && allowed(i));
    if (candidates.length === 0) return false;
    const level = Math.min(...candidates.map((i) => order[i]!));
    keep[Math.max(...candidates.filter((i) => order[i] === level))] = false;
    return true;
  };
  if (natural.reduce((a, b) => a + b + GAP, -GAP) > width) {
    while (need('comfortable') > width && leaveOut((i) => order[i] === 0));
    while (need('least') > width && leaveOut(() => true));
  }
  const indexes = natural.map((_, i) => i).filter((i) => keep[i]);
  // Every column to its comfortable width before any goes further, down to its least.
  const orderOf = indexes.map((i) => shrink[i]!);
  const comfortable = fitWidths(indexes.map((i) => natural[i]!), width, orderOf, indexes.map((i) => narrow[i]!.comfortable));
  const widths = fitWidths(comfortable, width, orderOf, indexes.map((i) => narrow[i]!.least));
  return { keep, widths };
}

/**
 * A cell (raw text) made safe and, when longer than `width`, shortened by its column's rule: a
 * URL keeps its start (scheme and host whole, so http:// never passes for https://) and its end
 * (the alias, the last part of a path) around an ellipsis; other text keeps its start. The raw text is cut, so an escape is never cut in half.
 */
function shorten(raw: string, width: number, isUrl: boolean): string {
  const value = safeText(raw);
  if (value.length <= width) return value;
  if (!isUrl || width < 12) return safeTruncate(raw, width);
  const chars = Array.from(raw).map((ch) => safeText(ch));
  // Three fifths for the start, more when that keeps the scheme and host whole (the column is made wide enough for that).
  const origin = originLength(raw);
  const headWidth = Math.max(Math.ceil((width - 1) * 0.6), origin <= width - KEPT_AFTER_ORIGIN ? origin : 0);
  let head = '';
  for (const ch of chars) {
    if (head.length + ch.length > headWidth) break;
    head += ch;
  }
  let tail = '';
  for (const ch of chars.reverse()) {
    if (head.length + 1 + tail.length + ch.length > width) break;
    tail = ch + tail;
  }
  return `${head}…${tail}`;
}

/**
 * Shrinks columns until the table fits the terminal: those of least value first (`order`, lower
 * gives way first), within that the widest; none below its `minimum` (8 when not given).
 */
export function fitWidths(natural: number[], terminalWidth: number, order: number[] = natural.map(() => 0), minimum: number[] = natural.map((w) => Math.min(w, 8))): number[] {
  const widths = [...natural];
  const budget = terminalWidth - GAP * (widths.length - 1);
  for (;;) {
    const total = widths.reduce((a, b) => a + b, 0);
    if (total <= budget) return widths;
    const shrinkable = widths.map((w, i) => i).filter((i) => widths[i]! > minimum[i]!);
    if (shrinkable.length === 0) return widths;
    const level = Math.min(...shrinkable.map((i) => order[i]!));
    const candidates = shrinkable.filter((i) => order[i] === level);
    const widest = candidates.reduce((a, b) => (widths[b]! > widths[a]! ? b : a));
    widths[widest] = Math.max(minimum[widest]!, widths[widest]! - Math.max(1, total - budget));
  }
}
