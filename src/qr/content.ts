/**
 * What a QR code holds, as text a phone reads, and back: the type and data of a code in the
 * shapes `qr add` takes (a string for link, text, phone and an email without subject or body; an
 * object for sms, wifi, vcard and an email with subject or body). The sandbox draws its images
 * with `contentText`; `readContent` is how linkctl recovers a code from the text in its image (or
 * behind the code's own short link). Pure: no I/O.
 */
import type { QrType } from '../model/qr-types.js';

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

/** `WIFI:T:WPA;S:name;P:pass;;` fields, with `\` escapes undone; undefined when not well formed. */
function wifiFields(text: string): Map<string, string> | undefined {
  const fields = new Map<string, string>();
  let i = 5; // after "WIFI:"
  while (i < text.length) {
    if (text[i] === ';') { i++; continue; } // the closing ";;"
    const colon = text.indexOf(':', i);
    if (colon < 0) return undefined;
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

/** The vCard of a `qr add --type vcard` data object. `folded`: lines of at most 75 octets, as a .vcf file has them. */
export function vcardText(d: Record<string, unknown>, folded = false): string {
  const v = (key: string) => VCARD_ESCAPE(str(d[key]));
  const fname = str(d.fname);
  const lname = str(d.lname);
  const lines = [
    'BEGIN:VCARD', 'VERSION:3.0', `N:${v('lname')};${v('fname')};;;`, `FN:${VCARD_ESCAPE([fname, lname].filter(Boolean).join(' '))}`,
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
 * The type and data a text stands for. `behindShortLink`: the text is what the code's own short
 * link answered (its Location or its vCard), which only link, email, phone and vcard codes have;
 * otherwise it is the image's own text, which a text code could hold as well.
 */
export function readContent(text: string, behindShortLink = false): Content {
  const trimmed = text.trim();
  const doubt = (type: string) => (behindShortLink ? [] : [`read as ${type} from the text itself: a text code holding the same text reads alike`]);
  if (/^WIFI:/i.test(trimmed)) {
    const f = wifiFields(trimmed);
    if (f?.has('S')) {
      const given = (f.get('T') ?? '').toUpperCase();
      const encryption = given === 'WEP' ? 'WEP' : given === '' || given === 'NOPASS' ? (f.get('P') ? 'WPA' : 'nopass') : 'WPA';
      const notes = [];
      if (given && !['WPA', 'WEP', 'NOPASS'].includes(given)) notes.push(`the network's encryption ${given} is kept as WPA (a wifi code offers WPA, WEP or nopass)`);
      if (/^true$/i.test(f.get('H') ?? '')) notes.push('the network is marked hidden, which a wifi code cannot carry');
      return { type: 'wifi', data: { ssid: f.get('S')!, pass: encryption === 'nopass' ? '' : (f.get('P') ?? ''), encryption }, notes };
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
    return { ...card, notes: [...card.notes, ...doubt('vcard')] };
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
