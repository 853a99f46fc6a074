/**
 * Which hosts are this machine: the one rule for the API client (plain http allowed, no proxy),
 * \`check\` and the URLs linkctl offers when a scheme is missing. No imports: validators load it
 * at start-up.
 */

/** \`localhost\`, \`*.localhost\` (RFC 6761), 127.0.0.0/8 and ::1. */
export function isLoopback(hostname: string): boolean {
  // `localhost.` (with the root's dot) is the same name as `localhost`.
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * \`raw\` (a host and maybe a path, typed without a scheme) with the scheme it most likely has:
 * http:// for this machine (a local sandbox or server rarely has a certificate), https:// for any
 * other host; undefined when it is no URL even then.
 */
export function withLikelyScheme(raw: string): string | undefined {
  const value = raw.trim();
  if (!value || value.includes('://') || !URL.canParse(`https://${value}`)) return undefined;
  return `${isLoopback(new URL(`https://${value}`).hostname) ? 'http' : 'https'}://${value}`;
}
