/**
 * The stdio transport of `linkctl mcp`: newline-delimited JSON-RPC, as the SDK's own
 * StdioServerTransport, but a line that is too long or not a message gets an answer and the
 * server goes on. (The SDK's closes the transport, ending the server without a word, once 10 MB
 * arrive without a newline, and answers nothing to a line that is not JSON.)
 *
 * - A message over MAX_MESSAGE_BYTES is not kept: its bytes are dropped as they arrive, up to the
 *   newline, and it is answered with -32600 (Invalid Request), with its id when the first bytes
 *   name one (so the client's call fails instead of waiting forever).
 * - A line that is not JSON: -32700 (Parse error), id null. JSON that is not a JSON-RPC message:
 *   -32600, with its id when it has one.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The longest message taken, in bytes (a tool call's arguments are far smaller). */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** How much of a dropped message is kept to find its id. */
const HEAD_BYTES = 64 * 1024;

type Id = string | number | null;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  /** The message being dropped: its first bytes, and how many it has had so far. */
  private dropping?: { head: Buffer; bytes: number };
  private closed = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    /** A line for the person running the server (stderr). */
    private readonly log: (message: string) => void,
  ) {}

  private readonly onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let at = 0; at < bytes.length; ) {
      const newline = bytes.indexOf(0x0a, at);
      const piece = bytes.subarray(at, newline === -1 ? bytes.length : newline);
      this.take(piece);
      if (newline === -1) break;
      this.endOfLine();
      at = newline + 1;
    }
  };

  private readonly onError = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
  }

  private take(piece: Buffer): void {
    if (this.dropping) {
      this.dropping.bytes += piece.length;
      return;
    }
    if (this.size + piece.length <= MAX_MESSAGE_BYTES) {
      this.chunks.push(piece);
      this.size += piece.length;
      return;
    }
    const head = Buffer.concat([...this.chunks, piece.subarray(0, HEAD_BYTES)]).subarray(0, HEAD_BYTES);
    this.dropping = { head, bytes: this.size + piece.length };
    this.chunks = [];
    this.size = 0;
  }

  private endOfLine(): void {
    if (this.dropping) {
      const { head, bytes } = this.dropping;
      this.dropping = undefined;
      const id = idIn(head.toString('utf8'));
      this.log(`mcp: a message of ${bytes} bytes is over the limit of ${MAX_MESSAGE_BYTES} bytes; answered with an error`);
      this.reply(-32600, id, `Invalid Request: the message is ${bytes} bytes, over the limit of ${MAX_MESSAGE_BYTES} bytes (4 MiB); it was not read`);
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.log('mcp: a line that is not JSON; answered with a parse error');
      this.reply(-32700, null, 'Parse error: the line is not JSON (one JSON-RPC message a line)');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = value && typeof value === 'object' && !Array.isArray(value) ? (value as { id?: unknown }).id : undefined;
      this.log('mcp: a message that is not JSON-RPC; answered with an error');
      this.reply(-32600, typeof id === 'string' || typeof id === 'number' ? id : null, 'Invalid Request: not a JSON-RPC 2.0 message (jsonrpc "2.0", and a method or a result)');
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private reply(code: number, id: Id, message: string): void {
    void this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  private write(text: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.stdout.write(text)) resolve();
      else this.stdout.once('drain', () => resolve());
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause?.();
    this.chunks = [];
    this.onclose?.();
  }
}

/**
 * The top-level `id` of a message from its first bytes: a string or a number after the key "id"
 * at depth 1 (not an `id` inside params, such as a tool's argument). Undefined: null.
 */
export function idIn(head: string): Id {
  let depth = 0;
  for (let i = 0; i < head.length; i++) {
    const c = head[i];
    if (c === '"') {
      const end = stringEnd(head, i);
      if (end === -1) return null;
      const isIdKey = depth === 1 && head.slice(i, end + 1) === '"id"' && /^\s*:/.test(head.slice(end + 1, end + 40));
      if (isIdKey) {
        const value = /^\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?)/.exec(head.slice(end + 1, end + 300));
        if (!value) return null;
        return value[1]!.startsWith('"') ? (JSON.parse(value[1]!) as string) : Number(value[1]);
      }
      i = end;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return null;
}

function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}
