/**
 * The formats of `export --redirects`, one writer each in ./redirects.ts. Their own file, without
 * imports: the command's flags (loaded at start-up) list them, and the writers own them.
 */
export const REDIRECT_FORMATS = ['nginx', 'apache', 'caddy', 'netlify', 'cloudflare', 'csv'] as const;

export type RedirectFormat = (typeof REDIRECT_FORMATS)[number];
