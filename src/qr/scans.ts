/**
 * Which QR codes keep scans of their own. Codes of the types without a short link (text, sms,
 * wifi, staticvcard: src/model/qr.ts) hold their content in the image, so nothing counts their
 * scans; in the list of QR codes the product 7.7 still answers a `scans` for them, the clicks of the
 * installation's first link (real-servers.md, 19). Those are no scans: every place that reads a
 * code's scans (`qr list`, `stats snapshot` and so `stats top --qr` and the report, MCP) takes
 * them as unknown.
 *
 * A list item does not say its code's type. The code's single read does (its statistics block is
 * left out for codes without a short link), and a code's type never changes through the API, so
 * what a read learned is kept in the state folder, per server, by id and image URL (a code's
 * `link` ends in its own random slug): each code is read once, ever, and a code made by
 * `qr add` needs no read at all.
 */
import { existsSync, readFileSync, renameSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Context } from '../context.js';
import { stateDir } from '../config/paths.js';
import { CliError, InterruptedError } from '../errors.js';
import { inOrder } from '../http/concurrency.js';
import { toInt } from '../http/envelope.js';
import type { Rec } from '../model/values.js';

/** What is known of one code: its slug (the end of its image URL, which names it with its id) and whether it counts scans. */
interface Known { slug: string; own: boolean }

/** The end of a code's `link` (`{BASE}/qr/e93808`): random per code, and the same whatever port or scheme the server is reached by. */
const slugOf = (link: unknown): string | undefined => (typeof link === 'string' ? link.replace(/[?#].*$/, '').replace(/\/+$/, '').split('/').pop() || undefined : undefined);
interface File { version: 1; servers: Record<string, Record<string, Known>> }

const fileOf = (ctx: Context) => join(stateDir(ctx.env), 'qr-scans.json');

function load(path: string): File {
  try {
    const file = JSON.parse(readFileSync(path, 'utf8')) as File;
    if (file && file.version === 1 && file.servers && typeof file.servers === 'object') return file;
  } catch {
    // none yet, or unreadable: learned again (a read a code)
  }
  return { version: 1, servers: {} };
}

/**
 * Adds what was learned to the file as it is now (another run may have written since), atomically.
 * Only where linkctl keeps state already (its config folder, or the state folder's parent exists):
 * a read with a key from the environment and no config creates no folder for a cache.
 */
function save(path: string, server: string, learned: Record<string, Known>): void {
  if (!Object.keys(learned).length || !existsSync(dirname(dirname(path)))) return;
  try {
    const file = load(path);
    file.servers[server] = { ...(file.servers[server] ?? {}), ...learned };
    mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(file)}\n`, { mode: 0o600 });
    renameSync(tmp, path);
  } catch {
    // Only a cache: a code not remembered is read again next time.
  }
}

/** The server as the ledger names it: `sandbox` for the sandbox, whatever its port today. */
const serverOf = (ctx: Context): Promise<string> => ctx.ledgerServer();

/** Whether a code's single read says it counts scans: the product leaves the statistics block out for one that does not (real-servers.md, 19). */
export const countsScans = (detail: Rec): boolean => Boolean(detail.data && typeof detail.data === 'object');

/**
 * A code linkctl created (`own`: its type has a short link) or read (`countsScans` of the answer),
 * remembered: no read needed later.
 */
export async function remember(ctx: Context, code: Rec, own: boolean): Promise<void> {
  const id = toInt(code.id);
  const slug = slugOf(code.link);
  if (id === undefined || slug === undefined) return;
  save(fileOf(ctx), await serverOf(ctx), { [id]: { slug, own } });
}

/** Which codes' scans are unknown: those that count none, and those whose kind could not be read now (and why). */
export interface UnknownScans {
  /** Codes without a short link: they count no scans. */
  none: Set<number>;
  /** Codes whose read failed (gone since the list, the rate limit's wait too long): not known whether they count scans. */
  unread: Set<number>;
  /** Why the first of `unread` could not be read. */
  why?: string;
}

/**
 * Which codes among `codes` (list items) have scans that are not theirs. Codes not known yet are
 * read once each (a request each, as many in flight as the server allows); a read that fails
 * leaves that code's scans unknown rather than taking the server's number for them.
 */
export async function unknownScans(ctx: Context, codes: readonly Rec[]): Promise<UnknownScans> {
  const out: UnknownScans = { none: new Set(), unread: new Set() };
  if (!codes.length) return out;
  const path = fileOf(ctx);
  const server = await serverOf(ctx);
  const known = load(path).servers[server] ?? {};
  const unknown: Array<{ id: number; slug: string }> = [];
  for (const code of codes) {
    const id = toInt(code.id);
    const slug = slugOf(code.link);
    if (id === undefined || slug === undefined) continue;
    const have = known[id];
    if (have && have.slug === slug) {
      if (!have.own) out.none.add(id);
    } else unknown.push({ id, slug });
  }
  if (!unknown.length) return out;
  const reader = await ctx.reader();
  const learned: Record<string, Known> = {};
  let read = 0;
  await inOrder(unknown, () => reader.client.inFlight.limit('auto'), async (code) => {
    ctx.status(`reading which QR codes count scans (${++read} of ${unknown.length})`);
    let body;
    try {
      body = await reader.readOne('qr', code.id);
    } catch (error) {
      if (error instanceof InterruptedError || !(error instanceof CliError)) throw error;
      out.unread.add(code.id); // read again next time
      out.why ??= error.message;
      return;
    }
    const own = countsScans(body);
    learned[code.id] = { slug: code.slug, own };
    if (!own) out.none.add(code.id);
  });
  save(path, server, learned);
  return out;
}

/** What every output says of codes whose scans are unknown (undefined when there are none). */
export function unknownScansNote(unknown: { none: number; unread: number; why?: string }): string | undefined {
  const notes: string[] = [];
  if (unknown.none) notes.push(`Note: ${NO_OWN_SCANS_NOTE}.`);
  if (unknown.unread) notes.push(`Note: the scans of ${unknown.unread} QR code${unknown.unread === 1 ? '' : 's'} are unknown: whether ${unknown.unread === 1 ? 'it counts' : 'they count'} scans could not be read now (${unknown.why ?? 'no answer'}); the next run reads ${unknown.unread === 1 ? 'it' : 'them'} again.`);
  return notes.length ? notes.join('\n') : undefined;
}

/** Why a code's scans are unknown, as every output says it. */
export const NO_OWN_SCANS_NOTE = 'text, sms and wifi codes count no scans (their image holds the content, not a short link), so their scans are unknown; servers answer another link\'s clicks for them';
