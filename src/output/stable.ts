/**
 * One shape whatever the server: older servers send ids and counts as strings ("clicks":"57")
 * and flags as 0/1. Every record json, ndjson, csv and tsv print goes through `stableJson`, so
 * documented integer fields are numbers and documented booleans are booleans; everything else
 * stays as the API sent it.
 */
import { toInt } from '../http/envelope.js';

/** Documented integer fields: ids, counts, page numbers. */
const INTEGER_KEYS = new Set(['id', 'clicks', 'uniqueclicks', 'uniqueClicks', 'scans', 'views', 'result', 'perpage', 'currentpage', 'maxpage', 'nextpage', 'prevpage']);
/** Objects whose values are counts: `topCountries: {"Canada": "31"}`, `socialCount`. */
const COUNT_MAPS = /^(top[A-Z]\w*|socialCount)$/;
/** Documented booleans that some servers send as 0/1. */
const BOOLEAN_KEYS = new Set(['public', 'starred']);

function toBool(value: unknown): unknown {
  if (value === 1 || value === '1' || value === 'true') return true;
  if (value === 0 || value === '0' || value === 'false') return false;
  return value;
}

export function stableJson(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => stableJson(v));
  if (value && typeof value === 'object') {
    const counts = key !== undefined && COUNT_MAPS.test(key);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, counts ? (toInt(v) ?? v) : stableJson(v, k)]));
  }
  if (key === undefined) return value;
  if (INTEGER_KEYS.has(key)) return toInt(value) ?? value;
  if (BOOLEAN_KEYS.has(key)) return toBool(value);
  return value;
}
