/**
 * The shapes of what goes into the click history and comes out of it: records and snapshots as
 * the store takes them (HistoryRecord, SnapshotInput), what it answers (SnapshotResult, Source,
 * SnapshotRow, Item), and how its readers are told each stored change (CountVisitor). Apart from
 * the store (./store.ts), which re-exports them, so that its code is the database's alone.
 */
import type { Dimension, ItemKind } from './kinds.js';
import type { RawCount } from './values.js';

/** A link's top countries (referrers, browsers, systems) with their counts, as the server sent them. */
export type Details = Partial<Record<Dimension, Record<string, RawCount>>>;

/** One record's totals, as the server (or an import) gives them; the store checks them (values.ts). */
export interface HistoryRecord {
  kind: ItemKind;
  /** The server's id; absent for a record imported from another tool (matched by alias later). */
  id?: number;
  /** A link's alias (back-half); for QR codes and campaigns their name. */
  alias?: string;
  /** A link's title, a QR code's or campaign's name. */
  label?: string;
  /** A link's short URL, a QR code's image URL. */
  url?: string;
  /** A link's campaign id. */
  campaign?: number | null;
  /** Clicks (links), scans (QR codes), views (campaigns): a count, else the record's totals are refused. */
  clicks: RawCount;
  /** The server's unique-visitor count (links only); null or absent: unknown. */
  uniqueClicks?: RawCount;
  details?: Details;
}

/** One account on one server; snapshots of the same account from different machines share it. */
export interface SourceRef {
  baseUrl: string;
  /** The account's id on that server (its username when there is no id). */
  account: string;
  /** For people: the account's username or email. */
  name?: string;
}

export interface SnapshotInput {
  source: SourceRef;
  records: readonly HistoryRecord[];
  /**
   * Epoch ms: when the reads finished (the totals are the server's at that time). Default: the
   * clock (LINKCTL_NOW, else now). Snapshots of a source are kept in this order: one that would
   * come before the newest stored one (a process that read first and was slower to write) is
   * refused, and so is one later than `notAfter`.
   */
  at?: number;
  /**
   * The latest acceptable time (epoch ms): a trusted clock (the API server's Date) plus the
   * allowed skew. Default: this machine's real clock plus CLOCK_SKEW_MS.
   */
  notAfter?: number;
  /** For the message when `at` is later than `notAfter`: whose clock that is (`the server's`). */
  notAfterClock?: string;
  /** 'api' (the default) or `import:<tool>`. */
  origin?: string;
  /** The records are every record of `kinds` in the account (default: true for 'api'): an item missing from them is gone. */
  complete?: boolean;
  /** What the snapshot read in full (default: all three). */
  kinds?: readonly ItemKind[];
  profile?: string;
  /** Work out what would be stored, and roll it back (`--dry-run`). */
  dryRun?: boolean;
}

export interface SnapshotResult {
  snapshot: number;
  takenAt: string;
  links: number;
  qrs: number;
  campaigns: number;
  /** Rows written: records new or changed since their previous snapshot, and records gone. */
  changed: number;
  gone: number;
  details: number;
  /** The source's first snapshot: nothing to compare with yet. */
  first: boolean;
  /** An import's records whose link already has a history from the server: that history is kept, the import's total not stored. */
  kept: number;
  /** Records whose totals were not counts (negative, fractional, huge, not a number): not stored, their previous totals stand. */
  refused: number;
  /** Names of `--details` lists whose count was not a count: left out. */
  refusedDetails: number;
  /** Texts (names, aliases, URLs) holding NUL or a broken character, stored with U+FFFD in its place. */
  cleanedTexts: number;
  /** A few of the refused values (`link 12 clicks -1`), for the summary. */
  refusedExamples: string[];
}

/** How far ahead of a trusted clock a snapshot may be dated: clocks drift, NTP corrects. */
export const CLOCK_SKEW_MS = 5 * 60_000;

export interface Source {
  id: number;
  baseUrl: string;
  account: string;
  name: string | null;
  snapshots: number;
  newest: string | null;
  profiles: string[];
}

export interface SnapshotRow {
  id: number;
  at: number;
  origin: string;
  complete: boolean;
}

export interface Item {
  id: number;
  kind: ItemKind;
  remoteId: number | null;
  alias: string | null;
  label: string | null;
  url: string | null;
  campaign: number | null;
}

/** Told each stored change: item, snapshot, totals (clicks null: the item was gone). */
export type CountVisitor = (itemId: number, snapshotId: number, clicks: number | null, uniqueClicks: number | null) => void;
