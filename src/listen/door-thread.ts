/**
 * The door of `linkctl listen` in a thread of its own (a worker_threads entry, bundled as
 * dist/listen-door.js): it accepts the product's posts, reads and checks them, and answers
 * them; the main thread stores each event and says when it is committed.
 *
 * Why a thread: the drivers commit synchronously (a sync of the database file each time), and
 * libuv accepts one new connection per turn of the event loop. With the door on the thread that
 * commits, a burst's fifty new connections were taken one commit apart: the last sender waited
 * 300 ms for its connection to be accepted, though each event was stored within 10 ms of
 * arriving. Here the door's loop only reads and answers, so it takes connections as they come.
 *
 * With a journal (an SQLite history, journal.ts), the door syncs each event to the journal and
 * answers; the main thread then stores it in the history. Without (PostgreSQL), the main thread
 * stores it first and says when it is committed.
 *
 * Messages, from the main thread: `durable {upTo}` (journal files whose events are all in the
 * history may go) and `close`. To it: `listening {port}` or `failed {code, message}`, then per
 * post `journaled {seq, event}` (already answered), or `store {n, event}` (answered by `stored
 * {n}` or `notStored {n, message}`), and `refused {status, why}`; `closed` after `close`, once
 * every journaled event was told.
 */
import { randomBytes } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { startDoor } from './server.js';
import { JournalWriter, journalLine } from './journal.js';
import type { ListenEvent } from './payload.js';
import type { FromDoor, ToDoor, DoorThreadData } from './door-messages.js';

const port = parentPort!;
const data = workerData as DoorThreadData;
const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
let next = 0;
/** Set once the door is announced: refusals are logged from then on, and the warm-up's secret is closed. */
let announced = false;
/**
 * The warm-up posts to a secret of its own, made now and never shown: the product keeps posting
 * to the real URLs across a restart, and those posts are stored from the first moment the port
 * is open (warming up on the real secret answered them 200 and dropped them: issue 50).
 */
const warmSecret = randomBytes(32).toString('base64url');
const send = (message: FromDoor) => port.postMessage(message);

const journal = data.journal ? new JournalWriter(data.journal) : undefined;
let seq = 0;
let told: { first: number; lines: string[] } | undefined;
/**
 * How long journaled events wait to be told to the main thread with those that follow: a message
 * costs the door far more than its text (the other thread is woken: 20 µs a message in a burst,
 * against 3 µs when nothing waits), and the main thread gathers them for 50 ms before storing
 * anyway (store.ts). Told after their answers went out: no visitor waits for this.
 */
const TELL_MS = 5;
/** A journaled event (its journal line), told to the main thread with the others of the next TELL_MS. */
function tell(s: number, line: string): void {
  if (told) return void told.lines.push(line);
  told = { first: s, lines: [line] };
  setTimeout(flushTold, TELL_MS);
}
function flushTold(): void {
  if (!told) return;
  const { first, lines } = told;
  told = undefined;
  send({ type: 'journaled', first, lines: lines.join('') });
}

port.on('message', (message: ToDoor) => {
  if (message.type === 'durable') journal?.durable(message.upTo);
  if (message.type === 'stored' || message.type === 'notStored') {
    const w = waiting.get(message.n);
    waiting.delete(message.n);
    if (message.type === 'stored') w?.resolve();
    else w?.reject(new Error(message.message));
  }
});

/**
 * The door's first requests compile Node's HTTP code and the door's own on this thread (a cold
 * thread took 1–2 ms a connection, and libuv takes one new connection per turn of the loop), and
 * V8 optimises what runs often only after it ran a few hundred times: before the URLs are given
 * out, the door answers WARM_UP visit posts of its own from WARM_SENDERS senders at once, half
 * on a new connection each (as the product sends them) and half kept alive (a proxy in front).
 * They are read as any post is, and answered without being stored or shown, at the door's own
 * secret. Measured (issue 52): 64 posts at once left the first burst after a start at 0.17 ms of
 * CPU a post and its p99 1.2 times a bare server's; 500 from 50 senders, 0.15 ms and 1.15 times,
 * for about 0.13 s more at start (0.45 s from the command to the URLs, against 0.32 s).
 */
const WARM_UP = 500;
const WARM_SENDERS = 50;
async function warmUp(doorPort: number): Promise<void> {
  const { Agent, request } = await import('node:http');
  const host = data.host === '0.0.0.0' ? '127.0.0.1' : data.host === '::' ? '::1' : data.host;
  const kept = new Agent({ keepAlive: true, maxSockets: WARM_SENDERS });
  // 2 s in all at most, as one post's timeout was: a door whose own posts hang (an address that
  // drops traffic to itself) starts after that, as before
  const until = Date.now() + 2_000;
  const one = (agent: InstanceType<typeof Agent> | false) =>
    new Promise<void>((resolve) => {
      const req = request({ host, port: doorPort, path: `/${warmSecret}/visits`, method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', () => resolve());
      req.setTimeout(Math.max(1, until - Date.now()), () => req.destroy());
      req.end(JSON.stringify({ type: 'view', shorturl: 'http://warm-up.invalid/w', country: null, city: null, referer: null, os: 'Linux', browser: 'Firefox', date: new Date().toISOString().slice(0, 19).replace('T', ' ') }));
    });
  let left = WARM_UP;
  await Promise.all(
    Array.from({ length: WARM_SENDERS }, async (_, i) => {
      while (left-- > 0 && Date.now() < until) await one(i % 2 ? kept : false);
    }),
  );
  kept.destroy();
}

try {
  const door = await startDoor({
    host: data.host,
    port: data.port,
    secret: data.secret,
    warmUp: { secret: warmSecret, warming: () => !announced },
    store: (event: ListenEvent) => {
      if (journal) {
        const s = seq++;
        const line = journalLine(event);
        // told in the journal's order (a batch's appends resolve in order, batches one after
        // another), one message for the events answered in the next TELL_MS
        return journal.append(line, s).then(() => tell(s, line));
      }
      return new Promise<void>((resolve, reject) => {
        const n = next++;
        waiting.set(n, { resolve, reject });
        send({ type: 'store', n, event });
      });
    },
    // the main thread prints when it is told the event is stored
    stored: () => {},
    refused: data.tellRefused ? (status, why) => announced && send({ type: 'refused', status, why }) : undefined,
  });
  port.on('message', (message: ToDoor) => {
    if (message.type !== 'close') return;
    void door.close().then(async () => {
      await journal?.idle();
      flushTold(); // every event answered is told before `closed`
      await journal?.close();
      send({ type: 'closed' });
    });
  });
  await warmUp(door.port);
  announced = true;
  send({ type: 'listening', port: door.port });
} catch (error) {
  const e = error as NodeJS.ErrnoException;
  send({ type: 'failed', code: e.code, message: e.message });
}
