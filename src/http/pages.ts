/**
 * Pagination, written once for every list. Real servers answer a page past the end with an
 * empty collection and a `nextpage`, so the loop stops on an empty page or on
 * `currentpage >= maxpage`, never on `nextpage` alone.
 */
import { NetworkError } from '../errors.js';
import type { ApiClient, Query } from './client.js';
import type { Body } from './envelope.js';
import { toInt } from './envelope.js';

export interface PageInfo {
  result?: number;
  perpage?: number;
  currentpage?: number;
  maxpage?: number;
}

export interface Page extends PageInfo {
  records: Body[];
}

export interface ListRequest {
  path: string;
  /** Collection keys in order of preference: documented first, then what real servers send. Empty: detect it. */
  keys: readonly string[];
  query?: Query;
  limit?: number;
  page?: number;
}

/**
 * The collection key of a list whose key is not known in advance (`linkctl api --paginate`):
 * the one array inside `data`. None, or several, is an answer we cannot page through.
 */
export function collectionKey(envelope: Body): string {
  const arrays = Object.keys(envelope).filter((k) => Array.isArray(envelope[k]));
  if (arrays.length === 1) return arrays[0]!;
  throw new NetworkError(
    arrays.length ? `the answer's \`data\` holds several arrays (${arrays.join(', ')}), so it is not clear which one to page through` : "the answer's `data` holds no array of records to page through",
    'is PATH a list? without --paginate the whole answer is printed',
  );
}

/** A page of records; with no `keys`, the collection is the one array in `data`. */
export function pageFromBody(body: Body, keys: readonly string[]): Page {
  const data = body.data;
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    throw new NetworkError('the server reports success but its answer lacks the `data` object of a list');
  }
  const envelope = data as Body;
  const key = keys.length ? keys.find((k) => Array.isArray(envelope[k])) : collectionKey(envelope);
  if (!key) throw new NetworkError(`the server's list answer lacks the \`${keys.join('` or `')}\` collection`);
  const records = envelope[key] as unknown[];
  // Output reads fields of each record; a list of anything else is not an answer of this API.
  if (keys.length && records.some((r) => !r || typeof r !== 'object' || Array.isArray(r))) {
    throw new NetworkError(`the server's \`${key}\` list holds items that are not records`);
  }
  return {
    records: records as Body[],
    result: toInt(envelope.result),
    perpage: toInt(envelope.perpage),
    currentpage: toInt(envelope.currentpage),
    maxpage: toInt(envelope.maxpage),
  };
}

export async function fetchPage(client: ApiClient, request: ListRequest, page = request.page): Promise<Page> {
  const body = await client.request('GET', request.path, {
    query: { ...request.query, limit: request.limit, page },
    expect: ['data'],
  });
  return pageFromBody(body, request.keys);
}

/** What identifies a page's content: its first and last records' ids (or the records themselves). */
function pageMark(records: Body[]): string {
  const id = (r: Body | undefined) => JSON.stringify(r && 'id' in r ? r.id : r);
  return `${id(records[0])}|${id(records[records.length - 1])}`;
}

/**
 * Page sizes of a full read (every record of a list, no --limit given). Real servers have no
 * maximum `limit`, and at 30 requests a minute the number of requests is the time a read takes,
 * so a read starts with pages of 1,000 and doubles the page while the server answers within
 * FAST_MS (up to MAX records a page); a page that times out or is larger than linkctl reads is
 * asked again at half the size (down to MIN). Sizes stay powers of two times MIN, so the records
 * read so far are always a whole number of pages of the next size.
 */
export const FULL_READ = { first: 1000, max: 8000, min: 125, fastMs: 5000 } as const;

/**
 * Every record of a list in large pages (see FULL_READ), in the server's order, each record once
 * (a record created while the read runs shifts the pages: one seen already is not given again).
 * Ends on a short or empty page, or at `maxpage`; a server that ignores `page` is a protocol error.
 */
export async function* fullRead(client: ApiClient, request: Omit<ListRequest, 'limit' | 'page'>, first?: Page): AsyncGenerator<Page> {
  let limit: number = FULL_READ.first;
  /** Places of the list read so far: always a multiple of `limit`. */
  let offset = 0;
  let firstMark: string | undefined;
  /** The server gives fewer records a page than asked while saying more pages follow: its size is kept. */
  let capped = false;
  const seen = new Set<string>();
  for (;;) {
    const page = offset / limit + 1;
    const started = Date.now();
    let current: Page;
    try {
      // The caller may have read the first page already (`firstPage`), to decide whether to read on.
      current = page === 1 && first ? first : await fetchPage(client, { ...request, limit }, page);
    } catch (error) {
      if (error instanceof NetworkError && error.reason && limit > FULL_READ.min && !capped) {
        limit /= 2;
        continue;
      }
      throw error;
    }
    const fast = Date.now() - started < FULL_READ.fastMs;
    const count = current.records.length;
    if (count === 0) return;
    const mark = JSON.stringify(current.records[0]?.id ?? current.records[0]);
    if (page === 1) firstMark = mark;
    else if (mark === firstMark || (current.currentpage !== undefined && current.currentpage !== page)) {
      throw new NetworkError(
        `the server answered page ${page} of ${request.path} with the same records as page 1: it ignores \`page\`, so the list cannot be read to the end`,
        'a caching proxy may be in the way; what was printed before this message is incomplete',
      );
    }
    const fresh = current.records.filter((r) => {
      const id = r.id === undefined || r.id === null ? undefined : String(r.id);
      if (id === undefined) return true;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    yield { ...current, records: fresh };
    const morePages = current.maxpage !== undefined && page < current.maxpage;
    if ((count < limit && !morePages) || (current.maxpage !== undefined && page >= current.maxpage)) return;
    if (count < limit && !capped) {
      // A server with a page size of its own: read on in its size (its pages are numbered in it), never larger.
      if (page !== 1) {
        throw new NetworkError(`the server answered page ${page} of ${request.path} with ${count} records of the ${limit} asked for, and says more pages follow: the list cannot be read to the end`, 'run again; if it happens again, report the server\'s version');
      }
      capped = true;
      limit = count;
    }
    offset += limit;
    if (capped) continue;
    if (fast && limit < FULL_READ.max && offset % (limit * 2) === 0) limit *= 2;
    else if (!fast && limit > FULL_READ.min) limit /= 2;
  }
}

/** The first page of a full read, for a caller that decides from it whether to read the rest (`fullRead(..., first)`). */
export function firstPage(client: ApiClient, request: Omit<ListRequest, 'limit' | 'page'>): Promise<Page> {
  return fetchPage(client, { ...request, limit: FULL_READ.first }, 1);
}

/**
 * Every page from `request.page` (default 1) on, in order, until an empty page or our own
 * counter reaches `maxpage`. A server (or a caching proxy) that ignores `page` and answers the
 * same page again would make this loop forever: a page that repeats the previous one (the same
 * `currentpage`, or the same first and last records) stops it with a protocol error (exit 6).
 */
export async function* allPages(client: ApiClient, request: ListRequest): AsyncGenerator<Page> {
  let previous: { mark: string; currentpage?: number } | undefined;
  for (let page = request.page ?? 1; ; page++) {
    const current = await fetchPage(client, request, page);
    if (current.records.length === 0) return;
    const mark = pageMark(current.records);
    if (previous && (mark === previous.mark || (current.currentpage !== undefined && current.currentpage === previous.currentpage))) {
      throw new NetworkError(
        `the server answered page ${page} of ${request.path} with the same records as page ${page - 1}: it ignores \`page\`, so the list cannot be read to the end`,
        'a caching proxy may be in the way; what was printed before this message is incomplete',
      );
    }
    previous = { mark, currentpage: current.currentpage };
    yield current;
    if (current.maxpage !== undefined && page >= current.maxpage) return;
  }
}
