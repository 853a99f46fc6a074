// `link qr`: the short URL as a QR code made here (not by the server), for the terminal or a file.
import type { Context } from '../../context.js';
import { NetworkError, UsageError } from '../../errors.js';
import type { Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { oneLink } from '../../model/link-types.js';
import { linkIdOf } from '../../model/link-writes.js';
import { BLACK, WHITE, parseColor, qrMatrix, qrPng, qrSvg, qrTerminal, type Ecc } from '../../qr/render.js';
import { prepareWrite } from '../../files/access.js';

const FILE_ONLY = ['size', 'foreground', 'background'] as const;

async function shortUrlOf(ctx: Context, ref: number | string | undefined, short: string | undefined): Promise<string> {
  oneLink(ref, short, 'qr');
  if (short !== undefined) return short; // nothing to ask the server
  const reader = await ctx.reader();
  const id = await linkIdOf(reader, ref!);
  const body = await reader.readOne('links', id);
  const url = (body.details as Record<string, unknown> | undefined)?.shorturl;
  if (typeof url !== 'string' || !url) throw new NetworkError(`the server's answer for link ${id} has no short URL`);
  return url;
}

export async function qr(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const file = opts.file as string | undefined;
  const format = file === undefined ? 'terminal' : /\.png$/i.test(file) ? 'png' : /\.svg$/i.test(file) ? 'svg' : undefined;
  if (!format) throw new UsageError(`--file must end in .png or .svg, got "${file}"`, 'e.g. --file poster.png or --file poster.svg');
  if (format === 'terminal') {
    const stray = FILE_ONLY.filter((k) => opts[k] !== undefined);
    if (stray.length) throw new UsageError(`${stray.map((k) => `--${k}`).join(', ')} apply to image files: add --file NAME.png or NAME.svg`);
  }
  ctx.checkOutput();
  // Checked before anything is asked of the server: an existing file without --force, a path an MCP server may not write.
  const out = file === undefined ? undefined : await prepareWrite(ctx, file, { flag: '--file', force: Boolean(opts.force) });
  const url = await shortUrlOf(ctx, args[0] as number | string | undefined, opts.short as string | undefined);
  const ecc = (opts.ecc ?? 'M') as Ecc;
  const matrix = qrMatrix(url, ecc);

  if (format === 'terminal') {
    // a quiet zone of 2 modules, 1 when the terminal is too narrow for that
    const columns = ctx.io.stdout.columns;
    let margin = (opts.margin as number | undefined) ?? 2;
    if (opts.margin === undefined && columns && matrix.size + 2 * margin > columns) margin = 1;
    if (columns && matrix.size + 2 * margin > columns) {
      ctx.warn(`the code is ${matrix.size + 2 * margin} columns wide and the terminal ${columns}: widen it, or use --file qr.png`);
    }
    const drawing = qrTerminal(matrix, margin);
    return { kind: 'message', message: drawing.replace(/\n$/, ''), json: { url, ecc, modules: matrix.size, margin, lines: drawing.replace(/\n$/, '').split('\n') } };
  }

  const margin = (opts.margin as number | undefined) ?? 4;
  const size = (opts.size as number | undefined) ?? 1024;
  const side = matrix.size + 2 * margin;
  const foreground = parseColor(opts.foreground, BLACK);
  const background = parseColor(opts.background, WHITE);
  let pixels = size;
  if (format === 'png') {
    const scale = Math.floor(size / side);
    if (scale < 1) throw new UsageError(`--size ${size} is too small for this code: it needs at least ${side} pixels (${matrix.size} modules + margin)`, `e.g. --size ${side * 4}`);
    pixels = scale * side;
  }
  const image = format === 'png' ? qrPng(matrix, { scale: pixels / side, margin, foreground, background }) : qrSvg(matrix, { size, margin, foreground, background });
  const what = `${out!.path} (${format.toUpperCase()}, ${pixels}x${pixels} px, error correction ${ecc}): ${url}`;
  if (!out!.write(image)) return { kind: 'message', message: `dry run: would save ${what}; nothing was written`, json: { dryRun: true, file: out!.path, format, url, ecc, size: pixels, margin } };
  return {
    kind: 'message',
    message: `Saved ${what}`,
    json: { file: out!.path, format, url, ecc, size: pixels, margin },
  };
}
