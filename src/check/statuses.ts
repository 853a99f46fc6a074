/**
 * What `linkctl check` can say about a destination and about a link: the names users type in
 * `--fail-on`, read in `--json` and see as table groups. No imports: the command definition
 * (loaded at start-up) takes its help and validation from here.
 */

/** The classification of one destination, from the answer to its request (or the lack of one). */
export const STATUSES = [
  'ok',
  'redirect',
  'redirect-offsite',
  'insecure',
  'client-error',
  'server-error',
  'timeout',
  'dns',
  'tls',
  'refused',
  'too-many-redirects',
  'error',
  'unchecked',
] as const;
export type Status = (typeof STATUSES)[number];

export const STATUS_HELP: Record<Status, string> = {
  ok: 'answers 2xx, no redirect',
  redirect: 'answers 2xx after redirects within the same site (host, ignoring "www.")',
  'redirect-offsite': 'answers 2xx after redirects that end on another host',
  insecure: 'answers, but the destination (or where it lands) is plain http://',
  'client-error': 'HTTP 4xx',
  'server-error': 'HTTP 5xx',
  timeout: 'no answer within --timeout (or before --deadline)',
  dns: 'the host name does not resolve',
  tls: 'the certificate is invalid or expired (the reason is given)',
  refused: 'the connection was refused',
  'too-many-redirects': 'a redirect loop, or more than 10 redirects',
  error: 'any other failure: connection reset, bad Location, not a URL',
  unchecked: 'not requested: not an http(s) URL, or --deadline passed first',
};

/** Statuses that mean the destination does not work: `--fail-on broken` matches any of them. */
export const BROKEN: readonly Status[] = ['client-error', 'server-error', 'timeout', 'dns', 'tls', 'refused', 'too-many-redirects', 'error'];

/** Findings about a link that need no request to its destination (account checks). */
export const FINDINGS = ['unknown-domain', 'duplicate', 'missing-campaign', 'expiring', 'expired', 'qr-unreadable'] as const;
export type Finding = (typeof FINDINGS)[number];

export const FINDING_HELP: Record<Finding, string> = {
  'unknown-domain': "the link's domain is not one of the account's domains",
  duplicate: 'the same destination is shortened by more than one link',
  'missing-campaign': "the link's campaign no longer exists",
  expiring: 'the link expires within --expiring (with --details)',
  expired: 'the link has expired (with --details)',
  'qr-unreadable': 'a QR code whose image linkctl could not read (with --qr)',
};

/** Every name `--fail-on` takes: the statuses, the findings, and `broken` for every broken status. */
export const FAIL_ON_NAMES: readonly string[] = ['broken', ...STATUSES, ...FINDINGS];

/** The order of the terminal table's groups: the worst first. */
export const GROUP_ORDER: readonly string[] = [...BROKEN, 'redirect-offsite', 'insecure', ...FINDINGS, 'redirect', 'unchecked', 'ok'];
