/**
 * Paging of list tools' answers: the cursor an answer ends with, and the lists held between
 * calls. A cursor is opaque to the agent; inside, it is the tool, the call's arguments (so that
 * a cursor alone goes on), the index of the list's next record, the page size asked of the server
 * (paged tools: a list no longer held is read again from there) and which held list it goes on
 * through. It is checked when it comes back: nothing in it is trusted beyond what a call could give.
 */
import { randomBytes } from 'node:crypto';
import type { Tool } from './tools.js';

export interface Cursor {
  /** The tool. */
  t: string;
  /** The call's arguments, without where it started (page, all) and without cursor and maxBytes. */
  a: Record<string, unknown>;
  /** The index in the whole list of the next record. */
  o: number;
  /** The page size asked of the server (paged tools). */
  l?: number;
  /** The held list it goes on through, if any. */
  h?: string;
  /** The call's maxBytes, when it gave one: the next answers keep to it unless told otherwise. */
  m?: number;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

/** The cursor, or what is wrong with it (for the message). */
export function decodeCursor(raw: string, tool: Tool): Cursor | string {
  let cursor: Partial<Cursor>;
  try {
    cursor = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Cursor>;
  } catch {
    return '`cursor` is not one this server gave: pass the nextCursor of the previous answer as it is';
  }
  const whole = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  if (!cursor || typeof cursor !== 'object' || typeof cursor.t !== 'string' || !cursor.a || typeof cursor.a !== 'object' || Array.isArray(cursor.a) || !whole(cursor.o) || (cursor.l !== undefined && !(whole(cursor.l) && cursor.l! > 0)) || (cursor.h !== undefined && typeof cursor.h !== 'string') || (cursor.m !== undefined && !whole(cursor.m))) {
    return '`cursor` is not one this server gave: pass the nextCursor of the previous answer as it is';
  }
  if (cursor.t !== tool.name) return `\`cursor\` goes on with a list of ${cursor.t}, not of ${tool.name}: call ${cursor.t} with it`;
  // Its arguments are checked again as the call's own would be (a cursor could be made by hand).
  const known = new Set(tool.params.map((p) => p.name));
  const stranger = Object.keys(cursor.a).find((name) => !known.has(name) || ['cursor', 'maxBytes', 'page', 'all'].includes(name));
  if (stranger) return `\`cursor\` carries "${stranger}", which ${tool.name} does not take there: pass the nextCursor of the previous answer as it is`;
  return cursor as Cursor;
}

interface Entry<T> {
  tool: string;
  args: string;
  list: T;
}

/**
 * The last few lists not yet answered in full, by a random id: a cursor names one, so the next
 * answer comes from memory (no request; `check` is not run again). The oldest is let go first.
 */
export class Held<T = unknown> {
  static readonly SIZE = 8;
  private readonly entries = new Map<string, Entry<T>>();

  /** Keeps `list` (once: the same list keeps its id) and returns its id. */
  keep(list: T, tool: string, args: Record<string, unknown>): string {
    for (const [id, entry] of this.entries) if (entry.list === list) return id;
    const id = randomBytes(6).toString('base64url');
    this.entries.set(id, { tool, args: JSON.stringify(args), list });
    while (this.entries.size > Held.SIZE) this.entries.delete(this.entries.keys().next().value!);
    return id;
  }

  /** The list held under `id` for this tool and these arguments (a list of another call is not it). */
  get(id: string, tool: string, args: Record<string, unknown>): T | undefined {
    const entry = this.entries.get(id);
    if (!entry || entry.tool !== tool || entry.args !== JSON.stringify(args)) return undefined;
    // Used again: the last to be let go.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry.list;
  }
}
