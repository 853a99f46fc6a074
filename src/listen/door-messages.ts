/** What the door's thread (door-thread.ts) and the main thread (door-worker.ts) tell each other. */
import type { ListenEvent } from './payload.js';

export interface DoorThreadData {
  host: string;
  port: number;
  secret: string;
  /** Whether to tell the main thread of refused posts (--debug logs them). */
  tellRefused: boolean;
  /** The journal's folder (journal.ts): the door syncs each event there before its 2xx; undefined: the main thread stores it first (PostgreSQL). */
  journal?: string;
}

export type FromDoor =
  | { type: 'listening'; port: number }
  | { type: 'failed'; code: string | undefined; message: string }
  | { type: 'store'; n: number; event: ListenEvent }
  /**
   * Events synced to the journal and answered: the door's `first`-th and those after it, in
   * order, as the journal's lines (journal.ts `journalLine`). Text, not objects: a string is
   * copied to the other thread whole, where objects were cloned field by field on the door's
   * thread (13 µs an event, the door's largest single cost in a burst; issue 52).
   */
  | { type: 'journaled'; first: number; lines: string }
  | { type: 'refused'; status: number; why: string }
  | { type: 'closed' };

export type ToDoor = { type: 'stored'; n: number } | { type: 'notStored'; n: number; message: string } | { type: 'durable'; upTo: number } | { type: 'close' };
