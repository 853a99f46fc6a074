/**
 * `--all` over a large account parses page after page of short-lived JSON; V8 answers by growing
 * its young generation to tens of MB, so peak memory would grow with the account. Keeping it at
 * its size costs a few more minor collections and keeps memory flat (measured: 130 MB -> 101 MB
 * peak over 100,000 links). Only for long listings: at start-up the same setting costs ~30 ms.
 *
 * With the young generation small, what a page holds is promoted to the old generation, which V8
 * lets grow up to 4 times its size after each full collection before the next. Since `--all`
 * reads in pages of up to 8,000 records (src/http/pages.ts, FULL_READ), that made peak memory over
 * 100,000 links 145-190 MB (over the 150 MB budget of docs/performance.md). Growing by 30% at most
 * holds it at 105-120 MB; `stats export` of a year took the same time (833 ms against 833 ms, 8
 * alternating runs), `link list --all` of 100,000 links 5-7% longer (1.77 s against 1.65 s, medians of 6).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function keepMemoryFlat(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=30');
}

let gc: (() => void) | undefined;

/**
 * A full collection now. Bulk validation runs a whole file through the actions without a pause;
 * V8 lets the garbage of tens of thousands of rows reach the old generation before it collects
 * it (measured: 86 MB peak over 100,000 rows, 67 MB with a collection every 5,000 rows).
 */
export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
