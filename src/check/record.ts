/** What `check` says of each destination: printed as results, and kept between runs (./store.ts). */
import type { LinkFinding } from './account.js';
import type { Hop } from './probe.js';
import type { Flag, Status } from './statuses.js';

export type Change = 'newly-broken' | 'fixed' | 'changed';

/** One line of the results: a link's destination (or one of its targets), or a QR code's. */
export interface CheckRecord {
  link: number | null;
  qr: number | null;
  alias: string | null;
  shorturl: string | null;
  /** `geo:canada`, `device:iphone`; null for the link's own destination. */
  target: string | null;
  destination: string;
  status: Status;
  /** What else is true of the destination: `insecure`, `slow`. */
  flags: Flag[];
  code: number | null;
  chain: Hop[];
  error: string | null;
  findings: LinkFinding[];
  checkedAt: string;
  /** With --since-last: what changed, and the status of the previous check (null: not in it). */
  change?: Change;
  previous?: Status | null;
}
