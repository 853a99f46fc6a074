/** What the door's thread (door-thread.ts) and the main thread (door-worker.ts) tell each other. */
import type { ListenEvent } from './payload.js';

export interface DoorThreadData {
  host: string;
  port: number;
  secret: string;
  /** Whether to tell the main thread of refused posts (--debug logs them). */
  tellRefused: boolean;
}

export type FromDoor =
  | { type: 'listening'; port: number }
  | { type: 'failed'; code: string | undefined; message: string }
  | { type: 'store'; n: number; event: ListenEvent }
  | { type: 'refused'; status: number; why: string }
  | { type: 'closed' };

export type ToDoor = { type: 'stored'; n: number } | { type: 'notStored'; n: number; message: string } | { type: 'close' };
