/**
 * QR codes: paths, columns, and how the data flags become the `data` the servers accept
 * (the shapes are in real-servers.md: a string for link, text, phone and email; an object
 * for sms, wifi, vcard and an email with subject or body).
 */
import type { CodeRead } from '../../qr/read.js';
import type { Context } from '../../context.js';
import { ApiError, NetworkError, UsageError } from '../../errors.js';
import type { Column, Rec, Result } from '../../output/types.js';
import { email, httpUrl, phone, rgbColor } from '../../validate.js';
import { QR_TYPES } from '../../model/qr-types.js';
import type { ActionInput } from '../shared/define.js';
import { compact, listAction, messageResult, removeAction, withoutError } from '../shared/resource.js';
import { create, readOne, update as updateOne } from '../../model/model.js';
import { hasShortLink, qr as QR, qrBody } from '../../model/qr.js';
import { corruptedFields } from '../../qr/content.js';
import { statsResult } from '../shared/stats.js';
import type { QrType } from '../../model/qr-types.js';
import { readUserFile } from '../../files/access.js';

const COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name' },
  // null (shown "unknown") for codes that count no scans: servers answer another link's clicks for them (src/qr/scans.ts)
  { key: 'scans', header: 'Scans', show: (r) => (r.scans === null ? 'unknown' : r.scans) },
  // Real servers put the creation time of a single code under `data` (sic).
  { key: 'date', header: 'Created', value: (r) => (typeof r.date === 'string' ? r.date : typeof r.data === 'string' ? r.data : undefined) },
  { key: 'link', header: 'Image' },
];

const listPages = listAction('qr', COLUMNS);

/** `qr list`: the server's list, with the scans of codes that count none (text, sms, wifi) as unknown. */
export async function list(ctx: Context, input: ActionInput): Promise<Result> {
  const result = await listPages(ctx, input);
  if (result.kind !== 'list') return result;
  const { unknownScans, unknownScansNote } = await import('../../qr/scans.js');
  const unknown = { none: 0, unread: 0, why: undefined as string | undefined };
  // Only where scans are shown: `-q` (ids) and --fields without scans need no code read.
  const fields = ctx.globals.fields as string[] | undefined;
  if (ctx.globals.quiet || (fields && !fields.includes('scans'))) return result;
  const pages = async function* (): AsyncGenerator<Rec[]> {
    for await (const page of result.pages) {
      const { none, unread, why } = await unknownScans(ctx, page);
      unknown.none += none.size;
      unknown.unread += unread.size;
      unknown.why ??= why;
      yield page.map((code) => (none.has(Number(code.id)) || unread.has(Number(code.id)) ? { ...code, scans: null } : code));
    }
  };
  // Read after the pages (the output layer prints notes last): said only when a code was one of them.
  return { ...result, pages: pages(), get note() { return unknownScansNote(unknown); } };
}
export const remove = removeAction('qr');

/** Flags that carry data for each type; any other data flag given with this type is a mistake. */
const DATA_FLAGS: Record<QrType, string[]> = {
  link: ['data'],
  text: ['data'],
  phone: ['data'],
  email: ['data', 'email', 'subject', 'body'],
  sms: ['phone', 'message'],
  wifi: ['ssid', 'wifiPassword', 'encryption'],
  vcard: ['firstName', 'lastName', 'org', 'phone', 'cell', 'fax', 'email', 'site', 'street', 'city', 'state', 'zip', 'country'],
};
const ALL_DATA_FLAGS = [...new Set(Object.values(DATA_FLAGS).flat())];
const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

function readDataJson(ctx: Context, raw: string): unknown {
  const text = raw.startsWith('@') ? readUserFile(ctx, raw.slice(1), '--data-json') : raw;
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError('--data-json must be valid JSON (a string, an array or an object) or @file', `e.g. --data-json '"https://example.com"' (a JSON string, quoted for the shell) or --data-json @data.json`);
  }
}

/** The `data` field for a type, from the flags given; undefined when no data flag was given. */
export function buildData(ctx: Context, type: QrType | undefined, opts: Rec): unknown {
  const given = ALL_DATA_FLAGS.filter((key) => opts[key] !== undefined);
  if (opts.dataJson !== undefined) {
    if (given.length) throw new UsageError(`--data-json replaces the other data flags; drop ${given.map(flagName).join(', ')}`);
    return readDataJson(ctx, String(opts.dataJson));
  }
  if (!given.length) return undefined;
  if (!type) throw new UsageError('--type is needed with data flags, so that the data gets the shape of its type', `e.g. --type link --data https://example.com; the types are ${QR_TYPES.join(', ')}`);
  const wrong = given.filter((key) => !DATA_FLAGS[type].includes(key));
  if (wrong.length) {
    throw new UsageError(`${wrong.map(flagName).join(', ')} ${wrong.length > 1 ? 'do' : 'does'} not apply to --type ${type}; it takes ${DATA_FLAGS[type].map(flagName).join(', ')} (or --data-json)`);
  }
  const s = (key: string) => (opts[key] === undefined ? undefined : String(opts[key]));
  switch (type) {
    case 'link':
      return httpUrl('--data', s('data')!);
    case 'text': {
      const text = s('data')!.trim();
      if (!text) throw new UsageError('--data must not be empty for --type text', "e.g. --type text --data 'Hello'");
      return text;
    }
    case 'phone':
      return phone('--data', s('data')!);
    case 'email': {
      const address = s('email') ?? s('data');
      if (s('email') && s('data')) throw new UsageError('give the address with --data or --email, not both', 'keep --email (the clearer one) and drop --data');
      const checked = email(s('email') ? '--email' : '--data', address ?? '');
      return s('subject') !== undefined || s('body') !== undefined ? compact({ email: checked, subject: s('subject'), body: s('body') }) : checked;
    }
    case 'sms':
      if (!s('phone')) throw new UsageError('--phone is required for --type sms', "e.g. --type sms --phone +15551234 --message 'Hello'");
      return { phone: phone('--phone', s('phone')!), message: s('message') ?? '' };
    case 'wifi': {
      if (!s('ssid')) throw new UsageError('--ssid is required for --type wifi', 'e.g. --type wifi --ssid Office --wifi-password s3cret --encryption WPA');
      const encryption = s('encryption') ?? (s('wifiPassword') ? 'WPA' : 'nopass');
      if (encryption !== 'nopass' && !s('wifiPassword')) throw new UsageError(`--wifi-password is required with --encryption ${encryption} (or use --encryption nopass)`, 'e.g. --wifi-password s3cret, or --encryption nopass for an open network');
      return { ssid: s('ssid'), pass: encryption === 'nopass' ? '' : s('wifiPassword'), encryption };
    }
    case 'vcard': {
      if (s('site') !== undefined) httpUrl('--site', s('site')!);
      return compact({
        fname: s('firstName'),
        lname: s('lastName'),
        org: s('org'),
        phone: s('phone'),
        cell: s('cell'),
        fax: s('fax'),
        email: s('email'),
        site: s('site'),
        street: s('street'),
        city: s('city'),
        state: s('state'),
        zip: s('zip'),
        country: s('country'),
      });
    }
  }
}

function styleFields(opts: Rec): Rec {
  let logo: string | undefined;
  if (opts.logo !== undefined) {
    logo = httpUrl('--logo', String(opts.logo));
    if (!/\.(png|jpe?g)$/i.test(new URL(logo).pathname)) throw new UsageError(`--logo must point to a png or jpg image, got "${logo}"`, 'e.g. --logo https://example.com/logo.png');
  }
  return compact({
    background: opts.background === undefined ? undefined : rgbColor('--background', String(opts.background)),
    foreground: opts.foreground === undefined ? undefined : rgbColor('--foreground', String(opts.foreground)),
    logo,
  });
}

const CREATED_COLUMNS: Column[] = [{ key: 'id', header: 'ID' }, { key: 'link', header: 'Image' }, { key: 'message', header: 'Message', optional: true }];

/** The flag that gives a data key of a type (`pass` → `--wifi-password`, `lname` → `--last-name`). */
function flagOfKey(type: QrType, key: string, opts: Rec): string {
  if (opts.dataJson !== undefined) return `--data-json's ${key === 'data' ? 'string' : `"${key}"`}`;
  const named: Record<string, string> = { pass: 'wifiPassword', fname: 'firstName', lname: 'lastName', data: type === 'email' && opts.email !== undefined ? 'email' : 'data' };
  const flag = named[key] ?? key;
  return DATA_FLAGS[type].includes(flag) ? flagName(flag) : `"${key}"`;
}

/**
 * Data the product would not put in the code as given is refused before anything is sent: it writes
 * a wifi code's fields without escaping and HTML-escapes quotes in every field (real-servers.md,
 * 23b), so `s3cr;t,pw"` would make a code a phone reads as the password `s3cr`, and `O'Neil` a
 * vCard of `O&#039;Neil` (src/qr/content.ts `corruptedFields`).
 */
function refuseCorrupted(type: QrType, data: unknown, opts: Rec): void {
  const bad = corruptedFields(type, data);
  if (!bad.length) return;
  const said = bad.map((b) => `${flagOfKey(type, b.field, opts)} ${JSON.stringify(b.asked)} would read as ${b.read === undefined || b.read === '' ? 'nothing' : JSON.stringify(b.read)}`);
  const why = type === 'wifi'
    ? 'the product writes a wifi code\'s fields without escaping ; , : or " and turns " and \' into HTML entities (&quot;, &#039;), so a phone reads them cut short'
    : 'the product turns " and \' into HTML entities (&quot;, &#039;) and removes <...> in a code\'s fields before it makes the code';
  const chars = [...new Set(bad.flatMap((b) => b.chars))];
  throw new UsageError(`the code would not hold what was given${chars.length ? ` (the product mangles ${chars.join(' ')})` : ''}: ${said.join('; ')}; nothing was sent`,
    `${why}: leave out ${chars.join(' ') || 'those characters'}${type === 'wifi' ? ' (a network whose password has them needs a code made elsewhere)' : ''}`);
}

/**
 * What a code the server made or changed holds, read back from its image (as `qr get` reads it,
 * no API request, no scan counted): a note when it is what was asked, a problem when it is not.
 */
async function confirmContent(ctx: Context, client: Awaited<ReturnType<Context['client']>>, code: { id: number; link: unknown }, type: QrType, data: unknown): Promise<{ problem?: string; note?: string }> {
  const { readCode, dataLine } = await import('../../qr/read.js');
  const { contentText, sameData } = await import('../../qr/content.js');
  ctx.status('reading the code\'s image back');
  const read = await readCode(client, { id: code.id, name: null, link: typeof code.link === 'string' ? code.link : null });
  if (!read.content) return { note: `The code's content could not be read back from its image to confirm it: ${read.unreadable}.` };
  if (read.content.type === type && sameData(read.content.data, data)) return {};
  // A text code holds its text whatever it looks like (a URL reads as a link): the text is what counts.
  if (type === 'text' && typeof data === 'string' && contentText(read.content.type, read.content.data) === data) return {};
  return { problem: `QR code ${code.id}'s image holds ${read.content.type} ${JSON.stringify(dataLine(read.content.data))}, not the ${type} data that was sent (${JSON.stringify(dataLine(data))}): a phone scanning it gets the former` };
}

export async function add(ctx: Context, { opts }: ActionInput): Promise<Result> {
  ctx.checkOutput(CREATED_COLUMNS);
  const type = opts.type as QrType;
  const data = buildData(ctx, type, opts);
  if (data === undefined) throw new UsageError(`no data for the code: give ${DATA_FLAGS[type].map(flagName).join(', ')} or --data-json`);
  refuseCorrupted(type, data, opts);
  const json = qrBody({ type, data, name: opts.name, ...styleFields(opts) });
  if (type === 'link') await qrKeepsPolicy(ctx, 'qr add', data);
  const client = await ctx.client();
  const body = await create(client, QR, json);
  // Its type is known now: a later `qr list` or snapshot needs no read to know whether it counts scans.
  await (await import('../../qr/scans.js')).remember(ctx, body, hasShortLink(type));
  const record = withoutError(body);
  const id = Number(body.id);
  if (ctx.globals.dryRun || !Number.isInteger(id)) return { kind: 'record', record, columns: CREATED_COLUMNS };
  const { problem, note } = await confirmContent(ctx, client, { id, link: body.link }, type, data);
  if (problem) ctx.warn(`linkctl: ${problem}`);
  return { kind: 'record', record, columns: CREATED_COLUMNS, ...(note ? { note } : {}), exitCode: problem ? 1 : undefined };
}

/** A link-type code's destination keeps the policy's destination rules (src/policy/enforce.ts) before anything is sent. */
async function qrKeepsPolicy(ctx: Context, what: string, data: unknown): Promise<void> {
  const url = typeof data === 'string' ? data : data && typeof data === 'object' && typeof (data as Rec).url === 'string' ? String((data as Rec).url) : undefined;
  const { enforcePolicy } = await import('../../policy/enforce.js');
  await enforcePolicy(ctx, [{ what, subject: { url } }]);
}

/** Why `qr update` refuses a new name, or a type with nothing else: real servers ignore both and still answer success. */
const CANNOT_CHANGE_HINT = 'to change a code\'s name or type, delete it and create it again (`linkctl qr delete ID` then `linkctl qr add`)';

export async function update(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const id = args[0] as number;
  if (opts.name !== undefined) throw new UsageError('--name: the API cannot rename a QR code (servers ignore a new name and still answer success)', CANNOT_CHANGE_HINT);
  const style = styleFields(opts);
  const dataGiven = opts.dataJson !== undefined || ALL_DATA_FLAGS.some((key) => opts[key] !== undefined);
  if (opts.type !== undefined && !dataGiven) {
    throw new UsageError(`--type ${String(opts.type)} alone changes nothing: the API cannot change a code's type (servers ignore it); --type only shapes the data flags`, CANNOT_CHANGE_HINT);
  }
  if (!dataGiven && Object.keys(style).length === 0) {
    throw new UsageError('nothing to change: give the data flags (or --data-json), and optionally --background, --foreground, --logo', 'e.g. linkctl qr update 12 --data https://example.com/new');
  }
  // Colours can be changed only on a code made with colours (the product 7.7 answers an empty
  // HTTP 500 otherwise, and changes nothing): the code's image says which it is, so it is read
  // first and the update refused before anything is sent.
  const colours = style.foreground !== undefined || style.background !== undefined;
  let known: CodeRead | undefined;
  if (colours) {
    known = await readCodeOf(ctx, await ctx.client(), id);
    const { madeWithoutColours } = await import('../../qr/read.js');
    if (known.content && madeWithoutColours(known.content)) throw colourRefusal(id, known.content.type);
  }
  // A style-only change is sent without data: the document requires `data` on every update, but
  // real servers (7.4 to 7.7) keep the code's content when it is left out (real-servers.md), and
  // reading it from the image to send it back could change a link code's short link.
  if (!dataGiven) {
    const client = await ctx.client();
    try {
      return messageResult(await updateOne(client, QR, id, style, { emptyAnswerHint: emptyUpdateHint(id, colours) }), `QR code ${id} updated.`);
    } catch (error) {
      if (error instanceof ApiError) {
        throw new ApiError(error.message, `this server wants the code's data with every update, as the API document says: give its data flags with the style flags (\`linkctl qr get ${id}\` shows its type and data)`);
      }
      throw error;
    }
  }
  // Flags checked against the given type before anything is sent.
  if (opts.type !== undefined) buildData(ctx, opts.type as QrType, opts);
  const client = await ctx.client();
  // Servers check the data against the code's stored type and fail with an HTTP 500 on another
  // shape; the API cannot change the type. The type is read from the code's image first.
  known ??= await readCodeOf(ctx, client, id);
  const real = typeOfRead(known);
  if ('type' in real && opts.type !== undefined && real.type !== opts.type) {
    throw new UsageError(`QR code ${id} is a ${real.type} code (read from its image), not ${String(opts.type)}: the API cannot change a code's type, and nothing was sent`,
      `give its ${real.type} data (\`linkctl qr update ${id} --type ${real.type} ...\`), or delete it and create a ${String(opts.type)} code (\`linkctl qr delete ${id}\` then \`linkctl qr add --type ${String(opts.type)} ...\`)`);
  }
  if ('unreadable' in real) {
    if (opts.type === undefined) throw new UsageError(`--type is needed: QR code ${id}'s type could not be read from its image (${real.unreadable}); nothing was sent`, `give the code's own type, e.g. linkctl qr update ${id} --type link --data https://example.com/new`);
    ctx.warn(`note: QR code ${id}'s type could not be checked against its image (${real.unreadable}); the server checks the data against the code's own type.`);
  }
  const type = (opts.type as QrType | undefined) ?? (real as { type: QrType }).type;
  const data = buildData(ctx, type, opts);
  refuseCorrupted(type, data, opts);
  const json = compact({ type, data, ...style });
  if (type === 'link') await qrKeepsPolicy(ctx, `qr update ${id}`, data);
  let body;
  try {
    body = await updateOne(client, QR, id, json, { emptyAnswerHint: emptyUpdateHint(id, colours) });
  } catch (error) {
    // Where the image could not tell the type, the server's HTML 500 (7.7: "Invalid phone number") most likely means another type.
    if (error instanceof NetworkError && /^HTTP 500\b/.test(error.message) && !/empty answer/.test(error.message)) {
      throw new NetworkError(error.message, `the likely cause: the data does not fit QR code ${id}'s own type, which --type cannot change (servers check the data against the type the code was made with); to give it another type, delete the code and add it again`);
    }
    throw error;
  }
  const result = messageResult(body, `QR code ${id} updated.`);
  if (ctx.globals.dryRun) return result;
  // What the code holds now, read back from its image (its link: from the read before the update).
  const link = known.link;
  const { problem, note } = await confirmContent(ctx, client, { id, link }, type, data);
  if (problem) ctx.warn(`linkctl: ${problem}`);
  if (note) ctx.warn(`note: ${note}`);
  return { ...result, exitCode: problem ? 1 : undefined };
}

/** A code read from its image (a GET of the code for its image's URL, the image, and perhaps its short link). */
async function readCodeOf(ctx: Context, client: Awaited<ReturnType<Context['client']>>, id: number): Promise<CodeRead> {
  const details = ((await readOne(client, QR, id)).details ?? {}) as Rec;
  const { readCode } = await import('../../qr/read.js');
  ctx.status('reading the code\'s image');
  return readCode(client, { id, name: null, link: typeof details.link === 'string' ? details.link : null });
}

/** A code's type, as its image gave it. */
const typeOfRead = (read: CodeRead): { type: QrType } | { unreadable: string } => (read.content ? { type: read.content.type } : { unreadable: read.unreadable! });


/** Why colours are not sent to a code made without them, and what re-creating it would break. */
function colourRefusal(id: number, type: QrType): UsageError {
  const breaks = hasShortLink(type)
    ? `a ${type} code's image holds its own short link, and a new code gets a new one: every printed copy of the old code would stop working, and its scans are counted apart`
    : `a ${type} code's image holds its content itself, so a new code scans the same (only its id, image URL and scan count change)`;
  return new UsageError(`QR code ${id} was made without colours (its image is black on a transparent background): the server cannot add colours to it (the product answers an empty HTTP 500 and changes nothing); nothing was sent`,
    `to have colours, create the code again with them (\`linkctl qr delete ${id}\` then \`linkctl qr add --type ${type} ... --foreground ... --background ...\`): ${breaks}`);
}

/** What an empty answer to a QR update means: never "the id may not exist" (the code was read, or is the user's). */
const emptyUpdateHint = (id: number, colours: boolean) => (colours
  ? `the server failed without saying why; the product 7.7 answers so to colours on a code made without them, and changes nothing (\`linkctl qr get ${id}\` shows its colours)`
  : `the server failed without saying why, and may have changed nothing: \`linkctl qr get ${id}\` shows the code as it is now`);

export async function get(ctx: Context, { args }: ActionInput): Promise<Result> {
  const id = args[0] as number;
  const client = await ctx.client();
  const body = await readOne(client, QR, id);
  const details = (body.details ?? {}) as Rec;
  // The API gives no type, data or colours: they are read from the code's image (no API request, no scan counted).
  const { readCode, contentJson, dataLine } = await import('../../qr/read.js');
  ctx.status('reading the code\'s image');
  const read = await readCode(client, { id, name: typeof details.name === 'string' ? details.name : null, link: typeof details.link === 'string' ? details.link : null });
  const content = contentJson(read);
  const scans = await import('../../qr/scans.js');
  await scans.remember(ctx, details, scans.countsScans(body));
  const result = statsResult(body, [...COLUMNS, ...CONTENT_COLUMNS], 'No statistics for this code (servers keep none for text, sms and wifi codes).');
  if (result.kind !== 'record') return result;
  // Without a statistics block the code counts no scans (text, sms, wifi): the server's `scans` is another link's clicks.
  if (!scans.countsScans(body)) result.record.scans = null;
  // Real servers put the creation time under `data` (sic): it is the date, and `data` the code's content.
  if (result.record.date === undefined && typeof result.record.data === 'string') result.record.date = result.record.data;
  Object.assign(result.record, { type: content.type, data: dataLine(content.data), foreground: content.foreground, background: content.background });
  const said = read.content
    ? `Type, data and colours were read from the code's image${read.content.from === 'short link' ? ` (which holds its short link ${read.content.shortLink}, read without counting a scan)` : ''}: the API does not give them back.${read.content.notes.map((n) => `\nNote: ${n}.`).join('')}`
    : `The code's content could not be read from its image: ${read.unreadable}.`;
  // `date` in every JSON answer for a QR code, as `qr list --json` has it (issue 42): the server's `details.data` (sic) renamed in place.
  const json = { ...(result.json as Rec) };
  const rawDetails = json.details as Rec | undefined;
  if (rawDetails && rawDetails.date === undefined && typeof rawDetails.data === 'string') json.details = Object.fromEntries(Object.entries(rawDetails).map(([k, v]) => [k === 'data' ? 'date' : k, v]));
  return { ...result, json: { ...json, content }, note: [said, result.note].filter(Boolean).join('\n') };
}

/** What `qr get` reads from the image. */
const CONTENT_COLUMNS: Column[] = [
  { key: 'type', header: 'Type', show: (r) => r.type ?? '-' },
  { key: 'data', header: 'Data', show: (r) => r.data || '-' },
  { key: 'foreground', header: 'Foreground', show: (r) => r.foreground ?? '-' },
  { key: 'background', header: 'Background', show: (r) => r.background ?? '-' },
];
