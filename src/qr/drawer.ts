/**
 * SVG images drawn into pixels in a process apart from linkctl's (resvg): a hostile SVG (nested
 * <use> elements took resvg 22 s to refuse) is stopped by a time limit and a pixel budget, and
 * cannot hold linkctl. A process, not a worker thread: Node waits for a worker's native call to
 * return before it exits (measured: 25 s after Ctrl-C), while a process is killed at once.
 *
 * One drawing process serves a run's images one after another (the product's images are all
 * SVG, and a code can take three draws to read): starting a Node process for each draw cost
 * more than the draw. A draw that passes its limit kills the process; the next draw starts a
 * new one. The process does not keep linkctl running when it has nothing to draw.
 *
 * Protocol (both ways, framed): a 4-byte big-endian length, then that many bytes.
 * - to the process: JSON `{ svg, width }`;
 * - from it: JSON `{ width, height }` or `{ error }`, then (when drawn) a frame of RGBA pixels.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { InterruptedError } from '../errors.js';

/** How long one SVG may take to draw before it is refused: the product's draw in well under a second. */
export const DRAW_TIME_LIMIT_MS = 10_000;

const DRAWER = `
const { Resvg } = require(process.argv[1]);
let buffered = Buffer.alloc(0);
const frame = (bytes) => { const head = Buffer.alloc(4); head.writeUInt32BE(bytes.length); process.stdout.write(head); process.stdout.write(bytes); };
process.stdin.on('data', (chunk) => {
  buffered = Buffer.concat([buffered, chunk]);
  while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
    const size = buffered.readUInt32BE(0);
    const { svg, width } = JSON.parse(buffered.subarray(4, 4 + size).toString('utf8'));
    buffered = buffered.subarray(4 + size);
    try {
      const doc = new Resvg(svg, { fitTo: { mode: 'width', value: width }, font: { loadSystemFonts: false }, logLevel: 'off' });
      if (!(doc.width > 0 && doc.height > 0) || doc.height / doc.width > 4 || doc.width / doc.height > 4) throw new Error('not square: ' + doc.width + 'x' + doc.height);
      const image = doc.render();
      frame(Buffer.from(JSON.stringify({ width: image.width, height: image.height })));
      frame(image.pixels);
    } catch (error) {
      frame(Buffer.from(JSON.stringify({ error: String(error && error.message || error).split('\\n')[0].slice(0, 120) })));
    }
  }
});`;

export interface Drawn {
  width: number;
  height: number;
  pixels: Buffer;
}

/** What went wrong with one draw: the caller words it (image.ts's UnreadableImage). */
export class DrawFailure extends Error {
  constructor(readonly reason: 'time' | 'size' | 'failed' | 'stopped', message: string) {
    super(message);
  }
}

interface Job {
  svg: string;
  width: number;
  /** Most bytes of pixels the answer may have. */
  budget: number;
  limitMs: number;
  resolve: (drawn: Drawn) => void;
  reject: (error: Error) => void;
}

/** A drawing process and the draws it is asked for, one at a time. */
class Drawer {
  private child?: ChildProcess;
  private readonly queue: Job[] = [];
  private current?: { job: Job; timer: NodeJS.Timeout; frames: Buffer[]; buffered: Buffer; size: number };
  private hooked = false;

  draw(svg: string, width: number, budget: number, limitMs: number): Promise<Drawn> {
    this.hook();
    return new Promise((resolve, reject) => {
      this.queue.push({ svg, width, budget, limitMs, resolve, reject });
      if (!this.current) this.next();
    });
  }

  /** Kills the process when linkctl exits. */
  private hook(): void {
    if (this.hooked) return;
    this.hooked = true;
    process.on('exit', () => this.child?.kill('SIGKILL'));
  }

  /** Ctrl-C stops every draw at once (run.ts aborts the rest of the command); listened to only while drawing. */
  private readonly interrupted = () => {
    for (const job of this.queue.splice(0)) job.reject(new InterruptedError());
    this.fail(new InterruptedError());
  };

  private start(): ChildProcess {
    const child = spawn(process.execPath, ['-e', DRAWER, createRequire(import.meta.url).resolve('@resvg/resvg-js')], { stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdout!.on('data', (chunk: Buffer) => this.read(child, chunk));
    child.on('error', (error) => this.child === child && this.fail(new DrawFailure('failed', `the SVG could not be drawn (${error.message})`)));
    child.on('close', () => {
      if (this.child !== child) return;
      this.child = undefined;
      if (this.current) this.fail(new DrawFailure('stopped', 'the SVG could not be drawn (its drawing process stopped)'));
    });
    child.stdin!.on('error', () => {});
    return child;
  }

  private next(): void {
    const job = this.queue.shift();
    if (!job) {
      this.idle(true);
      return;
    }
    const child = (this.child ??= this.start());
    this.idle(false);
    const timer = setTimeout(() => this.fail(new DrawFailure('time', `the SVG took more than ${job.limitMs / 1000} s to draw; refused`)), job.limitMs);
    this.current = { job, timer, frames: [], buffered: Buffer.alloc(0), size: 0 };
    const body = Buffer.from(JSON.stringify({ svg: job.svg, width: job.width }));
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    child.stdin!.write(Buffer.concat([head, body]));
  }

  /** An idle process does not keep linkctl running; a busy one does. */
  private idle(idle: boolean): void {
    process.removeListener('SIGINT', this.interrupted);
    if (!idle) process.once('SIGINT', this.interrupted);
    const child = this.child;
    if (!child) return;
    for (const target of [child, child.stdin, child.stdout] as Array<{ ref?: () => void; unref?: () => void } | null>) {
      if (idle) target?.unref?.();
      else target?.ref?.();
    }
  }

  private read(child: ChildProcess, chunk: Buffer): void {
    const now = this.current;
    if (this.child !== child || !now) return;
    now.size += chunk.length;
    if (now.size > now.job.budget) return this.fail(new DrawFailure('size', 'the SVG drew more pixels than a QR image has; refused'));
    now.buffered = now.buffered.length ? Buffer.concat([now.buffered, chunk]) : chunk;
    while (now.buffered.length >= 4 && now.buffered.length >= 4 + now.buffered.readUInt32BE(0)) {
      const size = now.buffered.readUInt32BE(0);
      now.frames.push(now.buffered.subarray(4, 4 + size));
      now.buffered = now.buffered.subarray(4 + size);
      if (this.settle(now.frames)) return;
    }
  }

  /** True once the current draw is answered (its head says an error, or its pixels came). */
  private settle(frames: Buffer[]): boolean {
    const now = this.current!;
    let head: { width?: number; height?: number; error?: string };
    try {
      head = JSON.parse(frames[0]!.toString('utf8')) as typeof head;
    } catch {
      this.fail(new DrawFailure('stopped', 'the SVG could not be drawn (its drawing process stopped)'));
      return true;
    }
    if (head.error !== undefined) {
      this.done(() => now.job.reject(new DrawFailure('failed', head.error!)));
      return true;
    }
    if (frames.length < 2) return false;
    const pixels = frames[1]!;
    if (!head.width || !head.height || pixels.length !== head.width * head.height * 4) {
      this.fail(new DrawFailure('stopped', 'the SVG could not be drawn (its drawing process stopped)'));
      return true;
    }
    this.done(() => now.job.resolve({ width: head.width!, height: head.height!, pixels }));
    return true;
  }

  private done(answer: () => void): void {
    clearTimeout(this.current!.timer);
    this.current = undefined;
    answer();
    this.next();
  }

  /** The current draw fails and its process is killed (it may be drawing still): the next draw starts another. */
  private fail(error: Error): void {
    const now = this.current;
    const child = this.child;
    this.child = undefined;
    child?.kill('SIGKILL');
    if (!now) return;
    clearTimeout(now.timer);
    this.current = undefined;
    now.job.reject(error);
    this.next();
  }
}

let drawer: Drawer | undefined;

/** `svg` drawn `width` pixels wide, in the run's drawing process, within `limitMs` and `budget` bytes of pixels. */
export function drawSvg(svg: string, width: number, budget: number, limitMs = DRAW_TIME_LIMIT_MS): Promise<Drawn> {
  return (drawer ??= new Drawer()).draw(svg, width, budget, Math.max(1, Math.min(limitMs, DRAW_TIME_LIMIT_MS)));
}
