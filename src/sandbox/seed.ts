// `sandbox serve --seed FILE`: an installation to start from (and to go back to with
// POST /__sandbox/reset), written in a small documented format (docs/sandbox.md, "Seeds"):
//
//   { "users": [ { "id": 1, "email": "admin@example.com", "username": "admin", "key": "KEY", "plan": "free", "admin": true }, ... ],
//     "records": [ { "resource": "overlay", "owner": 1, "id": 1, "type": "message", "name": "Spring banner", "date": "2026-01-05 10:00:00" },
//                  { "resource": "splash", "owner": "KEY", "id": 1, "name": "Welcome", "date": "2026-01-08 09:00:00" } ] }
//
// Every user has no links, QR codes, domains, campaigns, channels or pixels, and the id of each of
// those starts at 1: the state a recording's scenario starts from. `records` holds what the API
// cannot create (CTA overlays and splash pages, made in the product's web interface), as a
// recording's `setup` lists them; `owner` is a user's id or key.
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import type { Collection, Overlay, Splash, State, User } from './state.js';

export interface SeedUser {
  id: number; email: string; username: string; key: string;
  /** `pro` or `free` (default), what `GET /api/account` answers as `status`. */
  plan?: 'pro' | 'free';
  /** Default: 0. */
  planid?: number;
  /** Default: the first user is the administrator, the others are plain users. */
  admin?: boolean;
  expires?: string | null;
  /** Default: the date the sandbox read the seed. */
  registered?: string;
}
export interface SeedRecord { resource: 'overlay' | 'splash'; owner: number | string; id: number; name: string; type?: string; date: string }
export interface Seed { users: SeedUser[]; records?: SeedRecord[] }

const DATE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
const COLLECTIONS: Collection[] = ['qrs', 'domains', 'overlays', 'campaigns', 'channels', 'splash', 'pixels', 'links'];

/** The state a seed describes; throws a ConfigError naming `where` and the field at fault. */
export function stateFromSeed(seed: unknown, where: string, now: string): State {
  const bad = (path: string, what: string): never => { throw new ConfigError(`${where}: ${path} ${what}`, 'see docs/sandbox.md, "Seeds", for the format'); };
  if (typeof seed !== 'object' || seed === null || Array.isArray(seed)) bad('the seed', 'must be a JSON object {"users": [...], "records": [...]}');
  const doc = seed as Record<string, unknown>;
  if (!Array.isArray(doc.users) || doc.users.length === 0) bad('users', 'must be a list of at least one user');
  const users: User[] = (doc.users as unknown[]).map((u, i) => {
    const at = `users[${i}]`;
    if (typeof u !== 'object' || u === null) bad(at, 'must be an object');
    const r = u as Record<string, unknown>;
    if (!Number.isInteger(r.id) || (r.id as number) < 1) bad(`${at}.id`, 'must be a whole number above 0');
    for (const field of ['email', 'username', 'key'] as const) if (typeof r[field] !== 'string' || r[field] === '') bad(`${at}.${field}`, 'must be a non-empty string');
    if (r.plan !== undefined && r.plan !== 'pro' && r.plan !== 'free') bad(`${at}.plan`, 'must be "pro" or "free"');
    if (r.planid !== undefined && !Number.isInteger(r.planid)) bad(`${at}.planid`, 'must be a whole number');
    if (r.admin !== undefined && typeof r.admin !== 'boolean') bad(`${at}.admin`, 'must be true or false');
    if (r.expires !== undefined && r.expires !== null && !(typeof r.expires === 'string' && DATE.test(r.expires))) bad(`${at}.expires`, 'must be null or "YYYY-MM-DD HH:MM:SS"');
    if (r.registered !== undefined && !(typeof r.registered === 'string' && DATE.test(r.registered))) bad(`${at}.registered`, 'must be "YYYY-MM-DD HH:MM:SS"');
    return {
      id: r.id as number, email: r.email as string, username: r.username as string, key: r.key as string,
      admin: (r.admin as boolean | undefined) ?? i === 0, plan: (r.plan as 'pro' | 'free' | undefined) ?? 'free',
      planid: (r.planid as number | undefined) ?? 0, expires: (r.expires as string | null | undefined) ?? null, registered: (r.registered as string | undefined) ?? now,
    };
  });
  const ids = new Set(users.map((u) => u.id));
  if (ids.size !== users.length) bad('users', 'must have distinct ids');
  for (const field of ['email', 'key'] as const) {
    if (new Set(users.map((u) => u[field].toLowerCase())).size !== users.length) bad('users', `must have distinct ${field}s (letter case aside)`);
  }
  const overlays: Overlay[] = [];
  const splash: Splash[] = [];
  if (doc.records !== undefined && !Array.isArray(doc.records)) bad('records', 'must be a list');
  for (const [i, rec] of ((doc.records as unknown[] | undefined) ?? []).entries()) {
    const at = `records[${i}]`;
    if (typeof rec !== 'object' || rec === null) bad(at, 'must be an object');
    const r = rec as Record<string, unknown>;
    if (r.resource !== 'overlay' && r.resource !== 'splash') bad(`${at}.resource`, 'must be "overlay" or "splash" (everything else is made through the API)');
    const owner = users.find((u) => u.id === r.owner || (typeof r.owner === 'string' && u.key === r.owner));
    if (!owner) bad(`${at}.owner`, 'must be the id or the key of one of the users');
    if (!Number.isInteger(r.id) || (r.id as number) < 1) bad(`${at}.id`, 'must be a whole number above 0');
    if (typeof r.name !== 'string') bad(`${at}.name`, 'must be a string');
    if (typeof r.date !== 'string' || !DATE.test(r.date)) bad(`${at}.date`, 'must be "YYYY-MM-DD HH:MM:SS"');
    if (r.resource === 'overlay') {
      if (typeof r.type !== 'string') bad(`${at}.type`, 'must be a string (message, contact, ...)');
      overlays.push({ id: r.id as number, owner: owner!.id, type: r.type as string, name: r.name as string, date: r.date as string });
    } else {
      splash.push({ id: r.id as number, owner: owner!.id, name: r.name as string, date: r.date as string });
    }
  }
  for (const [name, list] of [['overlay', overlays], ['splash', splash]] as const) {
    if (new Set(list.map((r) => r.id)).size !== list.length) bad('records', `must not repeat a ${name} id`);
    list.sort((a, b) => a.id - b.id);
  }
  const next = Object.fromEntries(COLLECTIONS.map((c) => [c, 1])) as Record<Collection, number>;
  next.overlays = Math.max(0, ...overlays.map((o) => o.id)) + 1;
  next.splash = Math.max(0, ...splash.map((s) => s.id)) + 1;
  return { version: 1, next, users, qrs: [], domains: [], overlays, campaigns: [], channels: [], splash, pixels: [], links: [], bios: [] };
}

/** The seed in `file`, as a function that makes a fresh state from it (at start and at each reset). */
export function readSeed(file: string, now: () => string): () => State {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read the seed file ${file} (${(err as NodeJS.ErrnoException).code ?? 'unknown error'})`, 'give the path of a JSON seed: see docs/sandbox.md, "Seeds"');
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ConfigError(`the seed file ${file} is not valid JSON`, 'see docs/sandbox.md, "Seeds", for the format');
  }
  stateFromSeed(doc, file, now()); // checked once, at start
  return () => stateFromSeed(doc, file, now());
}
