/**
 * The sandbox's own little site: every seeded link, QR code and domain leads to a page of it, so
 * `linkctl --sandbox check` and `check --qr` need no network, and no seed names a real domain.
 * Its pages are named `https://sandbox.localhost/NAME` (a `.localhost` name, RFC 6761: never sent
 * to DNS), and the sandbox serves them, over plain http, at `/pages/NAME` of its own address.
 *
 * The sandbox's real address is known only once it listens, and its state outlives the port
 * (embedded `--sandbox` and `sandbox serve` listen on a new port each run). So the state, and
 * every API answer, keeps the fixed name: an export made in one run plans clean in the next. Only
 * what a visitor or `check` follows is resolved to the current address: the sandbox's redirects
 * (server.ts) and check's requests (check/probe.ts, `aliasOrigin`). The names are short so that a
 * seeded destination shows whole in a table at 80 columns. A small module of its own: check loads
 * it without the sandbox.
 */
export const SANDBOX_OWN_ORIGIN = 'https://sandbox.localhost';

/**
 * Both schemes name the same pages: the seeds use https (as real destinations do, so a policy's
 * forbid-insecure finds nothing in the demo account), a user may type http.
 */
export const SANDBOX_OWN_ORIGINS: readonly string[] = [SANDBOX_OWN_ORIGIN, 'http://sandbox.localhost'];

/** Where the sandbox serves its pages, under its own address. */
export const SANDBOX_PAGES_PATH = '/pages';

/** A page of the sandbox's site, as the state and the API name it. */
export const sandboxPage = (name: string): string => `${SANDBOX_OWN_ORIGIN}/${name}`;

/** Where the pages named under SANDBOX_OWN_ORIGIN are served by a sandbox listening at `origin`. */
export const sandboxPagesAt = (origin: string): string => `${origin}${SANDBOX_PAGES_PATH}`;
