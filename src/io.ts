/** The streams and environment a command runs with; `main()` receives them so tests can run in-process. */
import type { ListSummary } from './output/types.js';
import type { AllowPrivate } from './http/networks.js';

export interface OutStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
  /** A regular file (`> out.csv`): nothing reads it meanwhile, so a terminal's progress line cannot mix with it. */
  isFile?: boolean;
}

export interface InStream extends AsyncIterable<Buffer | string> {
  isTTY?: boolean;
}

/**
 * Which local files a command may read and write beyond what a person types (src/files/access.ts
 * applies it). undefined root: the CLI, anywhere. A folder: only inside it (relative paths are
 * relative to it), never inside the config folder (`linkctl mcp --root DIR`). null: no files
 * (`linkctl mcp` without --root).
 */
export interface FilePolicy {
  root?: string | null;
  /** Reads are refused with this reason (the rows of a `--from` file: cells are data). */
  noReads?: string;
}

export interface IO {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
  env: Record<string, string | undefined>;
  /** Aborted on Ctrl-C; requests in flight stop and the command exits 130. */
  signal?: AbortSignal;
  /** Asks for a secret without echo. Tests replace it; the default uses the terminal. */
  promptSecret?: (question: string) => Promise<string>;
  /** Told when the server has carried out a change (a request other than GET succeeded). */
  onChange?: () => void;
  /** Asks for a line of text, echoed. Tests replace it; the default uses the terminal. */
  prompt?: (question: string) => Promise<string>;
  /** Asks a yes/no question. Tests replace it; the default uses the terminal. */
  confirm?: (question: string) => Promise<boolean>;
  /**
   * Rate-limit state kept across runs of main() in one process (`linkctl mcp` runs one per tool
   * call): the API client reads and updates it, so pacing carries from one call to the next.
   */
  pacing?: { remaining?: number; resetAtMs?: number };
  /** Which files the command may read and write; the CLI's own (undefined): any. */
  files?: FilePolicy;
  /** The run is a tool call of `linkctl mcp`: an agent asked, not a person (check requests private addresses only as checkAllowPrivate says then). */
  agent?: boolean;
  /** For a tool call: the private networks the user allowed when starting `linkctl mcp` (check's --allow-private, its env or profile setting). */
  checkAllowPrivate?: { allow: AllowPrivate; from: string };
  /**
   * Told, once a list was printed, what the list knew of itself (page, pages, records in all):
   * `linkctl mcp` pages its answers by it, and says it in its own terms.
   */
  listed?: (summary: ListSummary | undefined) => void;
  /**
   * Makes the process leave the terminal's modes alone when it exits (src/run.ts): for a
   * long-running command that never reads the terminal (`sandbox serve`), often run with `&`.
   */
  releaseTerminal?: () => void;
  /**
   * For a long-running command whose stdout is a stream (`listen --json | head -1`): `stopped` is
   * called when stdout's reader went away (EPIPE), so the command stops and says so. Without
   * one, the process ends quietly then (a list cut short by `head` is no failure).
   */
  onStdoutClosed?: (stopped: (code: string) => void) => void;
}
