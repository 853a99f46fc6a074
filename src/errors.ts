/**
 * Typed errors. Every failure a user can meet is one of these; `main()` is the only
 * place that turns them into an exit code and a message.
 */
export const ExitCode = {
  ok: 0,
  api: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  rateLimited: 5,
  network: 6,
  config: 7,
  noHistory: 8,
  interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit-code table, shown in `--help` and the README. */
export const EXIT_CODE_HELP = `Exit codes:
  0    success, an empty list included
  1    the API answered with an error (its message is printed)
  2    usage or validation error; nothing was sent
  3    authentication or permission: no key, key rejected
  4    not found: the API says the id does not exist
  5    rate limited longer than --max-wait allows
  6    network or protocol failure: unreachable, timeout, redirect, non-JSON answer, unknown outcome
  7    configuration error: unreadable or corrupt config, unknown profile
  8    nothing to show yet: no click history of this account (run \`linkctl stats snapshot\`)
  130  interrupted`;

export class CliError extends Error {
  readonly exitCode: ExitCodeValue;
  /** A next step for the user, printed on its own line. */
  readonly hint?: string;
  constructor(message: string, exitCode: ExitCodeValue, hint?: string) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.hint = hint;
  }
}

/** Bad flags or arguments. Thrown before anything is sent. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.usage, hint);
  }
}

/** What a question nobody can answer (no terminal, no --yes) is refused with: `linkctl mcp` says it in its own terms. */
export const UNCONFIRMED = 'refusing without a terminal to confirm; pass --yes';

/** A change that asks first, refused where nobody can answer: `Delete pixel 1: refusing without a terminal to confirm; pass --yes`. */
export class ConfirmationNeeded extends UsageError {
  constructor(question: string, hint?: string) {
    super(`${question.replace(/\?$/, '')}: ${UNCONFIRMED}`, hint);
  }
}

/** The API answered `error: 1` (or true); the message is the server's. */
export class ApiError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.api, hint);
  }
}

export class AuthError extends CliError {
  constructor(message: string, hint = 'run `linkctl auth status` to see which key is in use') {
    super(message, ExitCode.auth, hint);
  }
}

export class NotFoundError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.notFound, hint);
  }
}

export class RateLimitError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.rateLimited, hint);
  }
}

/** Unreachable server, timeout, redirect, non-JSON or incomplete answer, unknown outcome. */
export class NetworkError extends CliError {
  /**
   * Set when a smaller request might succeed where this one failed: the answer was larger than
   * linkctl reads, or did not arrive within --timeout. Full reads then ask for smaller pages.
   */
  reason?: 'too-large' | 'timeout';
  /**
   * The HTTP status of an answer that was not the API's JSON (an HTML page, a redirect): a 3xx or
   * 4xx one says the request was not carried out (no route, wrong method, refused before the API),
   * which the ledger records as failed, not unknown.
   */
  status?: number;
  constructor(message: string, hint?: string, reason?: 'too-large' | 'timeout') {
    super(message, ExitCode.network, hint);
    if (reason) this.reason = reason;
  }
}

export class ConfigError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.config, hint);
  }
}

/** `stats show`, `top`, `report` before any snapshot of the account: not a misconfiguration, a history not begun. */
export class NoHistoryError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.noHistory, hint);
  }
}

export class InterruptedError extends CliError {
  /** The write was sent before the interruption and its answer not read: the server may have carried it out. */
  readonly sent: boolean;
  constructor(message = 'interrupted', hint?: string, sent = false) {
    super(message, ExitCode.interrupted, hint);
    this.sent = sent;
  }
}
