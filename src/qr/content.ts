/**
 * What a QR code holds, as text a phone reads, and back: the type and data of a code in the
 * shapes `qr add` takes (a string for link, text, phone and an email without subject or body; an
 * object for sms, wifi, vcard and an email with subject or body). The sandbox draws its images
 * with `contentText`; `readContent` is how linkctl recovers a code from the text in its image (or
 * behind the code's own short link). Pure: no I/O.
 */
import type { QrType } from '../model/qr-types.js';
import { cleanedText } from '../model/rewrites.js';

export type Data = string | Record<string, string>;
export interface Content {
  type: QrType;
  data: Data;
  /** What the text held that the type's data cannot carry, or a doubt about the type: said, never dropped silently. */
  notes: string[];
}

const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));
/** Drops empty values: `qr add` sends only the fields given. */
const compact = (o: Record<string, string | undefined>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '')) as Record<string, string>;

// ---------------------------------------------------------------- wifi (the ZXing "WIFI:" format)

const wifiEscape = (v: string) => v.replace(/([\\;,:"])/g, '\\$1');

/**
 * `WIFI:T:WPA;S:name;P:pass;;` fields, with `\` escapes undone. A part without a `key:` is passed
 * over, as a phone's reader passes it over (it looks for each field by its prefix): the product
 * writes `P:s3cr;t,pw&quot;;;` unescaped, which reads as the password `s3cr` and a stray `t,pw&quot`.
 */
function wifiFields(text: string, stray: string[] = []): Map<string, string> | undefined {
  const fields = new Map<string, string>();
  let i = 5; // after "WIFI:"
  while (i < text.length) {
    if (text[i] === ';') { i++; continue; } // the closing ";;"
    const colon = text.indexOf(':', i);
    const end = text.indexOf(';', i);
    if (colon < 0 || (end >= 0 && end < colon)) {
      stray.push(text.slice(i, end < 0 ? undefined : end));
      if (end < 0) break;
      i = end + 1;
      continue;
    }
    const key = text.slice(i, colon).toUpperCase();
    let value = '';
    let j = colon + 1;
    for (; j < text.length && text[j] !== ';'; j++) {
      if (text[j] === '\\' && j + 1 < text.length) j++;
      value += text[j];
    }
    fields.set(key, value);
    i = j + 1;
  }
  return fields;
}

// ---------------------------------------------------------------- vCard (RFC 6350, 3.0 and 4.0)

const VCARD_ESCAPE = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/([,;])/g, '\\$1');
const vcardUnescape = (v: string) => v.replace(/\\(.)/g, (_, c: string) => (c === 'n' || c === 'N' ? '\n' : c));
/** Splits a structured value (`N`, `ADR`) at unescaped semicolons. */
function components(value: string): string[] {
  const out: string[] = [];
  let part = '';
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '\\' && i + 1 < value.length) { part += value[i]! + value[i + 1]!; i++; continue; }
    if (value[i] === ';') { out.push(vcardUnescape(part)); part = ''; continue; }
    part += value[i];
  }
  out.push(vcardUnescape(part));
  return out;
}

/** Lines of at most 75 octets, continued with a space (RFC 6350, 3.2), without splitting a character. */
function fold(line: string): string {
  const out: string[] = [];
  let rest = line;
  let limit = 75;
  while (Buffer.byteLength(rest) > limit) {
    let cut = 0;
    let bytes = 0;
    for (const ch of rest) {
      const n = Buffer.byteLength(ch);
      if (bytes + n > limit) break;
      bytes += n;
      cut += ch.length;
    }
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
    limit = 74; // the leading space takes one
  }
  out.push(rest);
  return out.join('\r\n ');
}

/**
 * The vCard of a `qr add --type vcard` data object. `folded`: lines of at most 75 octets, as a .vcf
 * file has them. `escaped` false: values written as they are, as the product writes them.
 */
export function vcardText(d: Record<string, unknown>, folded = false, escaped = true): string {
  const escape = escaped ? VCARD_ESCAPE : (v: string) => v;
  const v = (key: string) => escape(str(d[key]));
  const fname = str(d.fname);
  const lname = str(d.lname);
  const lines = [
    'BEGIN:VCARD', 'VERSION:3.0', `N:${v('lname')};${v('fname')};;;`, `FN:${escape([fname, lname].filter(Boolean).join(' '))}`,
    d.org ? `ORG:${v('org')}` : '', d.phone ? `TEL;TYPE=WORK,VOICE:${v('phone')}` : '', d.cell ? `TEL;TYPE=CELL:${v('cell')}` : '',
    d.fax ? `TEL;TYPE=FAX:${v('fax')}` : '', d.email ? `EMAIL:${v('email')}` : '', d.site ? `URL:${v('site')}` : '',
    ['street', 'city', 'state', 'zip', 'country'].some((k) => d[k]) ? `ADR;TYPE=WORK:;;${v('street')};${v('city')};${v('state')};${v('zip')};${v('country')}` : '',
    'END:VCARD',
  ].filter(Boolean);
  return `${(folded ? lines.map(fold) : lines).join('\r\n')}${folded ? '\r\n' : ''}`;
}

/** What linkctl keeps of a vCard: `qr add`'s vcard fields. Other properties are named in the notes. */
function readVcard(text: string): Content {
  // Unfold (a line break followed by a space or tab continues the line), then one property a line.
  const lines = text.replace(/\r\n|\r/g, '\n').replace(/\n[ \t]/g, '').split('\n').map((l) => l.trim()).filter(Boolean);
  const data: Record<string, string | undefined> = {};
  const dropped = new Set<string>();
  for (const line of lines) {
    const colon = line.search(/:(?=(?:[^"]*"[^"]*")*[^"]*$)/); // the first colon outside quoted parameters
    if (colon < 0) continue;
    const [rawName, ...params] = line.slice(0, colon).split(';');
    const name = rawName!.replace(/^[^.]*\./, '').toUpperCase(); // `item1.TEL` is a TEL
    const value = line.slice(colon + 1);
    const types = params.join(';').toUpperCase();
    if (/ENCODING=QUOTED-PRINTABLE/.test(types)) { dropped.add(`${name} (quoted-printable)`); continue; }
    const set = (key: string, v: string) => {
      if (data[key] === undefined) data[key] = v;
      else dropped.add(`a second ${name}`);
    };
    switch (name) {
      case 'BEGIN': case 'END': case 'VERSION': case 'FN': case 'PRODID':
        break;
      case 'N': {
        const [last, first, ...more] = components(value);
        set('lname', last ?? '');
        set('fname', first ?? '');
        if (more.some(Boolean)) dropped.add('N (middle name, prefix or suffix)');
        break;
      }
      case 'ORG': set('org', components(value).filter(Boolean).join(', ')); break;
      case 'TEL': {
        const number = vcardUnescape(value).replace(/^tel:/i, '');
        set(/\bCELL\b/.test(types) ? 'cell' : /\bFAX\b/.test(types) ? 'fax' : 'phone', number);
        break;
      }
      case 'EMAIL': set('email', vcardUnescape(value).replace(/^mailto:/i, '')); break;
      case 'URL': set('site', vcardUnescape(value)); break;
      case 'ADR': {
        const [box, extended, street, city, region, zip, country] = components(value);
        if (box || extended) dropped.add('ADR (post office box or extended address)');
        Object.assign(data, { street, city, state: region, zip, country });
        break;
      }
      default:
        dropped.add(name);
    }
  }
  const notes = dropped.size ? [`the vCard also holds ${[...dropped].join(', ')}, which a QR code's vcard data cannot carry`] : [];
  return { type: 'vcard', data: compact(data), notes };
}

// ---------------------------------------------------------------- email (mailto: and MATMSG:)

/** A percent-encoded part of a URL, or as it is when it is not (servers write `subject=Hi there`). */
const percentDecoded = (v: string) => {
  try { return decodeURIComponent(v); } catch { return v; }
};

function emailData(address: string, subject: string | undefined, body: string | undefined): Data {
  return subject !== undefined || body !== undefined ? compact({ email: address, subject, body }) : address;
}

function readMailto(text: string): Content {
  const rest = text.slice('mailto:'.length);
  const q = rest.indexOf('?');
  const address = percentDecoded(q < 0 ? rest : rest.slice(0, q));
  let subject: string | undefined;
  let body: string | undefined;
  const other: string[] = [];
  for (const pair of q < 0 ? [] : rest.slice(q + 1).split('&')) {
    const eq = pair.indexOf('=');
    const key = (eq < 0 ? pair : pair.slice(0, eq)).toLowerCase();
    const value = percentDecoded(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === 'subject') subject = value;
    else if (key === 'body') body = value;
    else if (key) other.push(key);
  }
  return { type: 'email', data: emailData(address, subject, body), notes: other.length ? [`the mailto: link also sets ${other.join(', ')}, which an email code cannot carry`] : [] };
}

/** `MATMSG:TO:a@b;SUB:Hi;BODY:text;;` (the DoCoMo format many generators write). */
function readMatmsg(text: string): Content {
  const fields = new Map<string, string>();
  const re = /(TO|SUB|BODY):((?:\\.|[^;\\])*);/gi;
  for (const m of text.slice('MATMSG:'.length).matchAll(re)) fields.set(m[1]!.toUpperCase(), m[2]!.replace(/\\(.)/g, '$1'));
  return { type: 'email', data: emailData(fields.get('TO') ?? '', fields.get('SUB'), fields.get('BODY')), notes: [] };
}

// ---------------------------------------------------------------- both ways

/** The text a code of this type and data puts in its image (or behind its short link), as phones read it. */
export function contentText(type: string, data: unknown): string {
  const d = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  switch (type) {
    case 'wifi': {
      const encryption = str(d.encryption) || 'nopass';
      return `WIFI:T:${encryption};S:${wifiEscape(str(d.ssid))};${encryption === 'nopass' ? '' : `P:${wifiEscape(str(d.pass))};`};`;
    }
    case 'phone': return `tel:${str(data)}`;
    case 'sms': return `SMSTO:${str(d.phone)}:${str(d.message)}`;
    case 'email': {
      if (typeof data === 'string') return `mailto:${data}`;
      const params = (['subject', 'body'] as const).filter((k) => d[k]).map((k) => `${k}=${encodeURIComponent(str(d[k]))}`);
      return `mailto:${str(d.email)}${params.length ? `?${params.join('&')}` : ''}`;
    }
    case 'vcard': return vcardText(d);
    default: return typeof data === 'string' ? data : JSON.stringify(data);
  }
}

/**
 * The text the product 7.7 puts in a code (its image; for a vCard, what the code's short link
 * answers), from the data it is sent: the product's input cleaning first (src/model/rewrites.ts:
 * `"` → `&quot;`, `'` → `&#039;`, tags removed), then a wifi code's text written
 * `WIFI:S:<ssid>;T:<encryption>;P:<password>;;` without escaping `;`, `,`, `:` or `"`
 * (real-servers.md, 23b; the recorded image holds `WIFI:S:Cafe;T:WPA;P:secret1;;`), an sms as
 * `smsto:<phone>:<message>` (recorded), a vCard of cleaned fields (`N:O&#039;Neil;José`). What
 * cleaning does to text and sms data is not known: they are taken as sent.
 */
export function productText(type: string, data: unknown): string {
  const d = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  switch (type) {
    case 'wifi': {
      const encryption = str(d.encryption) || 'nopass';
      return `WIFI:S:${cleanedText(str(d.ssid))};T:${encryption};P:${encryption === 'nopass' ? '' : cleanedText(str(d.pass))};;`;
    }
    case 'sms': return `smsto:${str(d.phone)}:${str(d.message)}`;
    case 'vcard': return productVcard(d);
    default: return contentText(type, data);
  }
}

/** The vCard the product's short link answers for a vcard code: its fields cleaned and not escaped (`N:O&#039;Neil;José`). */
export const productVcard = (d: Record<string, unknown>, folded = false): string => vcardText(Object.fromEntries(Object.entries(d).map(([k, v]) => [k, cleanedText(str(v))])), folded, false);

/** Characters the product mangles in a code's data: what its cleaning rewrites, and what ends a wifi field it does not escape. */
const MANGLED = /[;,:"'\\<>]/g;

/** A field of a code's data that the code would not hold as asked. */
export interface Corrupted {
  /** The data's key (`pass`, `lname`), or `data` for a code whose data is a string. */
  field: string;
  asked: string;
  /** What a phone reads from the code the product makes (undefined: the field is gone). */
  read: string | undefined;
  /** The characters of `asked` that the product mangles, each once. */
  chars: string[];
}

/**
 * The fields of `data` that a code the product makes of it would not hold as asked: its text
 * (productText) read back as a phone reads it. Empty when the code holds what was asked.
 */
export function corruptedFields(type: string, data: unknown): Corrupted[] {
  const read = readContent(productText(type, data), type === 'vcard');
  const asked = data && typeof data === 'object' ? (data as Record<string, unknown>) : { data };
  const got = read.data && typeof read.data === 'object' ? (read.data as Record<string, string>) : { data: read.data };
  const out: Corrupted[] = [];
  for (const [field, value] of Object.entries(asked)) {
    const want = str(value);
    if (want === '' || (type === 'wifi' && field === 'encryption')) continue;
    if (got[field] === want) continue;
    out.push({ field, asked: want, read: got[field], chars: [...new Set(want.match(MANGLED) ?? [])] });
  }
  return out;
}

/** The product's HTML escapes of `"`, `'`, `<` and `>`, whole or cut at their `;`. */
const ENTITY = /&(?:quot|#0?39|lt|gt)(?![a-z0-9])/i;

/**
 * What a code's fields show of the product's cleaning (`O&#039;Neil`, `pw&quot;`): the code does
 * not hold what its maker typed, and an export of it would carry the damage on (issue 55).
 */
function entityNotes(data: Data): string[] {
  if (typeof data !== 'object') return [];
  return Object.entries(data).filter(([, v]) => ENTITY.test(v)).map(([k, v]) => `its ${k} ${JSON.stringify(v)} holds an HTML escape the product wrote for a quote or a bracket (" ' < >), so the code does not hold what was given`);
}

/**
 * The type and data a text stands for. `behindShortLink`: the text is what the code's own short
 * link answered (its Location or its vCard), which only link, email, phone and vcard codes have;
 * otherwise it is the image's own text, which a text code could hold as well.
 */
export function readContent(text: string, behindShortLink = false): Content {
  const trimmed = text.trim();
  const doubt = (type: string) => (behindShortLink ? [] : [`read as ${type} from the text itself: a text code holding the same text reads alike`]);
  if (/^WIFI:/i.test(trimmed)) {
    const stray: string[] = [];
    const f = wifiFields(trimmed, stray);
    if (f?.has('S')) {
      const given = (f.get('T') ?? '').toUpperCase();
      const encryption = given === 'WEP' ? 'WEP' : given === '' || given === 'NOPASS' ? (f.get('P') ? 'WPA' : 'nopass') : 'WPA';
      const notes = [];
      if (given && !['WPA', 'WEP', 'NOPASS'].includes(given)) notes.push(`the network's encryption ${given} is kept as WPA (a wifi code offers WPA, WEP or nopass)`);
      if (/^true$/i.test(f.get('H') ?? '')) notes.push('the network is marked hidden, which a wifi code cannot carry');
      if (stray.length) notes.push(`the code's text has parts that are no field (${stray.map((s) => JSON.stringify(s)).join(', ')}): the product writes wifi fields without escaping, so a ; in the name or password cut it short and the code does not hold what was given`);
      const data = { ssid: f.get('S')!, pass: encryption === 'nopass' ? '' : (f.get('P') ?? ''), encryption };
      return { type: 'wifi', data, notes: [...notes, ...entityNotes(data)] };
    }
  }
  const sms = /^(?:SMSTO|SMS):([^:?]*)(?::([\s\S]*)|\?body=([\s\S]*))?$/i.exec(trimmed);
  if (sms) return { type: 'sms', data: { phone: sms[1]!, message: sms[2] ?? (sms[3] === undefined ? '' : percentDecoded(sms[3])) }, notes: [] };
  if (/^mailto:/i.test(trimmed)) {
    const email = readMailto(trimmed);
    return { ...email, notes: [...email.notes, ...doubt('email')] };
  }
  if (/^MATMSG:/i.test(trimmed)) return { ...readMatmsg(trimmed), notes: doubt('email') };
  if (/^tel:/i.test(trimmed)) return { type: 'phone', data: percentDecoded(trimmed.slice(4)), notes: doubt('phone') };
  if (/^BEGIN:VCARD/i.test(trimmed)) {
    const card = readVcard(trimmed);
    return { ...card, notes: [...card.notes, ...entityNotes(card.data), ...doubt('vcard')] };
  }
  if (/^https?:\/\/\S+$/i.test(trimmed)) return { type: 'link', data: trimmed, notes: doubt('link') };
  return { type: 'text', data: text, notes: [] };
}

/**
 * Two codes' data compared as the server keeps it: objects field by field, an empty field the
 * same as none (`qr add` sends only what is given; an sms without message has `message: ""`).
 */
export function sameData(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (v && typeof v === 'object' ? JSON.stringify(Object.entries(v).filter(([, x]) => x !== '' && x !== undefined && x !== null).map(([k, x]) => [k, String(x)]).sort()) : JSON.stringify(str(v)));
  return norm(a) === norm(b);
}
