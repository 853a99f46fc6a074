/** What actions return. Actions never print; `render()` decides how data looks. */
export type Rec = Record<string, unknown>;

export interface Column {
  /** The name used by --fields and as the JSON key. */
  key: string;
  header?: string;
  /** How to read the value when it is not simply `record[key]` (for example, key variants across servers). */
  value?: (record: Rec) => unknown;
  /** How people see the value in a table, csv or tsv ("never" for a null expiry); JSON keeps the value. */
  show?: (record: Rec) => unknown;
  /** Left out of the default table; still available through --fields. */
  optional?: boolean;
}

export interface ListSummary {
  page?: number;
  maxpage?: number;
  result?: number;
  shown: number;
  all: boolean;
}

export interface BarSection {
  /** The field name, for the `key.label<TAB>count` lines a pipe gets. */
  key?: string;
  title: string;
  entries: Array<[label: string, count: number]>;
}

export type Result = (
  /** Nothing to print (`linkctl mcp`, whose stdout carried the protocol). */
  | { kind: 'none' }
  | {
      kind: 'list';
      /** Pages of records, streamed to the output as they arrive. */
      pages: AsyncIterable<Rec[]>;
      columns: Column[];
      /** Known once every page was read: the footer on a terminal. */
      summary?: () => ListSummary | undefined;
      /** Lines for people after the records, on stderr whatever the format (caveats, where the data came from). */
      note?: string;
      /**
       * A terminal table in groups, each under its title (`check`: one group per problem); the
       * records it returns are the table's rows. Other formats print the records as they are.
       */
      groups?: (records: Rec[]) => Array<{ title: string; records: Rec[] }>;
    }
  | {
      kind: 'record';
      record: Rec;
      columns: Column[];
      /** What --json prints; the record by default. */
      json?: unknown;
      /** Horizontal bar charts shown after the fields, for people only. */
      bars?: BarSection[];
      /** A line under the record, for people only (for example "no statistics for this code"). */
      note?: string;
    }
  | {
      kind: 'message';
      message: string;
      /** What --json prints. */
      json: unknown;
    }
  | { kind: 'raw'; json: unknown }
  /** A document written as it is (an exported account file), whatever the output format; streamed when given in pieces. */
  | { kind: 'text'; text: string | AsyncIterable<string> }
) & {
  /** Exit with this code after printing (for example `auth status` without a valid key). */
  exitCode?: number;
};

export type Format = 'table' | 'json' | 'ndjson' | 'csv' | 'tsv';
export const FORMATS: readonly Format[] = ['table', 'json', 'ndjson', 'csv', 'tsv'];
/**
 * Output formats that are a document of one command rather than a way to show any result:
 * `plan -o markdown` (a pull-request comment). A command prints one only if it says so
 * (`documentFormats` in src/commands/shared/define.ts); every other command refuses it.
 */
export type DocumentFormat = 'markdown';
export const DOCUMENT_FORMATS: readonly DocumentFormat[] = ['markdown'];
