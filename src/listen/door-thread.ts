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
import { JournalWriter } from './journal.js';
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
let told: { first: number; events: ListenEvent[] } | undefined;
/**
 * A journaled event, told to the main thread with the others of its sync: one message a batch,
 * not one an event, and after the batch's answers went out (copying the events to the other
 * thread is work no visitor need wait for).
 */
function tell(s: number, event: ListenEvent): void {
  if (told) return void told.events.push(event);
  told = { first: s, events: [event] };
  setImmediate(flushTold);
}
function flushTold(): void {
  if (!told) return;
  const { first, events } = told;
  told = undefined;
  send({ type: 'journaled', first, events });
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
 * thread took 1–2 ms a connection, and libuv takes one new connection per turn of the loop):
 * before the URLs are given out, the door answers WARM_UP visit posts of its own, all at once,
 * at its own secret. They are read as any post is, and answered without being stored or shown.
 */
const WARM_UP = 64;
async function warmUp(doorPort: number): Promise<void> {
  const { request } = await import('node:http');
  const host = data.host === '0.0.0.0' ? '127.0.0.1' : data.host === '::' ? '::1' : data.host;
  const one = () =>
    new Promise<void>((resolve) => {
      const req = request({ host, port: doorPort, path: `/${warmSecret}/visits`, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', () => resolve());
      req.setTimeout(2_000, () => req.destroy());
      req.end(JSON.stringify({ type: 'view', shorturl: 'http://warm-up.invalid/w', country: null, city: null, referer: null, os: 'Linux', browser: 'Firefox', date: new Date().toISOString().slice(0, 19).replace('T', ' ') }));
    });
  await Promise.all(Array.from({ length: WARM_UP }, one));
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
        // told in the journal's order (a batch's appends resolve in order, batches one after
        // another), one message for the events a sync answered together
        return journal.append(event, s).then(() => tell(s, event));
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
