/**
 * What `linkctl check` can say about a destination and about a link: the names users type in
 * `--fail-on`, read in `--json` and see in the terminal view. One list each, no imports: the
 * command definition (loaded at start-up) takes its help, validation and completion values
 * from here.
 *
 * A destination has one outcome (its status) and any number of flags: facts that hold besides
 * the outcome (plain http at some hop, slow), so that a redirect over plain http is still a
 * `redirect`, and `--fail-on redirect` and `--fail-on insecure` each see it.
 */

/** The outcome of one destination, from the answer to its requests (or the lack of one). */
export const STATUSES = [
  'ok',
  'redirect',
  'redirect-offsite',
  'client-error',
  'server-error',
  'timeout',
  'dns',
  'tls',
  'refused',
  'loop',
  'too-many-redirects',
  'bad-port',
  'error',
  'blocked',
  'unchecked',
] as const;
export type Status = (typeof STATUSES)[number];

export const STATUS_HELP: Record<Status, string> = {
  ok: 'answers 2xx (to GET), no redirect',
  redirect: 'answers 2xx after redirects within the same site',
  'redirect-offsite': 'answers 2xx after redirects to another site, or an app',
  'client-error': 'HTTP 4xx',
  'server-error': 'HTTP 5xx',
  timeout: 'no answer within --timeout (or before --deadline)',
  dns: 'the host name does not resolve',
  tls: 'the certificate is invalid or expired',
  refused: 'the connection was refused',
  loop: 'a redirect back to a URL of its own chain',
  'too-many-redirects': 'more than 10 redirects',
  'bad-port': 'a port browsers refuse (e.g. 6000); not requested',
  error: 'another failure: connection reset, bad Location',
  blocked: 'a private or loopback address; not requested',
  unchecked: 'not requested: not http(s), or --deadline came first',
};

/** Statuses that mean the destination does not work: `--fail-on broken` matches any of them. */
export const BROKEN: readonly Status[] = ['client-error', 'server-error', 'timeout', 'dns', 'tls', 'refused', 'loop', 'too-many-redirects', 'bad-port', 'error'];

/** What else is true of a destination, whatever its status. */
export const FLAGS = ['insecure', 'slow'] as const;
export type Flag = (typeof FLAGS)[number];

/** A destination whose requests took longer than this in all is `slow`. */
export const SLOW_MS = 5_000;

export const FLAG_HELP: Record<Flag, string> = {
  insecure: 'plain http:// at some hop (the destination or a redirect)',
  slow: `answered, but its requests took more than ${SLOW_MS / 1000} s in all`,
};

/** Findings about a link that need no request to its destination (account checks). */
export const FINDINGS = ['unknown-domain', 'duplicate', 'missing-campaign', 'expiring', 'expired', 'qr-unreadable'] as const;
export type Finding = (typeof FINDINGS)[number];

export const FINDING_HELP: Record<Finding, string> = {
  'unknown-domain': "the link's domain is not one of the account's",
  duplicate: 'one destination shortened by several links',
  'missing-campaign': "the link's campaign no longer exists",
  expiring: 'expires within --expiring (with --details)',
  expired: 'the link has expired (with --details)',
  'qr-unreadable': 'a QR code whose image could not be read (--qr)',
};

/** Every name `--fail-on` takes (and completion offers): `broken`, the statuses, the flags, the findings. */
export const FAIL_ON_NAMES: readonly string[] = ['broken', ...STATUSES, ...FLAGS, ...FINDINGS];

/** Statuses in the order people read them: the worst first, the healthy last. */
export const STATUS_ORDER: readonly Status[] = [...BROKEN, 'blocked', 'redirect-offsite', 'unchecked', 'redirect', 'ok'];

/** Statuses that need no attention: a record with one of these, no flag --fail-on names and no finding is healthy. */
export const HEALTHY: readonly Status[] = ['ok', 'redirect'];
