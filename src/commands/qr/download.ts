// `qr download`: saves the image a QR code's `link` URL serves, after checking it is one.
import { extname, join } from 'node:path';
import type { Context } from '../../context.js';
import { CliError, NetworkError, UsageError } from '../../errors.js';
import type { Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { prepareWrite, userFolder, type PreparedWrite } from '../../files/access.js';
import { imageKind as sniff, type ImageKind } from '../../qr/image.js';
import { printPixels, type PrintRequest } from '../../qr/print.js';
import { MAX_PRINT_PIXELS } from '../../model/qr-types.js';
import { inOrder, type ConcurrencySetting } from '../../http/concurrency.js';

type Kind = ImageKind;
const TYPES: Record<Kind, RegExp> = { png: /^image\/png\b/i, svg: /^image\/svg\+xml\b/i, jpg: /^image\/jpe?g\b/i };

const slug = (name: unknown) => (typeof name === 'string' ? name : '').toLowerCase().normalize('NFKD')
  .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '');

interface Saved {
  id: number; file: string; type: Kind; bytes: number; url: string;
  /** How the file was made from the server's image: `as served`, `drawn from the server's SVG`, `rebuilt from the decoded code`. */
  made: string;
  /** Its width (and height) in pixels, for a PNG drawn or rebuilt; null otherwise. */
  width: number | null;
  dpi: number | null;
  notes: string[];
}

/** The extensions that name an image kind: a --file with one of them must hold that kind. */
const EXTENSIONS: Record<string, Kind> = { '.png': 'png', '.svg': 'svg', '.jpg': 'jpg', '.jpeg': 'jpg' };

/** Saves one code's image: into `out` (a --file checked before anything was read), else a name made from the code in `dir`. */
async function downloadOne(ctx: Context, id: number, out: PreparedWrite | undefined, dir: string, force: boolean, want?: PrintRequest): Promise<Saved & { written: boolean }> {
  const client = await ctx.client();
  const body = await (await ctx.reader()).readOne('qr', id);
  const details = (body.details ?? {}) as Record<string, unknown>;
  const link = details.link;
  if (typeof link !== 'string' || !link) throw new NetworkError(`the server's answer for QR code ${id} has no link to its image`);
  const got = await client.download(link);
  const type = got.status === 200 ? sniff(got.bytes) : undefined;
  const declared = got.contentType.split(';')[0]!.trim() || 'no content type';
  if (!type || !TYPES[type].test(got.contentType)) {
    const what = got.status !== 200 ? `HTTP ${got.status}` : type ? `${type.toUpperCase()} bytes labelled ${declared}` : /<html|<!doctype html/i.test(got.bytes.subarray(0, 2048).toString('utf8')) ? `an HTML page (${declared})` : `${declared}, not an image`;
    throw new NetworkError(`QR code ${id}: ${got.url} answered ${what}; nothing was saved`,
      'this server may show the code on a page rather than serve an image: open the URL in a browser, or draw the code locally with `linkctl link qr --short URL --file code.png`');
  }
  let bytes = got.bytes;
  let kind: Kind = type;
  let made = 'as served';
  let width: number | null = null;
  let notes: string[] = [];
  if (want) {
    const { printable } = await import('../../qr/print.js');
    try {
      const printed = await printable(got.bytes, type, want);
      ({ bytes, made, notes } = printed);
      kind = printed.format;
      width = printed.width ?? null;
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new NetworkError(`QR code ${id}: no ${want.format.toUpperCase()} could be made from the ${type.toUpperCase()} image at ${got.url}: ${(error as Error).message}; nothing was saved`);
    }
  }
  if (out) {
    const named = EXTENSIONS[extname(out.path).toLowerCase()];
    if (named && named !== kind) {
      throw new UsageError(`--file ${out.path} names a${named === 'svg' ? 'n' : ''} ${named.toUpperCase()} file, but QR code ${id}'s image is a${kind === 'svg' ? 'n' : ''} ${kind.toUpperCase()}; nothing was saved`, 'name the file .png or .svg (linkctl makes either from a PNG or SVG image), or leave --file out (the name then follows the image)');
    }
    if (!named) ctx.warn(`note: ${out.path} holds a${kind === 'svg' ? 'n' : ''} ${kind.toUpperCase()} image`);
  }
  const target = out ?? (await prepareWrite(ctx, join(dir, `qr-${id}${slug(details.name) ? `-${slug(details.name)}` : ''}.${kind}`), { flag: 'the image file', force }));
  const written = target.write(bytes);
  return { id, file: target.path, type: kind, bytes: bytes.length, url: got.url, made, width, dpi: want?.dpi ?? null, notes, written };
}

/** How a saved file was made, for people: `PNG, 1234 bytes, drawn from the server's SVG at 354×354 px, 300 dpi`. */
function describe(saved: Saved): string {
  const size = saved.width !== null && saved.type === 'png' ? ` at ${saved.width}×${saved.width} px` : '';
  const how = saved.made === 'as served' ? (saved.dpi !== null ? ', as served' : '') : `, ${saved.made}${size}${saved.made.startsWith('rebuilt') ? ' with its colours and a quiet zone' : ''}`;
  return `${saved.type.toUpperCase()}, ${saved.bytes} bytes${how}${saved.dpi !== null ? `, ${saved.dpi} dpi` : ''}`;
}

/** `--format`, `--size`, `--dpi`, `--print-size`: the file asked for, checked before anything is sent; undefined = as served. */
function printRequest(opts: Record<string, unknown>): PrintRequest | undefined {
  const fileKind = typeof opts.file === 'string' ? EXTENSIONS[extname(opts.file).toLowerCase()] : undefined;
  const format = opts.format as 'png' | 'svg' | undefined;
  if (format && fileKind && fileKind !== format) throw new UsageError(`--format ${format} and --file ${String(opts.file)} disagree`, `name the file .${format}, or drop --format`);
  const sizing = ['size', 'dpi', 'printSize'].filter((k) => opts[k] !== undefined).map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
  const wanted = format ?? (fileKind === 'png' || fileKind === 'svg' ? fileKind : undefined) ?? (sizing.length ? 'png' : undefined);
  if (sizing.length && wanted !== 'png') throw new UsageError(`${sizing.join(', ')} ${sizing.length > 1 ? 'size' : 'sizes'} a PNG; an SVG scales to any size`, `drop ${sizing.length > 1 ? 'them' : 'it'} for an SVG, or ask for a PNG: --format png`);
  if (opts.size !== undefined && opts.printSize !== undefined) throw new UsageError('give --size (pixels) or --print-size with --dpi, not both', 'e.g. --size 1200, or --dpi 300 --print-size 30mm');
  if (opts.printSize !== undefined && opts.dpi === undefined) throw new UsageError('--print-size needs --dpi: the pixels depend on the printer\'s resolution', 'e.g. --dpi 300 --print-size 30mm');
  if (opts.quietZone === false && !wanted) throw new UsageError('--no-quiet-zone is for a print-ready file: --format png or svg', 'e.g. linkctl qr download 12 --format svg --no-quiet-zone');
  if (!wanted) return undefined;
  const dpi = opts.dpi as number | undefined;
  let size = opts.size as number | undefined;
  if (opts.printSize !== undefined) {
    size = printPixels(opts.printSize as { value: number; unit: 'mm' | 'cm' | 'in' }, dpi!);
    if (size < 21 || size > MAX_PRINT_PIXELS) throw new UsageError(`--print-size ${(opts.printSize as { text: string }).text} at --dpi ${dpi} is ${size} pixels; linkctl draws PNGs from 21 to ${MAX_PRINT_PIXELS} pixels wide`, 'a smaller print size or resolution, e.g. --dpi 300 --print-size 30mm (354 pixels)');
  }
  return { format: wanted, size, dpi, quietZone: opts.quietZone !== false };
}

function idsFromStdin(text: string): number[] {
  const ids: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const v = line.trim();
    if (v === '' || v.startsWith('#')) return;
    if (!/^\d+$/.test(v) || Number(v) < 1 || !Number.isSafeInteger(Number(v))) throw new UsageError(`--from -: line ${i + 1} of stdin is not a QR code id (a positive integer): "${v.slice(0, 40)}"`, 'pipe ids one a line, e.g. linkctl qr list --quiet | linkctl qr download --from - --dir codes');
    ids.push(Number(v));
  });
  return ids;
}

export async function download(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const id = args[0] as number | undefined;
  const from = opts.from as string | undefined;
  if ((id === undefined) === (from === undefined)) throw new UsageError('give a QR code id, or --from - to read ids from stdin (one of them)', 'e.g. linkctl qr download 12, or linkctl qr list --quiet | linkctl qr download --from - --dir codes');
  if (from !== undefined && from !== '-') throw new UsageError(`--from must be "-" (ids on stdin, one a line), got "${from}"`, 'pipe the ids in: linkctl qr list --quiet | linkctl qr download --from - --dir codes');
  if (from !== undefined && opts.file !== undefined) throw new UsageError('--file names one file: with --from -, give a folder with --dir', 'e.g. --from - --dir codes');
  if (id !== undefined && opts.dir !== undefined) throw new UsageError('--dir is for --from -; for one code give --file (or nothing: it is saved here)', 'e.g. linkctl qr download 12 --file codes/menu.png');
  const force = Boolean(opts.force);
  const print = printRequest(opts);
  // a draw of the server's SVG gets no longer than a request would (--timeout)
  const want = print && { ...print, drawLimitMs: ctx.globals.timeout * 1000 };
  ctx.checkOutput();

  if (id !== undefined) {
    // Checked before anything is read: an existing --file without --force, a path an MCP server may not write.
    const out = opts.file === undefined ? undefined : await prepareWrite(ctx, String(opts.file), { flag: '--file', force });
    const { written, ...saved } = await downloadOne(ctx, id, out, '.', force, want);
    for (const note of saved.notes) ctx.warn(`note: ${note}.`);
    const what = `${saved.file} (${describe(saved)})`;
    if (!written) return { kind: 'message', message: `dry run: would save ${what}; nothing was written`, json: { dryRun: true, ...saved } };
    return { kind: 'message', message: `Saved ${what}`, json: saved };
  }
  const ids = idsFromStdin(await ctx.readStdin());
  if (ids.length === 0) throw new UsageError('--from -: stdin held no ids', 'pipe them in, e.g. linkctl qr list --quiet | linkctl qr download --from - --dir codes');
  const dir = userFolder(ctx, (opts.dir as string | undefined) ?? '.', '--dir');
  const saved: Saved[] = [];
  const failed: { id: number; error: string }[] = [];
  let exitCode = 0;
  // Up to --concurrency codes at a time (auto: one at a time while the server shows a rate limit);
  // the files are listed in the order of the ids, whatever order they arrive in.
  const client = await ctx.client();
  const outcomes = await inOrder(ids, () => client.inFlight.limit((opts.concurrency as ConcurrencySetting | undefined) ?? 'auto'), async (each) => {
    try {
      const { written, ...one } = await downloadOne(ctx, each, undefined, dir, force, want);
      for (const note of one.notes) ctx.warn(`note: QR code ${each}: ${note}.`);
      if (!written) ctx.warn(`dry run: would save ${one.file}`);
      return { one };
    } catch (error) {
      if (!(error instanceof CliError) || error.exitCode === 130) throw error;
      ctx.warn(`linkctl: ${error.message}`); // the message names the id (`QR code 99: ...`)
      return { failure: { id: each, error: error.message, exitCode: error.exitCode } };
    }
  });
  for (const { one, failure } of outcomes) {
    if (one) saved.push(one);
    if (failure) {
      failed.push({ id: failure.id, error: failure.error });
      exitCode ||= failure.exitCode;
    }
  }
  // a partial result says so (stderr; stdout lists the files saved)
  if (failed.length) ctx.warn(`${ctx.globals.dryRun ? 'would save' : 'saved'} ${saved.length} of ${ids.length} QR codes; failed: ${failed.map((f) => f.id).join(', ')}`);
  // A dry run saved nothing: what it would save is named as that, never as files that exist.
  if (ctx.globals.dryRun) {
    return { kind: 'message', message: `dry run: would save ${saved.length} QR code${saved.length === 1 ? '' : 's'}; nothing was written`, json: { dryRun: true, saved: [], wouldSave: saved, failed }, exitCode };
  }
  return {
    kind: 'message',
    message: saved.map((s) => s.file).join('\n'),
    json: { saved, failed },
    exitCode,
  };
}
