/**
 * How a write reaches the ledger: the API client (src/http/client.ts, the only path to the API)
 * calls `LedgerWriter.record` after every request other than a GET, whatever command, `--from`
 * row, import, apply, the Action or an MCP tool sent it. This file turns the request into an
 * entry (resource, id, fields without secrets, outcome) and appends it (./ledger.ts).
 *
 * Where: the history database (`LINKCTL_DB`, else history.db in the state folder: the database
 * `stats snapshot` writes), opened at the first write of a run and created then if needed; one
 * connection per run, entries appended one after the other (a `--from` run in parallel too).
 * A ledger that cannot be written never turns a write the server did into a failure: the person
 * is told on stderr, once per run, and the command's result stands.
 */
import { ApiError, AuthError, InterruptedError, NetworkError, NotFoundError, RateLimitError } from '../errors.js';
import { LINK_FIELDS } from '../model/link-fields.js';
import { MODELS } from '../model/index.js';
import { ACCOUNT_PATH } from '../model/account.js';
import type { Body } from '../http/envelope.js';
import type { Db } from './db.js';
import { NO_RECORD, type Fields, type NewEntry, type Outcome } from './ledger.js';

/** A request other than GET, as the client saw it end. */
export interface WriteSeen {
  method: string;
  path: string;
  json?: unknown;
  result?: Body;
  error?: unknown;
}

export interface WriterContext {
  env: Record<string, string | undefined>;
  /** The profile and the server (and the user a write is made as, with --as-user), asked only when a write is recorded. */
  where(): { profile: string | null; server: string; asUser?: string | null };
  command(): string;
  via(): string;
  override(): string | undefined;
  /** Secret values met while running (passwords from the environment): never stored even under another key. */
  secrets: readonly string[];
  warn(message: string): void;
}

/**
 * The API's path words (`url` in the path of a link's update), as linkctl's commands name the resources
 * (`link`): from each model's paths (src/model/), and the account's.
 */
const RESOURCES: Record<string, string> = Object.fromEntries([
  ...Object.values(MODELS).flatMap((m) => [m.item(1), m.list, m.add].filter((p): p is string => p !== undefined).map((p) => [p.split('/')[1]!, m.command])),
  [ACCOUNT_PATH.split('/')[1]!, 'account'],
]);

/** Body keys whose values are secrets (the model's `sensitive` marks, the wifi code's `pass`, anything called a key or token). */
const SENSITIVE_BODIES = new Set<string>((LINK_FIELDS as ReadonlyArray<{ body: string; sensitive?: true }>).filter((f) => f.sensitive).map((f) => f.body));
const SECRET_KEY = /^(pass|.*password.*|.*secret.*|.*token.*|api_?key|apikey|key)$/i;
/** What the ledger holds in a secret's place: that one was set, never what it was. */
export const SECRET_SET = '(secret, not recorded)';

export function withoutSecrets(value: unknown, secrets: readonly string[] = []): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutSecrets(v, secrets));
  if (value && typeof value === 'object') {
    const out: Fields = {};
    for (const [key, v] of Object.entries(value)) {
      if (SENSITIVE_BODIES.has(key) || SECRET_KEY.test(key)) out[key] = v === '' || v === null || v === undefined ? v : SECRET_SET;
      else out[key] = withoutSecrets(v, secrets);
    }
    return out;
  }
  if (typeof value === 'string') {
    let text = value;
    for (const secret of secrets) if (secret && secret.length >= 4) text = text.split(secret).join(SECRET_SET);
    // A wifi code's text (`WIFI:S:Office;T:WPA;P:s3cret;;`) carries its password.
    return text.replace(/(WIFI:(?:[^\n]*?;)?P:)((?:\\.|[^;\\])*)/i, (_, head: string, pass: string) => `${head}${pass ? SECRET_SET : ''}`);
  }
  return value;
}

/**
 * Resource, id and the words of the path, as the server routes it: `url/12/update` (under the
 * API's root) is link 12. Dot segments are resolved as the request's URL resolves them; a path
 * the server routes to no record (an empty segment, an upper-case word: the product's 404) is `none`, with
 * no id, so that `log --link` and plans never take it for a write to a link.
 */
export function describePath(path: string): { resource: string; id: string | null } {
  const sent = new URL(path.replace(/^\/+/, '').split('?')[0]!, 'http://x/').pathname;
  const segments = sent.replace(/^\//, '').replace(/\/$/, '').split('/');
  if (segments[0] !== 'api' || segments.length < 2 || segments.slice(1).some((s) => s === '')) return { resource: NO_RECORD, id: null };
  const words = segments.slice(1);
  const resource = Object.hasOwn(RESOURCES, words[0]!) ? RESOURCES[words[0]!]! : NO_RECORD;
  if (resource === NO_RECORD) return { resource, id: null };
  const id = words.slice(1).find((w) => /^\d+$/.test(w)) ?? null;
  return { resource, id };
}

/** Whether the request reached the server, and how it ended; undefined: it was never sent (nothing to record). */
export function outcomeOf(error: unknown): { outcome: Outcome; detail: string | null } | undefined {
  if (error === undefined) return { outcome: 'done', detail: null };
  const message = (error as Error)?.message ?? String(error);
  if (error instanceof ApiError || error instanceof NotFoundError || error instanceof AuthError || error instanceof RateLimitError) return { outcome: 'failed', detail: message.slice(0, 500) };
  if (error instanceof InterruptedError) return error.sent ? { outcome: 'unknown', detail: message.slice(0, 500) } : undefined;
  if (error instanceof NetworkError) {
    if (/connection refused|does not resolve|nothing was sent/.test(message)) return undefined;
    // A 3xx or 4xx page (no route, wrong method, a redirect before the API) is a clear answer: not done.
    if (error.status !== undefined && error.status >= 300 && error.status < 500) return { outcome: 'failed', detail: message.slice(0, 500) };
    return { outcome: 'unknown', detail: message.slice(0, 500) };
  }
  return undefined; // a usage error or a dry run: stopped before sending
}

function nameOf(resource: string, sent: Fields | null, result: Body | undefined): string | null {
  if (resource === NO_RECORD) return null;
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  if (resource === 'link') {
    const short = text(result?.shorturl) ?? text(result?.short);
    let fromShort: string | undefined;
    try {
      fromShort = short ? decodeURIComponent(new URL(short).pathname.replace(/^\/+/, '')) || undefined : undefined;
    } catch {
      fromShort = undefined;
    }
    return text(sent?.custom) ?? fromShort ?? null;
  }
  return text(sent?.name) ?? (resource === 'domain' ? text(sent?.domain) : undefined) ?? null;
}

export class LedgerWriter {
  private db?: Promise<Db>;
  private queue: Promise<unknown> = Promise.resolve();
  private warned = false;
  /** Writes that ended while entries were being committed: appended together next, in one transaction. */
  private waiting: Array<{ write: WriteSeen; how: { outcome: Outcome; detail: string | null }; done: () => void }> = [];

  constructor(private readonly ctx: WriterContext) {}

  /**
   * Never throws: a failure to record is said on stderr (once per run), and the write's own result
   * stands. Resolves once the entry is committed. Writes that end while a commit runs (a `--from`
   * run's rows in flight) share the next one: a commit syncs the database and holds the thread,
   * and one a write throttled 8 rows in flight to one commit at a time (issue 52's profile: 46%
   * of a 400-row `link add --from` in libsql's COMMIT). The entries are chained in the order
   * their writes ended, as before.
   */
  record(write: WriteSeen): Promise<void> {
    const how = outcomeOf(write.error);
    if (!how) return Promise.resolve();
    return new Promise<void>((done) => {
      if (this.waiting.push({ write, how, done }) > 1) return; // a commit for it is queued already
      // started after the loop's poll phase: the answers that came in meanwhile (while the last
      // commit held the thread) end their writes first, and join this commit
      const next = this.queue.then(() => new Promise<void>((turn) => setImmediate(turn))).then(() => this.commit());
      this.queue = next;
    });
  }

  /** Appends what waits, in one transaction; when that fails, each entry alone (one bad entry fails only itself). */
  private async commit(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    try {
      const entries = batch.map((b) => this.entry(b.write, b.how));
      const db = await this.open();
      const { append } = await import('./ledger.js');
      try {
        await db.write(async () => {
          for (const entry of entries) await append(db, entry);
        });
      } catch (error) {
        if (batch.length === 1) throw error;
        for (const [i, entry] of entries.entries()) await append(db, entry).catch((e: unknown) => this.failed(batch[i]!.write, e));
      }
    } catch (error) {
      this.failed(batch[0]!.write, error);
    } finally {
      for (const b of batch) b.done();
    }
  }

  private entry(write: WriteSeen, how: { outcome: Outcome; detail: string | null }): NewEntry {
    const { resource, id } = describePath(write.path);
    const sent = write.json && typeof write.json === 'object' && !Array.isArray(write.json) ? (withoutSecrets(write.json, this.ctx.secrets) as Fields) : null;
    const created = write.method === 'POST' && id === null && write.result && (typeof write.result.id === 'number' || typeof write.result.id === 'string') ? String(write.result.id) : null;
    const resourceId = id ?? created;
    const { profile, server, asUser } = this.ctx.where();
    const override = this.ctx.override();
    const entry: NewEntry = {
      at: new Date().toISOString(),
      profile,
      server,
      command: this.ctx.command(),
      via: this.ctx.via(),
      method: write.method,
      // The path as the request's URL sent it (dot segments resolved), the query left out.
      path: new URL(write.path.replace(/^\/+/, '').split('?')[0]!, 'http://x/').pathname.slice(1),
      resource,
      resourceId,
      name: nameOf(resource, sent, write.result),
      // What the server gave a creation (a link's short URL) belongs to what the record has.
      sent: sent && created && resource === 'link' && typeof write.result?.shorturl === 'string' ? { ...sent, shorturl: write.result.shorturl } : sent,
      // On real servers a link update replaces every option (src/model/link-fields.ts): after is what it sent.
      replaces: resource === 'link' && write.method === 'PUT',
      outcome: how.outcome,
      detail: how.detail,
      override: override ?? null,
      asUser: asUser ?? null,
    };
    return entry;
  }

  private open(): Promise<Db> {
    this.db ??= (async () => {
      const { openHistory } = await import('./store.js');
      const history = await openHistory({ env: this.ctx.env }, { create: true });
      return history.db;
    })();
    return this.db;
  }

  private failed(write: WriteSeen, error: unknown): void {
    if (this.warned) return;
    this.warned = true;
    const message = (error as Error)?.message ?? String(error);
    this.ctx.warn(`warning: the ${write.method} was ${write.error === undefined ? 'done' : 'sent'}, but the ledger could not record it: ${message}`);
  }

  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    if (!this.db) return;
    const db = await this.db.catch(() => undefined);
    await db?.close();
  }
}
