/**
 * Looking a record up after a create whose answer was lost ("may or may not have been created"):
 * a link by its alias or long URL, a QR code, pixel, campaign or channel by its name, a domain by
 * its URL. Found: the row is done. Provably absent (the whole list read): it may be sent again.
 */
import type { ApiClient } from '../api/client.js';
import type { Rec } from '../output/types.js';
import type { ActionInput } from '../commands/shared/define.js';
import { firstOf } from '../commands/shared/resource.js';

interface Finder {
  path: string;
  keys: string[];
  /** What to look for, from the row; undefined when the row names nothing to find it by. */
  wanted(input: ActionInput): { query?: Record<string, string>; match(record: Rec): boolean } | undefined;
}

const byName = (path: string, key: string, ...fields: string[]): Finder => ({
  path,
  keys: [key],
  wanted: ({ opts }) => (typeof opts.name === 'string' ? { match: (r) => firstOf(r, ...(fields.length ? fields : ['name'])) === opts.name } : undefined),
});

const trimSlash = (s: unknown) => String(s).replace(/\/+$/, '');

const FINDERS: Record<string, Finder> = {
  'link add': {
    path: 'api/urls',
    keys: ['urls'],
    wanted: ({ args, opts }) => {
      const alias = opts.alias as string | undefined;
      const url = args[0] as string;
      return {
        query: { q: alias ?? url },
        match: (r) => (alias !== undefined ? r.alias === alias || String(firstOf(r, 'shorturl', 'short') ?? '').endsWith(`/${alias}`) : r.longurl === url),
      };
    },
  },
  'qr add': byName('api/qr', 'qrs'),
  'pixel add': byName('api/pixels', 'pixels'),
  'campaign add': byName('api/campaigns', 'campaigns', 'name', 'campaign', 'domain'),
  'channel add': byName('api/channels', 'channels'),
  'domain add': { path: 'api/domains', keys: ['domains'], wanted: ({ args }) => ({ match: (r) => trimSlash(r.domain) === trimSlash(args[0]) }) },
};

/** Whether the command has a way to look a row's record up. */
export function canLookUp(command: string): boolean {
  return command in FINDERS;
}

/** The record the row created, null when provably absent, undefined when the row names nothing to look for. */
export async function lookUp(client: ApiClient, command: string, input: ActionInput): Promise<Rec | null | undefined> {
  const finder = FINDERS[command];
  const wanted = finder?.wanted(input);
  if (!finder || !wanted) return undefined;
  const { allPages } = await import('../api/pages.js');
  for await (const page of allPages(client, { path: finder.path, keys: finder.keys, query: wanted.query, limit: 100 })) {
    const found = page.records.find((r) => wanted.match(r));
    if (found) return found;
  }
  return null;
}
