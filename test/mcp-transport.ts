/**
 * `linkctl mcp` for the SDK's own Client without a process: the built CLI's main() in this process
 * (startCli), its stdin and stdout joined to the client by pipes in memory. The server reads and
 * writes the same newline-delimited JSON-RPC it does over a real pipe; StdioClientTransport (a
 * process of its own) stays for the tests of the process itself.
 */
import { PassThrough } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { startCli } from './helpers.js';

export class InProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Everything the server wrote to stderr so far. */
  stderr = '';
  /** The server's exit code, once it has ended (after `close`). */
  exited?: Promise<number>;
  private readonly toServer = new PassThrough();
  private readonly fromServer = new PassThrough();
  private readonly buffer = new ReadBuffer();

  constructor(private readonly args: string[], private readonly env: Record<string, string>) {}

  async start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      try {
        for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage()) this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    });
    const stderr = { write: (chunk: string | Uint8Array) => ((this.stderr += Buffer.from(chunk).toString('utf8')), true), isTTY: false };
    this.exited = startCli(['mcp', ...this.args], { env: this.env, stdin: this.toServer, stdout: this.fromServer, stderr });
    this.exited.then(() => this.fromServer.end(), (error: Error) => this.onerror?.(error));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
  }

  /** Closes the server's stdin, as a client closing the pipe does, and waits for it to end. */
  async close(): Promise<void> {
    this.toServer.end();
    await this.exited;
    this.onclose?.();
  }
}
