/**
 * Which addresses `linkctl check` may connect to. A link's destination (or any redirect on the
 * way) can point anywhere; a check run from a laptop or a CI runner must not become a way to
 * probe the networks behind it. Every address a destination resolves to is classified here
 * before a request: loopback, private, link-local, unique-local, CGNAT, cloud metadata,
 * unspecified, multicast, reserved and documentation ranges, and the IPv6 forms that carry an
 * IPv4 address (mapped, translated, compatible, NAT64, 6to4), are refused unless `--allow-private` allows
 * them (all of them, or the networks it names).
 *
 * No imports: the command definition (loaded at start-up) parses `--allow-private` with `parseAllowPrivate`.
 */

/** The environment variable that allows private addresses as `--allow-private` does. */
export const ALLOW_PRIVATE_ENV = 'LINKCTL_CHECK_ALLOW_PRIVATE';
export const ALLOW_PRIVATE_HINT = 'give `all` (or no value to the flag), or networks separated by commas, e.g. 10.0.0.0/8,fd00::/8,127.0.0.1';

const IPV4 = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** 4, 6, or 0 for text that is no IP address (IPv6 syntax as the URL standard reads it). */
function ipKind(address: string): 4 | 6 | 0 {
  if (IPV4.test(address)) return 4;
  if (!address.includes(':')) return 0;
  try {
    new URL(`http://[${address}]/`);
    return 6;
  } catch {
    return 0;
  }
}

/** An address as bytes: 4 for IPv4, 16 for IPv6. */
type Bytes = number[];

interface Range {
  bytes: Bytes;
  prefix: number;
  /** What the range is, as a message says it ("a loopback address"). */
  what: string;
}

/** The ranges refused by default (IANA special-purpose registries, RFC 6890 and later). */
const SPECIAL: Array<[cidr: string, what: string]> = [
  ['169.254.169.254/32', 'a cloud metadata address'],
  ['fd00:ec2::254/128', 'a cloud metadata address'],
  ['100.100.100.200/32', 'a cloud metadata address'],
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['10.0.0.0/8', 'a private address (RFC 1918)'],
  ['100.64.0.0/10', 'a carrier-grade NAT address (RFC 6598)'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['172.16.0.0/12', 'a private address (RFC 1918)'],
  ['192.0.0.0/24', 'an IETF protocol address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a 6to4 relay address'],
  ['192.168.0.0/16', 'a private address (RFC 1918)'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved address'],
  ['::/128', 'an unspecified address'],
  ['::1/128', 'a loopback address'],
  ['64:ff9b:1::/48', 'a local NAT64 address'],
  ['100::/64', 'a discard address'],
  ['2001::/23', 'an IETF protocol address'],
  ['2001:db8::/32', 'a documentation address'],
  ['3fff::/20', 'a documentation address'],
  ['fc00::/7', 'a unique-local address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
];

const RANGES: Range[] = SPECIAL.map(([cidr, what]) => ({ ...parseCidr(cidr)!, what }));

/** The bytes of an IP address (v4 dotted, v6 in any RFC 4291 form, brackets and a zone allowed), or undefined. */
export function addressBytes(text: string): Bytes | undefined {
  const address = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const kind = ipKind(address);
  if (kind === 4) return address.split('.').map(Number);
  if (kind !== 6) return undefined;
  let head = address;
  let v4: Bytes = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    // The last 32 bits written as IPv4: `::ffff:127.0.0.1` is `::ffff` and 127.0.0.1.
    head = dotted[1]!.endsWith('::') ? dotted[1]! : dotted[1]!.slice(0, -1);
    v4 = dotted[2]!.split('.').map(Number);
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').filter((g) => g !== '') : []);
  const l = groups(left);
  const r = groups(right);
  const missing = 8 - v4.length / 2 - l.length - r.length;
  const all = [...l, ...(right !== undefined ? Array(missing).fill('0') : []), ...r];
  const bytes = all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  return [...bytes, ...v4];
}

/** `10.0.0.0/8`, `fd00::/8`, or one address (a /32 or /128); undefined when it is neither. */
export function parseCidr(text: string): { bytes: Bytes; prefix: number } | undefined {
  const [address, prefixText, extra] = text.trim().split('/');
  if (extra !== undefined || !address) return undefined;
  const bytes = addressBytes(address);
  if (!bytes) return undefined;
  const max = bytes.length * 8;
  if (prefixText === undefined) return { bytes, prefix: max };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) return undefined;
  return { bytes, prefix: Number(prefixText) };
}

function inRange(bytes: Bytes, range: { bytes: Bytes; prefix: number }): boolean {
  if (bytes.length !== range.bytes.length) return false;
  for (let bit = 0; bit < range.prefix; bit += 8) {
    const take = Math.min(8, range.prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (range.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

const startsWith = (bytes: Bytes, prefix: number[]) => prefix.every((b, i) => bytes[i] === b);

/**
 * The IPv4 address an IPv6 address carries, where packets to it reach that IPv4 address:
 * IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and
 * 6to4 (2002:aabb:ccdd::). Checked as that IPv4 address.
 */
function embeddedV4(bytes: Bytes): Bytes | undefined {
  if (bytes.length !== 16) return undefined;
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  // IPv4-translated (::ffff:0:a.b.c.d, RFC 2765): `::ffff:0:7f00:1` is 127.0.0.1.
  if (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12)) return bytes.slice(12);
  if (zeros(0, 12) && !zeros(12, 15)) return bytes.slice(12); // ::a.b.c.d (not :: or ::1)
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b]) && zeros(4, 12)) return bytes.slice(12);
  if (startsWith(bytes, [0x20, 0x02])) return bytes.slice(2, 6);
  return undefined;
}

/** Which special range an address is in ("a loopback address"), or undefined for an ordinary one. */
export function specialRange(address: string): string | undefined {
  const bytes = addressBytes(address);
  if (!bytes) return 'not an IP address';
  const v4 = embeddedV4(bytes);
  if (v4) {
    const inner = RANGES.find((r) => inRange(v4, r))?.what;
    return inner ? `${inner} in IPv6 form` : undefined;
  }
  return RANGES.find((r) => inRange(bytes, r))?.what;
}

/**
 * The first of a name's addresses that may not be requested, or undefined: every address is
 * checked, since a connection may go to any of them.
 */
export function blockedAmong(host: string, addresses: ReadonlyArray<{ address: string }>, allow: AllowPrivate): { host: string; address: string; what: string } | undefined {
  for (const { address } of addresses) {
    const what = specialRange(address);
    if (what && !isAllowed(address, allow)) return { host, address, what };
  }
  return undefined;
}

/**
 * `--allow-private`: `all` (every address), or networks whose addresses may be checked. An
 * address is allowed when it, or the IPv4 address it carries, is in one of them.
 */
export type AllowPrivate = 'all' | Array<{ bytes: Bytes; prefix: number; text: string }>;

export function isAllowed(address: string, allow: AllowPrivate): boolean {
  if (allow === 'all') return true;
  const bytes = addressBytes(address);
  if (!bytes) return false;
  const v4 = embeddedV4(bytes);
  return allow.some((n) => inRange(bytes, n) || (v4 !== undefined && inRange(v4, n)));
}

/** `all`, or networks (`parseNetworks`): the value of `--allow-private`, its variable and its profile setting. */
export function parseAllowPrivate(raw: string): AllowPrivate {
  return raw.trim().toLowerCase() === 'all' ? 'all' : parseNetworks(raw);
}

/**
 * Parses a comma-separated list of networks (`10.0.0.0/8,fd00::/8,127.0.0.1`); throws a
 * message naming the first entry that is neither an address nor a network.
 */
export function parseNetworks(raw: string): Array<{ bytes: Bytes; prefix: number; text: string }> {
  const entries = raw.split(',').map((e) => e.trim()).filter(Boolean);
  if (entries.length === 0) throw new Error('needs at least one network');
  return entries.map((text) => {
    const network = parseCidr(text);
    if (!network) throw new Error(`"${text}" is not an IP address or a network (address/prefix)`);
    return { ...network, text };
  });
}

/** Private addresses a check may request, and where the user said so (flag, environment or profile: src/config/allow-private.ts). */
export interface Allowance { allow: AllowPrivate; from: string }
