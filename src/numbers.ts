/**
 * Counts as people read them: `12,345`. The same text as `toLocaleString('en')` gives, without
 * it: the first call of that loads ICU's number formatting, 17 ms of a run's start-up (a
 * `link add --from` spent them before its first POST, reading the links: issue 52).
 */
export function thousands(n: number): string {
  // fractions, numbers past 2^53 and -0 keep ICU's rounding and notation
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en');
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ',');
  return n < 0 ? `-${digits}` : digits;
}
