/**
 * What an action gets: the streams, the global options, and lazily, the settings and the API
 * client. Everything about terminals (spinner, prompts, colour) is decided here, once.
 */
import type { Command } from 'commander';
import type { ApiClient } from './http/client.js';
import type { Traffic } from './http/rate-limit.js';
export type { Traffic } from './http/rate-limit.js';
import type { AccountReader } from './model/reader.js';
import { InterruptedError, AuthError, ConfigError, ConfirmationNeeded, UsageError } from './errors.js';
import type { FilePolicy, IO } from './io.js';
import { FORMATS, type DocumentFormat, type Format } from './output/types.js';
import { chooseColumns, type OutputOptions } from './output/render.js';
import { safeText } from './output/safe-text.js';
import { wrapMessage } from './output/wrap.js';
import { redact, redactSecrets } from './redact.js';
import type { AllowPrivate } from './http/networks.js';
import { allowanceOf } from './config/allow-private.js';
import type { Column } from './output/types.js';
import { keyLooksValid, resolveSettings, type Settings } from './config/settings.js';
import type { LedgerWriter } from './history/ledger-writer.js';
import type { Policy } from './policy/policy.js';

export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  /** --api-path: where the installation serves its API (src/http/api-path.ts). */
  apiPath?: string;
  /** --as-user ID|EMAIL: run as that user, with their key read through the admin API (src/model/users.ts). */
  asUser?: string;
  json?: boolean;
  output?: Format | DocumentFormat;
  color: boolean;
  debug?: boolean;
  timeout: number;
  maxWait: number;
  yes?: boolean;
  sandbox?: boolean;
  dryRun?: boolean;
  insecureHttp?: boolean;
  fields?: string[];
  header: boolean;
  quiet?: boolean;
  csvRaw?: boolean;
  /** --policy FILE: the policy every write keeps (src/policy/enforce.ts). */
  policy?: string;
  /** --override REASON: see Context.override. */
  override?: string;
}

const SPINNER_DELAY_MS = 150;
/** What an action receives besides its context: commander's parsed arguments and options. */
export interface ActionInput {
  /** Positional arguments after commander's parsing (validators applied). */
  args: unknown[];
  /** The command's own options. */
  opts: Record<string, any>;
}

/** How often a shown spinner's text is computed again (a wait's countdown, bulk progress). */
const SPINNER_REFRESH_MS = 250;

export function truthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/**
 * The sandbox answers as real servers do unless LINKCTL_SANDBOX_DOCUMENTED asks for the shapes
 * of link-api.md; LINKCTL_SANDBOX_QUIRKS=1 (the old opt-in) still means real-server shapes.
 */
export function sandboxQuirks(env: Record<string, string | undefined>): boolean {
  return truthy(env.LINKCTL_SANDBOX_QUIRKS) || !truthy(env.LINKCTL_SANDBOX_DOCUMENTED);
}

/**
 * The CLI's own entry points, for a command that runs other commands in-process (`linkctl mcp`).
 * main() gives them to the context it makes, so that nothing below the entry point imports
 * src/cli.ts (which imports every command: a circle otherwise).
 */
export interface CliEntry {
  main(argv: string[], io: IO): Promise<number>;
  /** `bind` as src/commands/shared/define.ts's Bind, written out: that module imports this one. */
  buildProgram(io: IO, bind: (load: () => Promise<Record<string, unknown>>, name: string) => (...args: unknown[]) => Promise<void>): Command;
}

export class Context {
  /** Set by main() (src/cli.ts). */
  cli?: CliEntry;
  private settingsCache?: Settings;
  private clientCache?: Promise<ApiClient>;
  private readonly cleanups: Array<() => Promise<void> | void> = [];
  private spinner?: { text: string; stop(): void; start(): unknown };
  private spinnerTimer?: NodeJS.Timeout;
  private pending = 0;
  private statusText = 'Working';
  /** A line that stays on the terminal until cleared (bulk progress): shown again after any other message. */
  private lasting?: () => string;
  /** progress() shows its text at once, without a request. */
  private immediate = false;
  private refreshTimer?: NodeJS.Timeout;
  private closed = false;
  /** What the client reported (bulk progress reads it for its ETA). */
  readonly traffic: Traffic = { requests: 0, waits: 0, waitedMs: 0 };
  /**
   * What the whole run shares, row contexts of `--from` included (they inherit this object): the
   * account reader, so every lookup of the run is answered from one read of each collection.
   */
  private readonly run: { reader?: Promise<AccountReader>; ledger?: Promise<LedgerWriter> } = {};
  /**
   * The policy of the run, once read (src/policy/enforce.ts): held in an object the row contexts
   * of `--from` inherit, so that the run reads it once, not once a row (the config file looked
   * for again for each of them).
   */
  readonly policyRead: { policy?: Policy; read?: true } = {};
  /** The command being run (`link add`), set by main(): the ledger records it with each write. */
  command?: string;
  /** `--as-user`: the user this run acts as (`7 <jane@example.com>`), once their key has been read; the ledger records it. */
  actingAs?: string;
  /** Where the client sends: 'sandbox' for the built-in one, else its base URL (the ledger's `server`). */
  private server?: string;
  /** The built-in sandbox's origin once its client exists (`--sandbox`): `check` may request it, and only it, on loopback. */
  sandboxOrigin?: string;
  /** The question being asked, if any: the next waits for its answer. */
  private asking: Promise<unknown> = Promise.resolve();
  /** Secret values met while running (passwords taken from the environment): redacted from messages and --debug traces. */
  readonly secrets: string[] = [];
  /** Which local files this command may read and write (src/files/access.ts); a `--from` row's context has its own. */
  readonly files: FilePolicy;

  constructor(
    readonly io: IO,
    readonly globals: GlobalOptions,
    /** The `-o` documents this command prints (`plan`: markdown). */
    private readonly documents: readonly DocumentFormat[] = [],
  ) {
    this.files = io.files ?? {};
  }

  /**
   * The person's reason for passing a policy violation (`--override "REASON"`); the ledger records
   * it with each write. Undefined without the flag. `linkctl mcp` passes it on only when the user
   * started the server with --allow-override.
   */
  get override(): string | undefined {
    return this.globals.override;
  }

  get env(): Record<string, string | undefined> {
    return this.io.env;
  }

  get format(): Format {
    if (this.globals.json && this.globals.output && this.globals.output !== 'json') {
      throw new UsageError(`--json and --output ${this.globals.output} disagree; give one of them`, 'use --json alone, or -o with the format you want');
    }
    const output = this.globals.output;
    if (output === 'markdown') {
      // A document only some commands print; theirs reads `document`, and messages show as text.
      if (!this.documents.includes(output)) throw new UsageError(`-o ${output} is only for \`linkctl plan\` (a pull-request comment); here use ${FORMATS.join(', ')}`, 'e.g. -o table, or -o csv for a spreadsheet');
      return 'table';
    }
    return output ?? (this.globals.json ? 'json' : 'table');
  }

  /** The document `-o` asks this command for (`plan -o markdown`), if any. */
  get document(): DocumentFormat | undefined {
    const output = this.globals.output;
    return output === 'markdown' && this.documents.includes(output) ? output : undefined;
  }

  get sandboxMode(): boolean {
    return Boolean(this.globals.sandbox) || truthy(this.env.LINKCTL_SANDBOX);
  }

  /** Prompts and confirmations are possible: a person is at the keyboard. */
  get interactive(): boolean {
    return Boolean(this.io.stdin.isTTY && this.io.stderr.isTTY);
  }

  /** Colour on a terminal unless the user said no: --no-color, NO_COLOR, TERM=dumb. */
  private colorAllowed(): boolean {
    return this.globals.color !== false && !this.env.NO_COLOR && this.env.TERM !== 'dumb';
  }

  outputOptions(): OutputOptions {
    const tty = Boolean(this.io.stdout.isTTY);
    return {
      format: this.format,
      tty,
      color: tty && this.colorAllowed(),
      fields: this.globals.fields,
      header: this.globals.header !== false,
      quiet: Boolean(this.globals.quiet),
      width: this.io.stdout.columns || 100, // 0 when the terminal does not say
      csvRaw: Boolean(this.globals.csvRaw),
    };
  }

  /** The streams the output layer writes to: the spinner stops before the first byte of output. */
  outputStreams(): { stdout: IO['stdout']; stderr: IO['stderr'] } {
    const quiet = (stream: IO['stdout']) => {
      const wrapped: IO['stdout'] & Partial<Pick<NodeJS.WritableStream, 'once' | 'off'>> = {
        isTTY: stream.isTTY,
        columns: stream.columns,
        write: (chunk: string) => {
          // stdout to a file leaves the terminal's line alone (`link add --from big.csv > out.csv`).
          if (stream === this.io.stderr || stream.isTTY) this.pauseSpinner();
          // Data a server sent may hold the key (a server that echoes it into a title): never printed.
          const safe = redactSecrets(chunk, this.secrets);
          // Notes under a table or a record are prose: wrapped at word boundaries on a terminal, as warn() does.
          if (stream === this.io.stderr && stream.isTTY) return stream.write(wrapMessage(safe, stream.columns));
          return stream.write(safe);
        },
      };
      // The output layer waits for 'drain' on a real stream (a slow reader): pass the events on.
      const events = stream as Partial<Pick<NodeJS.WritableStream, 'once' | 'off'>>;
      if (events.once && events.off) {
        wrapped.once = events.once.bind(stream);
        wrapped.off = events.off.bind(stream);
      }
      return wrapped;
    };
    return { stdout: quiet(this.io.stdout), stderr: quiet(this.io.stderr) };
  }

  /**
   * Checks the output flags against the columns a command will show, before it sends anything:
   * a change must not be carried out and then reported as a usage error.
   */
  checkOutput(columns?: Column[]): void {
    void this.format; // --json and --output disagreeing throws here
    if (columns) chooseColumns(columns, this.globals.fields);
  }

  settings(): Settings {
    this.settingsCache ??= resolveSettings(this.globals, this.env);
    return this.settingsCache;
  }

  /** The server as the ledger names it ('sandbox', or the client's base URL): what plan asks the ledger about. */
  async ledgerServer(): Promise<string> {
    const client = await this.client();
    return this.server ?? client.base.href.replace(/\/+$/, '');
  }

  private settingsOrUndefined(): Settings | undefined {
    try {
      return this.settings();
    } catch {
      return undefined;
    }
  }

  /** A line for the person at the terminal (stderr, never stdout); a spinner or progress line is cleared first. */
  warn(message: string): void {
    this.pauseSpinner();
    // Warnings and --debug lines quote servers and files: made safe for the terminal here, once;
    // then wrapped at word boundaries to the terminal's width (never mid-word by the terminal).
    this.io.stderr.write(`${wrapMessage(safeText(message, true), this.io.stderr.isTTY ? this.io.stderr.columns : undefined)}\n`);
    if (this.lasting) void this.showSpinner();
  }

  /** Progress text: the spinner's on a terminal, nothing elsewhere. */
  status(text: string): void {
    this.statusText = text;
    this.updateSpinner();
  }

  /**
   * A progress line that stays on a terminal (bulk runs) until `undefined` ends it: shown at once,
   * computed again every SPINNER_REFRESH_MS (so it moves through rate-limit waits), and drawn
   * again after any other message. Returns false where there is no such line (not a terminal,
   * CI, --quiet, --debug): the caller writes whole lines instead.
   */
  lastingStatus(text: (() => string) | undefined): boolean {
    if (!text) {
      this.lasting = undefined;
      this.pauseSpinner();
      return true;
    }
    if (!this.spinnerAllowed) return false;
    this.lasting = text;
    void this.showSpinner();
    return true;
  }

  /** The wait under way, as people read it (`waiting 42 s: the rate-limit window is used up`), counting down. */
  waitNote(): string | undefined {
    const wait = this.traffic.wait;
    if (!wait) return undefined;
    const seconds = Math.max(0, (wait.endsAtMs - Date.now()) / 1000);
    if (seconds <= 0) return undefined;
    return `waiting ${seconds < 10 ? seconds.toFixed(1) : Math.ceil(seconds)} s: ${wait.reason}`;
  }

  /**
   * Progress of work other than API requests (`check` waiting on destinations): the spinner
   * shows it at once on a terminal, where `status` waits for a request to take a while.
   */
  progress(text: string): void {
    this.statusText = text;
    this.immediate = true;
    if (this.spinner) this.updateSpinner();
    else if (this.spinnerAllowed && !this.closed) void this.showSpinner();
  }

  client(): Promise<ApiClient> {
    this.clientCache ??= this.createClient();
    return this.clientCache;
  }

  /** The run's account reader (src/model/reader.ts): each collection read at most once per run. */
  reader(): Promise<AccountReader> {
    this.run.reader ??= (async () => {
      const [{ AccountReader }, client] = await Promise.all([import('./model/reader.js'), this.client()]);
      return new AccountReader(client, { status: (text) => this.status(text) });
    })();
    return this.run.reader;
  }

  private async createClient(): Promise<ApiClient> {
    const { configDir } = await import('./config/paths.js');
    let baseUrl: string;
    let baseUrlName: string | undefined;
    let apiKey: string;
    let apiPath: string | undefined;
    if (this.sandboxMode) {
      const { startSandbox, SANDBOX_KEY } = await import('./sandbox/server.js');
      const { defaultStateFile, findRunning } = await import('./sandbox/running.js');
      const { mkdirSync } = await import('node:fs');
      const dir = configDir(this.env);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // a `sandbox serve` on the same state file: use it, so the URLs printed answer while it runs
      const running = findRunning(dir);
      if (running) {
        baseUrl = running.url;
        apiKey = SANDBOX_KEY;
        apiPath = running.apiPath;
      } else {
        const { sandboxEnvironment } = await import('./sandbox/settings.js');
        // --api-path (or LINKCTL_API_PATH) serves the embedded sandbox's API there, as `sandbox serve --api-path` does
        const { normaliseApiPath } = await import('./http/api-path.js');
        const asked = this.globals.apiPath ? normaliseApiPath(this.globals.apiPath) : this.env.LINKCTL_API_PATH ? normaliseApiPath(this.env.LINKCTL_API_PATH, 'LINKCTL_API_PATH') : undefined;
        // no rate limit and every feature unless LINKCTL_SANDBOX_RATE_LIMIT / LINKCTL_SANDBOX_PLAN ask otherwise
        const sandbox = await startSandbox({ port: 0, stateFile: defaultStateFile(dir), quirks: sandboxQuirks(this.env), apiPath: asked, seed: { demo: true }, ...sandboxEnvironment(this.env) });
        this.cleanups.push(() => sandbox.close());
        baseUrl = sandbox.url;
        apiKey = sandbox.key;
        apiPath = sandbox.apiPath;
      }
      // Its port changes from run to run: the ledger knows one sandbox, the one in this state folder.
      this.server = 'sandbox';
      this.sandboxOrigin = new URL(baseUrl).origin;
    } else {
      const settings = this.settings();
      if (!settings.baseUrl) {
        throw new ConfigError(
          `no base URL for profile "${settings.profile.value}"`,
          'run `linkctl auth login --base-url https://your-server`, set LINKCTL_BASE_URL, or try `linkctl --sandbox ...`',
        );
      }
      if (!settings.apiKey) {
        throw new AuthError(
          `no API key for profile "${settings.profile.value}"`,
          'run `linkctl auth login`, or set LINKCTL_API_KEY',
        );
      }
      baseUrl = settings.baseUrl.value;
      baseUrlName = { flag: '--base-url', environment: 'LINKCTL_BASE_URL' }[settings.baseUrl.source as string] ?? `the base URL of profile "${settings.profile.value}"`;
      apiKey = settings.apiKey.value;
      apiPath = settings.apiPath.value;
      if (!keyLooksValid(apiKey)) {
        const where = settings.apiKey.source === 'environment' ? 'LINKCTL_API_KEY' : `the key of profile "${settings.profile.value}"`;
        throw new AuthError(`${where} contains white space or control characters, which no API key has`, 'copy the key again, without line breaks');
      }
    }
    const own = await this.clientFor(baseUrl, apiKey, { baseUrlName, apiPath });
    if (this.globals.asUser === undefined) return own;
    // --as-user: the user's key, read through the admin API with the profile's key, held here
    // only (in the client made for it and among the run's secrets, which are redacted from
    // everything printed or written); the ledger records the user with each write.
    const { actAs } = await import('./model/users.js');
    const user = await actAs(own, this.globals.asUser);
    this.actingAs = user.label;
    return this.clientFor(baseUrl, user.key, { baseUrlName, apiPath });
  }

  /**
   * A client for an explicit base URL and key (`auth login` checks a key before saving it).
   * `baseUrlName` is where the URL came from, for the message if it is not a URL; `apiPath`
   * where the installation serves its API (default /api).
   */
  async clientFor(baseUrl: string, apiKey: string, options: { baseUrlName?: string; apiPath?: string } = {}): Promise<ApiClient> {
    // The key joins the run's secrets: removed from everything printed or written (outputStreams, prepareWrite).
    if (apiKey && !this.secrets.includes(apiKey)) this.secrets.push(apiKey);
    const { ApiClient } = await import('./http/client.js');
    // The ledger (and the history database behind it) loads at the run's first write only: a
    // command that only reads loads none of it (test/startup.test.ts).
    const ledger = () => (this.run.ledger ??= import('./history/ledger-writer.js').then(({ LedgerWriter }) => {
      const writer = new LedgerWriter({
        env: this.env,
        where: () => ({ profile: this.sandboxMode ? null : this.settingsOrUndefined()?.profile.value ?? null, server: this.server ?? client.base.href.replace(/\/+$/, ''), asUser: this.actingAs ?? null }),
        command: () => this.command ?? 'linkctl',
        via: () => (this.io.agent ? 'mcp' : truthy(this.env.GITHUB_ACTIONS) ? 'action' : 'cli'),
        override: () => this.override,
        secrets: this.secrets,
        warn: (message) => this.warn(message),
      });
      this.cleanups.push(() => writer.close());
      return writer;
    }));
    const client: ApiClient = new ApiClient({
      baseUrl,
      baseUrlName: options.baseUrlName,
      apiPath: options.apiPath,
      apiKey,
      timeoutMs: this.globals.timeout * 1000,
      maxWaitMs: this.globals.maxWait * 1000,
      env: this.env,
      signal: this.io.signal,
      dryRun: this.globals.dryRun,
      insecureHttp: this.globals.insecureHttp,
      rate: this.io.pacing,
      outboundAllow: () => this.outboundAllow(),
      events: {
        debug: this.globals.debug ? (line) => this.warn(`[debug] ${redact(line, this.secrets)}`) : undefined,
        wait: (seconds, reason) => this.waiting(seconds, reason),
        rate: (rate) => this.noteRate(rate),
        requestStart: () => this.requestStarted(),
        requestEnd: () => this.requestEnded(),
        changed: () => this.io.onChange?.(),
        written: async (write) => (await ledger()).record(write),
        writing: () => void ledger().then((writer) => writer.prepare(), () => undefined),
      },
    });
    return client;
  }

  /**
   * Private networks a file a server names (a QR image on another origin) may come from: those
   * `check` may request (LINKCTL_CHECK_ALLOW_PRIVATE, else the profile's checkAllowPrivate, read
   * as `check` reads them), none for an agent. A value that does not parse allows nothing here
   * (`check` refuses it and names it).
   */
  private outboundAllow(): AllowPrivate {
    if (this.io.agent) return [];
    try {
      return allowanceOf(undefined, this)?.allow ?? [];
    } catch {
      return [];
    }
  }

  /**
   * A spinner (or progress line) on stderr: a terminal that says how wide it is (ora divides by
   * the width: a pseudo-terminal of 0 columns would make it clear lines without end), not CI, and
   * stdout on that terminal too, showing a table, or in a file (`link add --from big.csv >
   * out.csv`). With stdout in a pipe (`qr get 1 | head`), what reads it often writes to the same
   * terminal, between the spinner's redraws: it would be left with a frame of the spinner
   * (`⠙ reading the code's image`) in its lines.
   */
  private get spinnerAllowed(): boolean {
    const sized = (this.io.stderr.columns ?? 0) > 0;
    const dataElsewhere = this.io.stdout.isTTY ? this.format === 'table' : Boolean(this.io.stdout.isFile);
    return Boolean(this.io.stderr.isTTY) && dataElsewhere && sized && !truthy(this.env.CI) && this.env.TERM !== 'dumb' && !this.globals.quiet && !this.globals.debug;
  }

  private noteRate(rate: { limit?: number; remaining: number; resetAtMs: number }): void {
    // The first answer of a window: its reset is one window length away.
    if (rate.limit !== undefined && rate.remaining === rate.limit - 1) {
      const now = Date.now();
      this.traffic.windowMs = Math.max(0, rate.resetAtMs - now);
      // From one window's first answer to the next: the window, its reset's rounding to a second and the wait past it.
      if (this.traffic.windowStartedAt !== undefined) this.traffic.cycleMs = now - this.traffic.windowStartedAt;
      this.traffic.windowStartedAt = now;
    }
    this.traffic.rate = rate;
  }

  private requestStarted(): void {
    this.pending++;
    this.traffic.requests++;
    this.traffic.wait = undefined;
    this.updateSpinner();
    if (!this.spinnerAllowed || this.spinner || this.spinnerTimer) return;
    // Only requests that take a while get a spinner: quick commands never load ora.
    this.spinnerTimer = setTimeout(() => {
      this.spinnerTimer = undefined;
      if (this.pending > 0) void this.showSpinner();
    }, SPINNER_DELAY_MS);
  }

  private requestEnded(): void {
    this.pending = Math.max(0, this.pending - 1);
  }

  /**
   * A rate-limit wait: on a terminal the spinner says so at once and counts down; elsewhere a line
   * on stderr for long ones. The client's pacing knows the window ends then: nothing remains in it.
   */
  private waiting(seconds: number, reason: string): void {
    const endsAtMs = Date.now() + seconds * 1000;
    this.traffic.waits++;
    this.traffic.waitedMs += seconds * 1000;
    this.traffic.wait = { endsAtMs, reason };
    if (this.traffic.rate) this.traffic.rate = { ...this.traffic.rate, remaining: 0, resetAtMs: endsAtMs };
    if (!this.spinnerAllowed) {
      if (seconds >= 1) this.warn(this.waitNote() ?? `waiting: ${reason}`);
      return;
    }
    if (this.spinner) this.updateSpinner();
    else void this.showSpinner();
  }

  private async showSpinner(): Promise<void> {
    const { default: ora } = await import('ora');
    // Still wanted once ora has loaded: a request under way, a wait, a lasting line or progress().
    if (this.spinner || this.closed || !(this.pending > 0 || this.lasting || this.immediate || this.waitNote())) return;
    // isEnabled: the decision is made above, once; ora's own test reads process.env, not ours.
    // Its colour follows ours (NO_COLOR, --no-color, TERM=dumb): ora's chalk does not read NO_COLOR.
    const color = this.colorAllowed() ? 'cyan' : false;
    this.spinner = ora({ text: this.spinnerText(), stream: this.io.stderr as NodeJS.WritableStream, discardStdin: false, isEnabled: true, color }).start();
    this.refreshTimer ??= setInterval(() => this.updateSpinner(), SPINNER_REFRESH_MS);
    this.refreshTimer.unref?.();
  }

  private spinnerText(): string {
    const status = this.lasting?.() ?? this.statusText;
    const wait = this.waitNote();
    const text = wait ? `${status}; ${wait}` : status;
    // One line: a spinner that wraps cannot redraw itself.
    const width = (this.io.stderr.columns || 80) - 3;
    return text.length > width ? `${text.slice(0, width - 1)}…` : text;
  }

  private updateSpinner(): void {
    if (this.spinner) this.spinner.text = this.spinnerText();
  }

  private pauseSpinner(): void {
    if (this.spinnerTimer) clearTimeout(this.spinnerTimer);
    this.spinnerTimer = undefined;
    clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
    this.spinner?.stop();
    this.spinner = undefined;
  }

  /**
   * Confirmation for destructive commands: --yes skips it; a terminal asks; anything else
   * refuses (exit 2) so a script never deletes by accident.
   */
  async confirm(question: string, hint?: string): Promise<void> {
    if (this.globals.yes || this.globals.dryRun) return;
    if (!this.interactive) throw new ConfirmationNeeded(question, hint);
    // Work in flight together (--concurrency) asks its questions one after the other: a terminal shows one at a time.
    const asked = this.asking.then(async () => {
      const ask = this.io.confirm ?? (await import('./prompt.js')).confirm(this.io);
      return ask(safeText(question));
    });
    this.asking = asked.catch(() => undefined);
    if (!(await asked)) throw new UsageError('cancelled; nothing was changed');
  }

  /**
   * A password given by `--password` (hidden prompt) or `--password-stdin`, the pair of flags that
   * account update and link add/update share; undefined when neither was given.
   */
  async password(opts: { password?: unknown; passwordStdin?: unknown }, what: string): Promise<string | undefined> {
    if (opts.password && opts.passwordStdin) throw new UsageError('give --password or --password-stdin, not both', '--password asks on the terminal; --password-stdin reads a pipe: keep the one that fits');
    if (!opts.password && !opts.passwordStdin) return undefined;
    return this.secret(what, '--password', Boolean(opts.passwordStdin), true);
  }

  /**
   * A secret from a hidden prompt on a terminal, or from stdin when `fromStdin`. Never from argv.
   * With `repeat`, the prompt asks twice and the answers must match (a typo cannot be seen).
   */
  async secret(what: string, flag: string, fromStdin: boolean, repeat = false): Promise<string> {
    let value: string;
    if (fromStdin) {
      value = (await this.readStdin()).replace(/\r?\n$/, '');
    } else {
      if (!this.interactive) throw new UsageError(`${flag} needs a terminal to ask for ${what}; use ${flag}-stdin to read it from stdin`, `e.g. printf %s "$SECRET" | linkctl ... ${flag}-stdin`);
      const ask = this.io.promptSecret ?? (await import('./prompt.js')).promptSecret(this.io);
      value = await ask(`${what[0]!.toUpperCase()}${what.slice(1)}: `);
      if (repeat && value.trim() && (await ask(`Repeat ${what.replace(/^the /, '')}: `)) !== value) {
        throw new UsageError(`the two entries of ${what} differ; nothing was changed`, 'run the command again and type the same password twice');
      }
    }
    if (!value.trim()) throw new UsageError(`${what} must not be empty`, fromStdin ? `pipe it in, e.g. printf %s "$SECRET" | linkctl ... ${flag}-stdin` : 'type it at the prompt, then Enter');
    return value;
  }

  async readStdin(): Promise<string> {
    const chunks: string[] = [];
    for await (const chunk of this.io.stdin) {
      if (this.io.signal?.aborted) throw new InterruptedError();
      chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    }
    return chunks.join('');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.lasting = undefined;
    this.pauseSpinner();
    for (const cleanup of this.cleanups.splice(0).reverse()) await cleanup();
  }
}
