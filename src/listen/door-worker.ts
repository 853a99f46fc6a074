/**
 * The main thread's side of the door's thread (door-thread.ts): the same Door as startDoor
 * gives, with the door's reading and answering on its own thread and the storing here.
 * An event is answered 2xx by the door only after `store` resolved here (it was committed), or,
 * with a journal, after the door synced it there (then it is told here by `journal.journaled`).
 */
import { Worker } from 'node:worker_threads';
import type { Door, DoorOptions } from './server.js';
import type { DoorThreadData, FromDoor, ToDoor } from './door-messages.js';
import { journalEvents } from './journal.js';

/** The bundled entry (scripts/build.mjs): dist/listen-door.js, beside the CLI's entry, one folder above the chunks. */
function threadEntry(): URL {
  return new URL(import.meta.url.includes('/chunks/') ? '../listen-door.js' : './listen-door.js', import.meta.url);
}

export class DoorError extends Error {
  constructor(message: string, readonly code: string | undefined) {
    super(message);
  }
}

export function startDoorThread(options: Omit<DoorOptions, 'clock'>): Promise<Door> {
  const data: DoorThreadData = { host: options.host, port: options.port, secret: options.secret, tellRefused: options.refused !== undefined, journal: options.journal?.dir };
  const worker = new Worker(threadEntry(), { workerData: data });
  const tell = (message: ToDoor) => worker.postMessage(message);
  let closed: (() => void) | undefined;
  let exited = false;
  let started = false;
  return new Promise<Door>((resolve, reject) => {
    worker.once('error', reject);
    // A thread that ended (it failed, or was never started) has nothing to close: closing must not wait for it.
    worker.once('exit', (code) => {
      exited = true;
      if (closed) return closed();
      // not asked to close: before it listened, the start fails; after, the door stopped answering
      const ended = new DoorError(`the door's thread ended (code ${code})`, undefined);
      if (started) options.failed?.(ended);
      else reject(ended);
    });
    worker.on('message', (message: FromDoor) => {
      switch (message.type) {
        case 'listening':
          started = true;
          worker.off('error', reject);
          // a failure of the thread after this is a door that no longer answers
          worker.on('error', (error) => options.failed?.(error));
          resolve({
            port: message.port,
            durable: (upTo) => {
              if (!exited) tell({ type: 'durable', upTo });
            },
            close: () =>
              new Promise<void>((done) => {
                if (exited) return done();
                closed = done;
                tell({ type: 'close' });
              }).then(() => worker.terminate().then(() => undefined)),
          });
          return;
        case 'failed':
          void worker.terminate();
          return reject(new DoorError(message.message, message.code));
        case 'store': {
          const { n, event } = message;
          options.store(event).then(
            () => {
              tell({ type: 'stored', n });
              options.stored(event);
            },
            (error: unknown) => tell({ type: 'notStored', n, message: (error as Error).message }),
          );
          return;
        }
        case 'journaled':
          journalEvents(message.lines).forEach((event, i) => options.journal?.journaled(event, message.first + i));
          return;
        case 'refused':
          return options.refused?.(message.status, message.why);
        case 'closed':
          return closed?.();
      }
    });
  });
}
