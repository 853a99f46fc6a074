/**
 * The door of `linkctl listen`: an HTTP server that takes the product's two posts at
 * `/<secret>/created` and `/<secret>/visits`. The product sends them while its visitor waits
 * for the redirect, so the door answers as soon as the event is stored (group commit, see
 * store.ts), and everything slow (printing, forwarding) comes after.
 *
 * - wrong or missing secret, any other path: 404 (the same answer: nothing says the secret was close)
 * - not POST: 405; a body over MAX_BODY bytes: 413 (read no further); not JSON or not the
 *   product's shape: 400. None of these is an event.
 * - the event could not be stored (disk full, database gone): 503, so nothing unstored is acknowledged.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { parsePayload, PayloadError, type Hook, type ListenEvent } from './payload.js';

export const MAX_BODY = 64 * 1024;

export interface Door {
  port: number;
  close(): Promise<void>;
  /** With a journal: the events up to `upTo` (the door's sequence) are durable in the history. */
  durable?(upTo: number): void;
}

export interface DoorOptions {
  host: string;
  port: number;
  secret: string;
  /** Stores the event durably; the post is answered 2xx when it resolves. */
  store: (event: ListenEvent) => Promise<void>;
  /** Told of each stored event, after its answer was sent. */
  stored: (event: ListenEvent) => void;
  /** Told of each refused post (status and why), for the log. */
  refused?: (status: number, why: string) => void;
  /** Told when the door stops by itself (its thread failed, door-worker.ts): nothing more is received. */
  failed?: (error: Error) => void;
  /**
   * The warm-up's own secret (door-thread.ts): posts to it are read as any post and answered
   * without being stored, while `warming()` says so; then it is a wrong secret like any other.
   * The product only knows the real secret, so nothing it sends is ever answered unstored.
   */
  warmUp?: { secret: string; warming: () => boolean };
  /**
   * The door's thread syncs each event to the journal in `dir` (journal.ts) before its 2xx, and
   * tells `journaled` of it after (the door's sequence number); `store` is then not called.
   */
  journal?: { dir: string; journaled: (event: ListenEvent, seq: number) => void };
  clock?: () => number;
}

const sameSecret = (given: string, secret: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
};

function answer(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
}

export function startDoor(options: DoorOptions): Promise<Door> {
  const clock = options.clock ?? Date.now;
  const refuse = (res: ServerResponse, status: number, why: string) => {
    options.refused?.(status, why);
    answer(res, status, { ok: false, error: why });
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const m = /^\/([^/]+)\/(created|visits)\/?$/.exec(path);
    const warm = m !== null && options.warmUp !== undefined && options.warmUp.warming() && sameSecret(m[1]!, options.warmUp.secret);
    if (!m || (!warm && !sameSecret(m[1]!, options.secret))) {
      req.resume();
      return refuse(res, 404, 'not found');
    }
    const hook = m[2] as Hook;
    if (req.method !== 'POST') {
      req.resume();
      res.setHeader('Allow', 'POST');
      return refuse(res, 405, 'only POST');
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_BODY) {
      // answered without reading it; the connection closes so the rest is not read either
      res.setHeader('Connection', 'close');
      refuse(res, 413, `the body is over ${MAX_BODY} bytes`);
      req.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > MAX_BODY) {
        over = true;
        res.setHeader('Connection', 'close');
        refuse(res, 413, `the body is over ${MAX_BODY} bytes`);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (over) return;
      let event: ListenEvent;
      try {
        event = parsePayload(hook, Buffer.concat(chunks).toString('utf8'), clock());
      } catch (error) {
        if (error instanceof PayloadError) return refuse(res, 400, error.message);
        throw error;
      }
      if (warm) return answer(res, 200, { ok: true, id: event.id });
      options.store(event).then(
        () => {
          answer(res, 200, { ok: true, id: event.id });
          options.stored(event);
        },
        (error: unknown) => refuse(res, 503, `not stored: ${(error as Error).message}`),
      );
    });
    req.on('error', () => {});
  });
  // Senders keep connections open (50 at once in a burst): no idle limit beyond Node's.
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections(); // (no listener of ours on each connection: a burst opens thousands)
        }),
      });
    });
  });
}
