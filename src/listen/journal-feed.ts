/**
 * The main thread's side of listen's journal (journal.ts): events the door synced to the journal
 * and answered are stored in the history here, printed and forwarded once stored, and, about once
 * two seconds, covered by a commit that syncs, after which the door may remove their journal files.
 *
 * An event the history refuses (locked past its timeout, a full disk, a trigger) was answered
 * 2xx already: it stays in the journal, is tried again every two seconds, and at the end is left for
 * the next start to store (journal.ts: the files of a process that no longer runs).
 */
import type { ListenEvent } from './payload.js';
import type { EventStore } from './store.js';
import { leftFiles, removeFiles, type JournalFile } from './journal.js';

/** How often a synced commit lets the door drop journal files (a journal holds about this much of the events). */
const SYNC_MS = 2_000;

export interface FeedLog {
  /** Stored in the history: print it, wake the forwarders. */
  stored(event: ListenEvent): void;
  /** Events answered 2xx that the history refused for now (said once a failure starts, and when it changes). */
  failed(count: number, why: string): void;
}

export class JournalFeed {
  /** Door sequence numbers told here and not yet stored (or refused for now: `unstored`). */
  private readonly pending = new Set<number>();
  private readonly unstored = new Map<number, ListenEvent>();
  private received = -1;
  private dirty = false;
  private told: string | undefined;
  private readonly timer: NodeJS.Timeout;
  private ticking: Promise<void> = Promise.resolve();

  constructor(private readonly store: EventStore, private readonly dir: string, private readonly durable: (upTo: number) => void, private readonly log: FeedLog) {
    this.timer = setInterval(() => {
      this.ticking = this.ticking.then(() => this.tick()).catch(() => undefined);
    }, SYNC_MS);
    this.timer.unref();
  }

  /** An event the door synced to the journal and answered (its `seq`-th). */
  take(event: ListenEvent, seq: number): void {
    this.received = Math.max(this.received, seq);
    this.pending.add(seq);
    this.store.add(event).then(
      () => this.stored(seq, event),
      (error: unknown) => this.refused(seq, event, error),
    );
  }

  private stored(seq: number, event: ListenEvent): void {
    this.pending.delete(seq);
    this.unstored.delete(seq);
    this.dirty = true;
    this.log.stored(event);
    if (!this.unstored.size) this.told = undefined;
  }

  private refused(seq: number, event: ListenEvent, error: unknown): void {
    this.unstored.set(seq, event);
    const why = (error as Error).message;
    if (this.told !== why) this.log.failed(this.unstored.size, why);
    this.told = why;
  }

  /** The door's sequence up to which every event is stored. */
  private upTo(): number {
    let least = this.received + 1;
    for (const s of this.pending) least = Math.min(least, s);
    return least - 1;
  }

  /** Tries the refused events again; then, if anything was stored since, a synced commit, and the door told. */
  private async tick(): Promise<void> {
    for (const [seq, event] of [...this.unstored]) {
      await this.store.add(event).then(
        () => this.stored(seq, event),
        (error: unknown) => this.refused(seq, event, error),
      );
    }
    if (!this.dirty) return;
    this.dirty = false;
    const upTo = this.upTo();
    await this.store.sync();
    this.durable(upTo);
  }

  /**
   * After the door closed (every journaled event told): stores what is left, syncs, and removes
   * this process's journal files when every event in them is durable in the history. Returns how
   * many events answered 2xx are not in the history (they stay in the journal for the next start).
   */
  async stop(): Promise<{ unstored: number; why: string | undefined }> {
    clearInterval(this.timer);
    await this.ticking;
    await this.store.flush();
    this.dirty = true;
    await this.tick().catch(() => undefined);
    if (!this.unstored.size) removeFiles(leftFiles(this.dir, true));
    return { unstored: this.unstored.size, why: this.told };
  }
}

/**
 * At start, before the door opens: the events in journal files that processes no longer running
 * left (answered 2xx, perhaps not yet in the history), stored with a synced commit, and those
 * files removed. Returns how many of them the history did not hold yet, and how many it refused.
 */
export async function storeLeftEvents(store: EventStore, dir: string): Promise<{ files: number; added: number; refused: number; why?: string }> {
  const files: JournalFile[] = leftFiles(dir);
  const events = files.flatMap((f) => f.events);
  if (!events.length) {
    removeFiles(files);
    return { files: files.length, added: 0, refused: 0 };
  }
  const before = await store.count();
  const results = await Promise.allSettled(events.map((e) => store.add(e)));
  const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  await store.sync();
  const added = (await store.count()) - before;
  if (!failures.length) removeFiles(files);
  return { files: files.length, added, refused: failures.length, why: failures[0] ? (failures[0].reason as Error).message : undefined };
}
