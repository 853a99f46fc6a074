/**
 * The run-scoped reader: one per command run (`ctx.reader()`), shared by everything the run does.
 * Each collection is read at most once, in large pages (http/pages.ts `fullRead`), and every later
 * lookup (by id, natural key, destination) is answered from what was read. Before a collection is
 * read, a lookup is a targeted search when the resource has one (links: `q`), and `preferFull`
 * decides by counting whether one full read is cheaper than the lookups a job will make.
 * What the run creates, changes or deletes is learned, so later lookups see it.
 */
import type { ApiClient, Query } from '../http/client.js';
import type { Body } from '../http/envelope.js';
import { toInt } from '../http/envelope.js';
import { fetchPage, FULL_READ, firstPage, fullRead, type Page } from '../http/pages.js';
import { MODELS, type Kind, type Model } from './index.js';
import { destinationKey } from './links.js';
import { readOne } from './model.js';
import { keyMatch, type Rec } from './values.js';
import { thousands } from '../numbers.js';

/** Requests a full read of `count` records takes (FULL_READ: 1,000 first, doubling up to its maximum). */
export function fullReadRequests(count: number): number {
  let requests = 0;
  let limit: number = FULL_READ.first;
  for (let offset = 0; ; ) {
    requests++;
    if (offset + limit >= count) return requests;
    offset += limit;
    if (limit < FULL_READ.max && offset % (limit * 2) === 0) limit *= 2;
  }
}

/** An id as a Map key: a number when it is one (no string for each of 100,000 ids). */
type IdKey = number | string;
const idKey = (id: unknown): IdKey | undefined => (id === undefined || id === null || id === '' ? undefined : (toInt(id) ?? String(id)));

/**
 * An index from a key to the ids of the records that have it. Nearly every key has one record, so
 * the entry is that id, and a list only for the few keys shared (a Set per key would double the
 * memory of a 200,000-link read).
 */
class Index {
  private readonly map = new Map<string, IdKey | IdKey[]>();

  add(key: string, id: IdKey): void {
    const have = this.map.get(key);
    if (have === undefined) this.map.set(key, id);
    else if (Array.isArray(have)) {
      if (!have.includes(id)) have.push(id);
    } else if (have !== id) this.map.set(key, [have, id]);
  }

  delete(key: string, id: IdKey): void {
    const have = this.map.get(key);
    if (have === id) this.map.delete(key);
    else if (Array.isArray(have)) {
      const rest = have.filter((x) => x !== id);
      if (rest.length === 1) this.map.set(key, rest[0]!);
      else this.map.set(key, rest);
    }
  }

  get(key: string): IdKey[] {
    const have = this.map.get(key);
    return have === undefined ? [] : Array.isArray(have) ? have : [have];
  }
}

/** What is known of one kind: records by id, indexed by natural key (and destination for links). */
class Known {
  readonly byId = new Map<IdKey, Rec>();
  /** Records without an id (real servers append system domains with `"id": null`). */
  readonly anonymous: Rec[] = [];
  readonly byKey = new Index();
  /** Built on first use (adding links by destination): a plan of 200,000 links never needs it. */
  private destinations?: Index;

  constructor(private readonly model: Model) {}

  get byDestination(): Index {
    if (!this.destinations) {
      this.destinations = new Index();
      for (const [id, record] of this.byId) if (typeof record.longurl === 'string') this.destinations.add(destinationKey(record.longurl), id);
    }
    return this.destinations;
  }

  get records(): Rec[] {
    return [...this.byId.values(), ...this.anonymous];
  }

  put(record: Rec): void {
    const id = idKey(record.id);
    if (id === undefined) {
      this.anonymous.push(record);
      return;
    }
    this.drop(id);
    this.byId.set(id, record);
    const key = this.keyOf(record);
    if (key !== undefined) this.byKey.add(key, id);
    if (this.destinations && typeof record.longurl === 'string') this.destinations.add(destinationKey(record.longurl), id);
  }

  drop(id: IdKey): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.byId.delete(id);
    const key = this.keyOf(old);
    if (key !== undefined) this.byKey.delete(key, id);
    if (this.destinations && typeof old.longurl === 'string') this.destinations.delete(destinationKey(old.longurl), id);
  }

  find(index: Index, key: string): Rec[] {
    return index.get(key).map((id) => this.byId.get(id)!).filter(Boolean);
  }

  get(id: unknown): Rec | undefined {
    const key = idKey(id);
    return key === undefined ? undefined : this.byId.get(key);
  }

  keyOf(record: Rec): string | undefined {
    const key = this.model.key(record);
    return key === undefined ? undefined : keyMatch(key);
  }
}

export interface ReaderEvents {
  /** Progress of a read, for the spinner: "reading links: 3,000 of 10,000". */
  status?(text: string): void;
}

export class AccountReader {
  private readonly known = new Map<Kind, Known>();
  /** Full reads started (in flight or done): a second caller waits for the same read. */
  private readonly complete = new Map<Kind, Promise<Known>>();
  /**
   * Full reads that have finished. Apart from `complete`: a read in flight is not yet an answer,
   * and a lookup that took "started" for "read" found nothing (two `--pixel` names in one command).
   */
  private readonly finished = new Set<Kind>();
  /** Keys and destinations already searched for: `known` holds every record that matched them. */
  private readonly searched = new Map<string, Promise<void>>();
  private readonly sizes = new Map<Kind, Promise<{ count: number; first?: Rec }>>();
  private readonly details = new Map<string, Promise<Body>>();
  /** The highest link id the run has seen: a link a create answers with an id at most this existed before. */
  private newestLink?: number;

  constructor(
    readonly client: ApiClient,
    private readonly events: ReaderEvents = {},
  ) {}

  private of(kind: Kind): Known {
    let known = this.known.get(kind);
    if (!known) this.known.set(kind, (known = new Known(MODELS[kind])));
    return known;
  }

  /** Whether every record of `kind` has been read (a read still in flight is not). */
  isComplete(kind: Kind): boolean {
    return this.finished.has(kind);
  }

  /** Whether `kind` has been read in full, waiting for a read in flight (false if none started or it failed). */
  private async readInFull(kind: Kind): Promise<boolean> {
    const loading = this.complete.get(kind);
    if (!loading) return false;
    try {
      await loading;
      return true;
    } catch {
      return false;
    }
  }

  /** Every record of `kind`, as the list gives them, read once per run. */
  async all(kind: Kind): Promise<Rec[]> {
    return (await this.load(kind)).records;
  }

  private load(kind: Kind, first?: Page): Promise<Known> {
    let loading = this.complete.get(kind);
    if (!loading) {
      loading = (async () => {
        const model = MODELS[kind];
        const fresh = new Known(model);
        for await (const page of fullRead(this.client, { path: model.list, keys: model.keys }, first)) {
          for (const record of page.records) fresh.put(record);
          this.events.status?.(`reading ${kind}: ${thousands(fresh.byId.size)}${page.result ? ` of ${thousands(page.result)}` : ''}`);
        }
        // What the run learned before the read (creates) is in the list now; keep the list's view.
        this.known.set(kind, fresh);
        if (kind === 'links') for (const id of fresh.byId.keys()) this.noteLinkId(id);
        this.finished.add(kind);
        return fresh;
      })();
      this.complete.set(kind, loading);
      loading.catch(() => this.complete.delete(kind));
    }
    return loading;
  }

  /**
   * Every record of `kind`, each passed to `visit` once and not kept: for a job that keeps a view
   * of its own of a big collection (plan and apply of a 200,000-link file keep file-shaped
   * records, a third of the list items' size). A collection already read is visited from memory.
   */
  async each(kind: Kind, visit: (record: Rec) => void): Promise<void> {
    if (await this.readInFull(kind)) {
      for (const record of await this.all(kind)) visit(record);
      return;
    }
    const model = MODELS[kind];
    let seen = 0;
    for await (const page of fullRead(this.client, { path: model.list, keys: model.keys })) {
      for (const record of page.records) {
        if (kind === 'links') this.noteLinkId(record.id);
        visit(record);
      }
      seen += page.records.length;
      this.events.status?.(`reading ${kind}: ${thousands(seen)}${page.result ? ` of ${thousands(page.result)}` : ''}`);
    }
  }

  /** Every page of a list as it arrives (`list --all`): large pages, nothing kept. */
  pages(kind: Kind, query?: Query): AsyncGenerator<Page> {
    const model = MODELS[kind];
    return fullRead(this.client, { path: model.list, keys: model.keys, query });
  }

  /** How many records `kind` has, and its first (for links, the newest), from one request of one record. */
  size(kind: Kind): Promise<{ count: number; first?: Rec }> {
    let size = this.sizes.get(kind);
    if (!size) {
      size = (async () => {
        if (await this.readInFull(kind)) return { count: (await this.load(kind)).byId.size };
        const model = MODELS[kind];
        const page = await fetchPage(this.client, { path: model.list, keys: model.keys, limit: 1 }, 1);
        const count = page.records.length === 0 ? 0 : (page.maxpage ?? page.result ?? 1);
        return { count, first: page.records[0] };
      })();
      this.sizes.set(kind, size);
      size.catch(() => this.sizes.delete(kind));
    }
    return size;
  }

  /**
   * Reads `kind` in full when that costs no more requests than `lookups` targeted ones would.
   * The first page of the read decides (it says how many pages there are), so a read that goes
   * on costs nothing extra, and one that stops has cost one request.
   */
  async preferFull(kind: Kind, lookups: number): Promise<void> {
    if (lookups < 1 || (await this.readInFull(kind))) return;
    const model = MODELS[kind];
    if (!model.search) {
      await this.load(kind);
      return;
    }
    const first = await firstPage(this.client, { path: model.list, keys: model.keys });
    const count = first.records.length < FULL_READ.first ? first.records.length : (first.result ?? (first.maxpage ?? 1) * FULL_READ.first);
    if (fullReadRequests(count) <= lookups) await this.load(kind, first);
    else {
      // Not worth reading on; what the page showed still answers the newest link's id.
      if (kind === 'links') for (const record of first.records) this.noteLinkId(record.id);
    }
  }

  /** Records of `kind` whose natural key is `key` (case-insensitive): from the full read, or a search. */
  async byKey(kind: Kind, key: string): Promise<Rec[]> {
    const model = MODELS[kind];
    const wanted = keyMatch(key);
    if (!(await this.readInFull(kind))) {
      if (!model.search) await this.load(kind);
      else await this.search(kind, `key:${wanted}`, model.search(key));
    }
    return this.of(kind).find(this.of(kind).byKey, wanted);
  }

  /** Links whose destination is `url` (compared as `destinationKey` does). */
  async linksTo(url: string): Promise<Rec[]> {
    const wanted = destinationKey(url);
    if (!(await this.readInFull('links'))) await this.search('links', `destination:${wanted}`, MODELS.links.search!(url));
    return this.of('links').find(this.of('links').byDestination, wanted);
  }

  /**
   * One record by id, from what was read. For links the list item is found by a search for
   * `alias` when the list has not been read (the list has no read by id); other kinds are read.
   */
  async byId(kind: Kind, id: number | string, alias?: string): Promise<Rec | undefined> {
    const known = this.of(kind);
    if (!(await this.readInFull(kind))) {
      const have = known.get(id);
      if (have) return have;
      if (kind === 'links' && alias !== undefined) await this.byKey(kind, alias);
      else await this.load(kind);
    }
    return this.of(kind).get(id);
  }

  private async search(kind: Kind, name: string, query: Query): Promise<void> {
    const memo = `${kind}\u0000${name}`;
    let searching = this.searched.get(memo);
    if (!searching) {
      searching = (async () => {
        const model = MODELS[kind];
        for await (const page of fullRead(this.client, { path: model.list, keys: model.keys, query })) {
          for (const record of page.records) {
            this.of(kind).put(record);
            if (kind === 'links') this.noteLinkId(record.id);
          }
        }
      })();
      this.searched.set(memo, searching);
      searching.catch(() => this.searched.delete(memo));
    }
    await searching;
  }

  /**
   * Records of `kind` with this natural key (or, for links, `destination`), asked of the server
   * now whatever the run has read: after a create whose outcome is unknown, what was read before
   * it cannot say whether it happened.
   */
  async fresh(kind: Kind, wanted: { key: string } | { destination: string }): Promise<Rec[]> {
    const model = MODELS[kind];
    const value = 'key' in wanted ? wanted.key : wanted.destination;
    const matches = (r: Rec) =>
      'key' in wanted ? keyMatch(model.key(r) ?? '') === keyMatch(wanted.key) : typeof r.longurl === 'string' && destinationKey(r.longurl) === destinationKey(wanted.destination);
    const found: Rec[] = [];
    for await (const page of fullRead(this.client, { path: model.list, keys: model.keys, query: model.search?.(value) })) {
      for (const record of page.records) {
        if (!matches(record)) continue;
        found.push(record);
        this.learn(kind, record);
      }
    }
    return found;
  }

  /** `GET` of one record (links, QR codes), once per run unless the run changed it. */
  readOne(kind: 'links' | 'qr', id: number): Promise<Body> {
    const memo = `${kind}:${id}`;
    let reading = this.details.get(memo);
    if (!reading) {
      reading = readOne(this.client, MODELS[kind], id);
      this.details.set(memo, reading);
      reading.catch(() => this.details.delete(memo));
    }
    return reading;
  }

  /**
   * The highest link id that existed before now: a create answered with an id at most this
   * returned an existing link (servers do so for a URL already shortened) rather than a new one.
   */
  async newestLinkId(): Promise<number> {
    if (this.newestLink === undefined && !(await this.readInFull('links'))) {
      const { first } = await this.size('links');
      this.noteLinkId(first?.id);
    }
    return this.newestLink ?? 0;
  }

  private noteLinkId(id: unknown): void {
    const n = toInt(id);
    if (n !== undefined && (this.newestLink === undefined || n > this.newestLink)) this.newestLink = n;
  }

  /** A record the run created or changed (as the list would give it): later lookups see it. */
  learn(kind: Kind, record: Rec): void {
    this.of(kind).put(record);
    if (kind === 'links') this.noteLinkId(record.id);
    if (record.id !== undefined) this.details.delete(`${kind}:${String(record.id)}`);
  }

  /** A record the run deleted. */
  forget(kind: Kind, id: number | string): void {
    const key = idKey(id);
    if (key !== undefined) this.of(kind).drop(key);
    this.details.delete(`${kind}:${String(id)}`);
  }
}
