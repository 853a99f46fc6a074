/**
 * CSV as people's exports have it (RFC 4180, read leniently where that loses nothing): cells
 * separated by `,`, `;` or a tab, records by LF, CRLF or CR, quoted cells that may hold the
 * separator, quotes (doubled) and line breaks. Our own small reader rather than a library's,
 * so that a fault is named by its physical line and column in plain words, and a record that
 * cannot be read ends at its line, so the records after it still can (`--skip-invalid`).
 */
import { InputError } from './decode.js';
import type { Delimiter } from './formats.js';

export type { Delimiter };

export interface CsvRecord {
  cells: string[];
  /** The physical line the record starts on. */
  line: number;
  /** The record's own text, for a rejects file. */
  raw: string;
}

/** A record that cannot be read: where, and what is wrong, in plain words. */
export interface CsvFault {
  line: number;
  column: number;
  message: string;
  hint: string;
  /** The line the record starts on (the fault may be on a later one, inside a quoted cell). */
  start: number;
  raw: string;
}


/** A record (a CSV row, a JSON link) longer than this is a quote left open or not a link: every format's cap. */
export const MAX_RECORD = 1 << 20;

/**
 * The delimiter of the header line: the one of `,`, `;` and tab it has most of, outside quotes
 * (a comma in Excel's English locales, a semicolon where the comma is the decimal mark).
 */
export function detectDelimiter(start: string): Delimiter {
  const counts: Record<Delimiter, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of start) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch in counts) counts[ch as Delimiter]++;
  }
  let best: Delimiter = ',';
  for (const d of [';', '\t'] as const) if (counts[d] > counts[best]) best = d;
  return best;
}

const enum State {
  /** At the start of a cell (also of a record). */
  Start,
  Unquoted,
  Quoted,
  /** A quote inside a quoted cell: a doubled quote, or the closing one. */
  QuoteInQuoted,
  /** After a quoted cell's closing quote: only spaces until the delimiter or the line's end. */
  AfterQuote,
  /** In a record that cannot be read: skipping to the end of its line. */
  Skip,
}

export class CsvReader {
  private state = State.Start;
  private cells: string[] = [];
  private cell = '';
  private line = 1;
  private column = 0;
  /** The last character was a CR: an LF right after it ends the same line. */
  private afterCr = false;
  private start = 1;
  private length = 0;
  private rawParts: string[] = [];
  private rawFrom = 0;
  private opened = { line: 0, column: 0 };
  private fault?: Omit<CsvFault, 'raw' | 'start'>;
  /** Nothing of a record read yet (leading line breaks of blank lines). */
  private empty = true;

  constructor(
    private readonly delimiter: Delimiter,
    private readonly onRecord: (record: CsvRecord) => void,
    private readonly onFault: (fault: CsvFault) => void,
  ) {}

  push(text: string): void {
    this.rawFrom = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (ch === '\n' && this.afterCr) {
        // the LF of a CRLF: the line ended at the CR
        this.afterCr = false;
        if (this.state !== State.Quoted) {
          this.rawFrom = i + 1;
          continue;
        }
        this.cell += ch;
        continue;
      }
      this.afterCr = ch === '\r';
      const lineBreak = ch === '\n' || ch === '\r';
      if (this.empty) {
        if (lineBreak) {
          this.newLine();
          this.rawFrom = i + 1;
          continue;
        }
        this.empty = false;
        this.start = this.line;
        this.length = 0;
      }
      this.column++;
      if (++this.length > MAX_RECORD) {
        const open = this.state === State.Quoted ? ` (the quote at line ${this.opened.line}, column ${this.opened.column} may never be closed)` : '';
        throw new InputError(this.start, `the record that starts here is longer than 1 MiB${open}`, 'a link export has short records: check the quotes of this line');
      }
      this.step(ch, lineBreak, text, i);
      if (lineBreak && this.state !== State.Quoted && this.state !== State.QuoteInQuoted) this.rawFrom = i + 1;
    }
    if (!this.empty) this.rawParts.push(text.slice(this.rawFrom));
  }

  /** The end of the input: the last record, or the quote that was never closed. */
  end(): void {
    if (this.state === State.Quoted) {
      throw new InputError(
        this.opened.line,
        `this quote opens a cell that is never closed (the file ends inside it${this.line > this.opened.line ? `, ${this.line - this.opened.line} line${this.line - this.opened.line === 1 ? '' : 's'} later` : ''})`,
        'close the quote, or write a quote that belongs to the text twice ("")',
        this.opened.column,
      );
    }
    if (!this.empty) this.endRecord('', 0);
  }

  /** One character of a record, by the state it finds the reader in. */
  private step(ch: string, lineBreak: boolean, text: string, i: number): void {
    const d = this.delimiter;
    if (this.state === State.Start) {
      if (ch === '"') {
        this.state = State.Quoted;
        this.opened = { line: this.line, column: this.column };
        return;
      }
      this.state = State.Unquoted; // the character starts an unquoted cell
    }
    if (this.state === State.QuoteInQuoted) {
      if (ch === '"') {
        this.cell += '"';
        this.state = State.Quoted;
        return;
      }
      this.state = State.AfterQuote; // the quote closed the cell
    }
    switch (this.state) {
      case State.Unquoted:
        if (ch === d) this.endCell();
        else if (lineBreak) this.endRecord(text, i);
        else if (ch === '"') {
          // Spaces before an opening quote are allowed (` "a, b"`); a quote after other text is not.
          if (this.cell.trim() === '') {
            this.cell = '';
            this.state = State.Quoted;
            this.opened = { line: this.line, column: this.column };
          } else this.skip('a quote (") in the middle of a cell that does not start with one', 'a cell that holds a quote is written in quotes, with the quote doubled: "5"" screen"');
        } else this.cell += ch;
        break;
      case State.Quoted:
        if (ch === '"') this.state = State.QuoteInQuoted;
        else this.cell += ch;
        if (lineBreak) this.newLine();
        break;
      case State.AfterQuote:
        if (ch === d) this.endCell();
        else if (lineBreak) this.endRecord(text, i);
        else if (ch !== ' ' && ch !== '\t') {
          this.skip(
            `text after the closing quote of the cell that opens at line ${this.opened.line}, column ${this.opened.column}`,
            'a quote inside a quoted cell is written twice ("a ""b"" c"), and the cell ends at the delimiter',
          );
        }
        break;
      case State.Skip:
        if (lineBreak) this.endRecord(text, i);
        break;
    }
  }

  private newLine(): void {
    this.line++;
    this.column = 0;
  }

  private skip(message: string, hint: string): void {
    this.fault = { line: this.line, column: this.column, message, hint };
    this.state = State.Skip;
  }

  private endCell(): void {
    this.cells.push(this.cell);
    this.cell = '';
    this.state = State.Start;
  }

  private endRecord(text: string, at: number): void {
    const raw = this.rawParts.join('') + text.slice(this.rawFrom, at);
    this.rawParts = [];
    const start = this.start;
    const fault = this.fault;
    if (this.state !== State.Skip) this.cells.push(this.cell);
    const cells = this.cells;
    this.cells = [];
    this.cell = '';
    this.state = State.Start;
    this.fault = undefined;
    this.empty = true;
    if (text) this.newLine();
    if (fault) this.onFault({ ...fault, start, raw });
    else if (!(cells.length === 1 && cells[0]!.trim() === '')) this.onRecord({ cells, line: start, raw });
  }
}
