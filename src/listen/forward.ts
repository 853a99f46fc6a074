/**
 * `--forward-to URL`: each stored event POSTed to each target, in arrival order, signed as
 * Stripe signs its webhooks:
 *
 *   Linkctl-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the secret>
 *
 * The outbox is the events table itself: each target has a cursor (event_forwards) moved past an
 * event only after the target answered it 2xx. A failure (an error, a timeout, a status other
 * than 2xx, a redirect) is retried with backoff, from 1 s doubling to 60 s; a restart sends on
 * from the cursor. So every event reaches every target at least once, in order, and a target
 * that must see each once de-duplicates by the body's `id`.
 *
 * Targets are those the user named on the command line: they are not put through `check`'s guard
 * against private addresses (a receiver on localhost or in the office network is the usual case).
 * Of a target's answer only the status counts: at most MAX_ANSWER bytes of its body are read.
 */
import { createHmac } from 'node:crypto';
import { eventJson, type ListenEvent } from './payload.js';
import type { EventStore } from './store.js';

export const SIGNATURE_HEADER = 'Linkctl-Signature';
const FIRST_RETRY_MS = 1_000;
const LAST_RETRY_MS = 60_000;
const TIMEOUT_MS = 10_000;
/** The most of a target's answer read: only its status counts (an endless 200 took listen to 3.4 GB). */
export const MAX_ANSWER = 64 * 1024;

/** Reads and drops up to MAX_ANSWER bytes of an answer (so the connection can be used again), then lets go of the rest. */
async function discard(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.byteLength;
      if (size > MAX_ANSWER) break;
    }
  } catch {
    return; // the status was read already: a body cut off changes nothing
  }
  await reader.cancel().catch(() => undefined);
}

export function sign(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
}

export interface ForwardLog {
  delivered(target: string, event: ListenEvent): void;
  failed(target: string, event: ListenEvent | undefined, why: string, retryInMs: number): void;
}

export class Forwarder {
  private wake: (() => void) | undefined;
  private stopped = false;
  private readonly done: Promise<void>;

  constructor(private readonly store: EventStore, readonly target: string, private readonly secret: string, private readonly log: ForwardLog, private readonly clock: () => number = Date.now) {
    this.done = this.loop();
  }

  /** A new event was stored: send it now rather than at the next look. */
  poke(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.done;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(), ms);
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
    });
  }

  /** The loop, started again after a failure of the database itself (never an unhandled rejection). */
  private async loop(): Promise<void> {
    let wait = FIRST_RETRY_MS;
    while (!this.stopped) {
      try {
        await this.run();
        return;
      } catch (error) {
        this.log.failed(this.target, undefined, `the outbox could not be read or moved on (${(error as Error).message})`, wait);
        await this.sleep(wait);
        wait = Math.min(wait * 2, LAST_RETRY_MS);
      }
    }
  }

  private async run(): Promise<void> {
    let cursor = await this.store.cursor(this.target);
    let wait = FIRST_RETRY_MS;
    while (!this.stopped) {
      const batch = await this.store.after(cursor);
      if (!batch.length) {
        await this.sleep(5_000);
        continue;
      }
      for (const { rowId, event } of batch) {
        if (this.stopped) return;
        const why = await this.send(event);
        if (why) {
          this.log.failed(this.target, event, why, wait);
          await this.sleep(wait);
          wait = Math.min(wait * 2, LAST_RETRY_MS);
          break; // the same event again, in order
        }
        wait = FIRST_RETRY_MS;
        await this.store.delivered(this.target, rowId);
        cursor = rowId;
        this.log.delivered(this.target, event);
      }
    }
  }

  /** Undefined when the target took it (2xx); else why not. */
  private async send(event: ListenEvent): Promise<string | undefined> {
    const body = JSON.stringify(eventJson(event));
    try {
      const response = await fetch(this.target, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
        headers: { 'Content-Type': 'application/json', 'User-Agent': 'linkctl-listen', [SIGNATURE_HEADER]: sign(this.secret, body, Math.floor(this.clock() / 1000)) },
        body,
      });
      await discard(response);
      return response.status >= 200 && response.status < 300 ? undefined : `HTTP ${response.status}`;
    } catch (error) {
      const e = error as Error & { cause?: { code?: string } };
      return e.name === 'TimeoutError' ? `no answer in ${TIMEOUT_MS / 1000} s` : (e.cause?.code ?? e.message);
    }
  }
}
