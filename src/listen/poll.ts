/**
 * `listen --poll 60s`: for users who cannot set the product's webhooks. Every interval the link
 * list is read whole (through the run's client, so within the rate-limit policy of
 * src/http/rate-limit.ts: ⌈links/1000⌉ requests a read, paced by the server's headers), and
 * compared with the read before: a new id is `link.created`, a gone id `link.deleted`, a link
 * whose alias, destination, title or settings changed `link.updated`. The first read is the
 * starting point. Clicks are not in it: a visit changes only counters, which are ignored, and
 * the user is told so.
 */
import { AccountReader } from '../model/reader.js';
import type { ApiClient } from '../http/client.js';
import type { Rec } from '../output/types.js';

export type PollKind = 'link.created' | 'link.updated' | 'link.deleted';

export interface PollEvent {
  type: PollKind;
  id: string;
  at: string;
  linkId: number | string;
  shortUrl: string | null;
  alias: string | null;
  longUrl: string | null;
}

/** Fields that change with visits, not with an edit. */
const COUNTERS = new Set(['clicks', 'uniqueclicks', 'uniqueClicks', 'views', 'scans']);

function fingerprint(link: Rec): string {
  return JSON.stringify(Object.keys(link).filter((k) => !COUNTERS.has(k)).sort().map((k) => [k, link[k]]));
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export class LinkPoller {
  private previous: Map<string, { print: string; link: Rec }> | undefined;
  private serial = 0;

  constructor(private readonly client: ApiClient, private readonly clock: () => number = Date.now) {}

  /** One read of the list; the events since the read before (none on the first). */
  async poll(): Promise<{ events: PollEvent[]; links: number }> {
    const links = await new AccountReader(this.client).all('links'); // a fresh reader: a full read each time
    const now = new Map<string, { print: string; link: Rec }>();
    for (const link of links) if (link.id !== undefined && link.id !== null) now.set(String(link.id), { print: fingerprint(link), link });
    const events: PollEvent[] = [];
    const at = new Date(this.clock()).toISOString();
    const event = (type: PollKind, id: string, link: Rec): PollEvent => ({
      type, id: `poll_${this.clock().toString(36)}_${++this.serial}`, at, linkId: typeof link.id === 'number' ? link.id : String(id),
      shortUrl: text(link.shorturl) ?? text(link.short), alias: text(link.alias), longUrl: text(link.longurl) ?? text(link.location),
    });
    if (this.previous) {
      for (const [id, { print, link }] of now) {
        const before = this.previous.get(id);
        if (!before) events.push(event('link.created', id, link));
        else if (before.print !== print) events.push(event('link.updated', id, link));
      }
      for (const [id, { link }] of this.previous) if (!now.has(id)) events.push(event('link.deleted', id, link));
    }
    this.previous = now;
    return { events, links: now.size };
  }
}
