// `qr download`: saves the image a QR code's `link` URL serves, after checking it is one.
import { extname, join } from 'node:path';
import type { Context } from '../../context.js';
import { CliError, NetworkError, UsageError } from '../../errors.js';
import type { Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { prepareWrite, userFolder, type PreparedWrite } from '../../files/access.js';

type Kind = 'png' | 'svg' | 'jpg';
const TYPES: Record<Kind, RegExp> = { png: /^image\/png\b/i, svg: /^image\/svg\+xml\b/i, jpg: /^image\/jpe?g\b/i };

/** What the bytes are, judged by their start; undefined = not an image linkctl saves. */
function sniff(bytes: Buffer): Kind | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpg';
  // SVG: optional BOM, XML declaration, comments and doctype, then the <svg element
  const head = bytes.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '');
  if (/^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE svg[^>]*>\s*)*<svg[\s>]/i.test(head)) return 'svg';
  return undefined;
}

const slug = (name: unknown) => (typeof name === 'string' ? name : '').toLowerCase().normalize('NFKD')
  .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '');

interface Saved { id: number; file: string; type: Kind; bytes: number; url: string }

/** The extensions that name an image kind: a --file with one of them must hold that kind. */
const EXTENSIONS: Record<string, Kind> = { '.png': 'png', '.svg': 'svg', '.jpg': 'jpg', '.jpeg': 'jpg' };

/** Saves one code's image: into `out` (a --file checked before anything was read), else a name made from the code in `dir`. */
async function downloadOne(ctx: Context, id: number, out: PreparedWrite | undefined, dir: string, force: boolean): Promise<Saved & { written: boolean }> {
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
  if (out) {
    const named = EXTENSIONS[extname(out.path).toLowerCase()];
    if (named && named !== type) {
      throw new UsageError(`--file ${out.path} names a${named === 'svg' ? 'n' : ''} ${named.toUpperCase()} file, but QR code ${id}'s image is a${type === 'svg' ? 'n' : ''} ${type.toUpperCase()}; nothing was saved`, `name the file .${type}, or leave --file out (the name then follows the image)`);
    }
    if (!named) ctx.warn(`note: ${out.path} holds a ${type.toUpperCase()} image`);
  }
  const target = out ?? (await prepareWrite(ctx, join(dir, `qr-${id}${slug(details.name) ? `-${slug(details.name)}` : ''}.${type}`), { flag: 'the image file', force }));
  const written = target.write(got.bytes);
  return { id, file: target.path, type, bytes: got.bytes.length, url: got.url, written };
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
  ctx.checkOutput();

  if (id !== undefined) {
    // Checked before anything is read: an existing --file without --force, a path an MCP server may not write.
    const out = opts.file === undefined ? undefined : await prepareWrite(ctx, String(opts.file), { flag: '--file', force });
    const { written, ...saved } = await downloadOne(ctx, id, out, '.', force);
    const what = `${saved.file} (${saved.type.toUpperCase()}, ${saved.bytes} bytes)`;
    if (!written) return { kind: 'message', message: `dry run: would save ${what}; nothing was written`, json: { dryRun: true, ...saved } };
    return { kind: 'message', message: `Saved ${what}`, json: saved };
  }
  const ids = idsFromStdin(await ctx.readStdin());
  if (ids.length === 0) throw new UsageError('--from -: stdin held no ids', 'pipe them in, e.g. linkctl qr list --quiet | linkctl qr download --from - --dir codes');
  const dir = userFolder(ctx, (opts.dir as string | undefined) ?? '.', '--dir');
  const saved: Saved[] = [];
  const failed: { id: number; error: string }[] = [];
  let exitCode = 0;
  for (const each of ids) {
    try {
      const { written, ...one } = await downloadOne(ctx, each, undefined, dir, force);
      if (!written) ctx.warn(`dry run: would save ${one.file}`);
      saved.push(one);
    } catch (error) {
      if (!(error instanceof CliError) || error.exitCode === 130) throw error;
      ctx.warn(`linkctl: ${error.message}`); // the message names the id (`QR code 99: ...`)
      failed.push({ id: each, error: error.message });
      exitCode ||= error.exitCode;
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
