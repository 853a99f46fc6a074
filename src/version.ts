/** Replaced at build time from package.json; the fallback serves tests run from source. */
declare const __LINKCTL_VERSION__: string | undefined;
export const VERSION: string = typeof __LINKCTL_VERSION__ === 'string' ? __LINKCTL_VERSION__ : '0.0.0-dev';
