/**
 * Time for click history: the clock (with its override for tests and demos), `--since` and
 * `--until` values, and the periods series are cut into. Periods are UTC: a day is a UTC day,
 * a week an ISO week (Monday to Sunday), so that snapshots from machines in other time zones
 * land in the same periods.
 */
import { UsageError } from '../errors.js';
import { PERIODS, type Period } from './kinds.js';
import { thousands } from '../numbers.js';

/**
 * LINKCTL_NOW (an ISO date or time, e.g. 2025-06-01T06:00:00Z) stands in for the clock of every
 * `stats` command: the time a snapshot is recorded at and the end of `--since` windows. For
 * tests and demos (a year of daily snapshots in a minute); never needed in real use.
 */
export const CLOCK_ENV = 'LINKCTL_NOW';

export function now(env: Record<string, string | undefined>): number {
  const fixed = env[CLOCK_ENV];
  if (fixed === undefined || fixed === '') return Date.now();
  const ms = parseTime(fixed);
  if (ms === undefined) throw new UsageError(`${CLOCK_ENV} must be an ISO date or time such as 2025-06-01 or 2025-06-01T06:00:00Z, got ${JSON.stringify(fixed.slice(0, 40))}`, `unset ${CLOCK_ENV} to use the real clock`);
  return ms;
}

/** `2025-06-01`, `2025-06-01T06:00`, `2025-06-01 06:00:00Z`...; without a zone, UTC. */
export function parseTime(raw: string): number | undefined {
  const text = raw.trim().replace(' ', 'T');
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return undefined;
  const zoned = /T.*(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : text.includes('T') ? `${text}Z` : `${text}T00:00:00Z`;
  const ms = Date.parse(zoned);
  return Number.isFinite(ms) ? ms : undefined;
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
const UNITS: Record<string, number> = { h: HOUR, d: DAY, w: 7 * DAY };

/** `--since 30d` (hours, days, weeks before now) or a date/time; returns epoch ms. */
export function parseSince(flag: string, raw: string, nowMs: number): number {
  const relative = /^(\d{1,5})([hdw])$/.exec(raw.trim());
  if (relative) return nowMs - Number(relative[1]) * UNITS[relative[2]!]!;
  const at = parseTime(raw);
  if (at === undefined) throw new UsageError(`${flag} must be a duration before now (48h, 30d, 12w) or a date (2025-06-01, 2025-06-01T06:00Z), got ${JSON.stringify(raw.slice(0, 40))}`, `e.g. ${flag} 30d, or ${flag} 2025-06-01`);
  return at;
}

export { PERIODS, type Period };

/** How far back `stats show` looks when --since is not given. */
export const DEFAULT_SINCE: Record<Period, string> = { hour: '48h', day: '30d', week: '12w', month: '52w' };

/** The start of the period that holds `ms`. */
export function periodStart(by: Period, ms: number): number {
  const d = new Date(ms);
  switch (by) {
    case 'hour':
      return Math.floor(ms / HOUR) * HOUR;
    case 'day':
      return Math.floor(ms / DAY) * DAY;
    case 'week': {
      const day = Math.floor(ms / DAY) * DAY;
      const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday = 0
      return day - weekday * DAY;
    }
    case 'month':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
}

export function nextPeriod(by: Period, start: number): number {
  if (by === 'month') {
    const d = new Date(start);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  return start + (by === 'hour' ? HOUR : by === 'day' ? DAY : 7 * DAY);
}

/** The name of a period: `2025-06-01T14` (hour), `2025-06-01` (day), `2025-W23` (ISO week), `2025-06` (month). */
export function periodLabel(by: Period, start: number): string {
  const iso = new Date(start).toISOString();
  switch (by) {
    case 'hour':
      return iso.slice(0, 13);
    case 'day':
      return iso.slice(0, 10);
    case 'month':
      return iso.slice(0, 7);
    case 'week': {
      // ISO week: the week belongs to the year of its Thursday.
      const thursday = new Date(start + 3 * DAY);
      const year = thursday.getUTCFullYear();
      const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY)) + 1;
      return `${year}-W${String(week).padStart(2, '0')}`;
    }
  }
}

/** The most periods one `stats` command cuts a window into: bounded work whatever the flags. */
export const MAX_PERIODS = 10_000;

/** Starts of the periods from the one holding `since` to the one holding `until`. */
export function periodsBetween(by: Period, since: number, until: number): number[] {
  const starts: number[] = [];
  for (let start = periodStart(by, since); start <= until; start = nextPeriod(by, start)) {
    starts.push(start);
    if (starts.length > MAX_PERIODS) {
      throw new UsageError(`--since and --by ${by} make more than ${thousands(MAX_PERIODS)} periods`, 'choose a later --since or a longer --by (day, week, month)');
    }
  }
  return starts;
}

/** A time as it is stored and printed: ISO 8601 in UTC, to the millisecond (sorts as text). */
export const iso = (ms: number): string => new Date(ms).toISOString();
