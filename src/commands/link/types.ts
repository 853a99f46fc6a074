/** Enumerations of short links, shared by the definitions (help, validation) and the completions. */
export const LINK_ORDERS = ['date', 'clicks'] as const;
export type LinkOrder = (typeof LINK_ORDERS)[number];
/** `--redirect`: the plain redirect types; a splash page or an overlay has its own flag. */
export const REDIRECT_TYPES = ['direct', 'frame', 'splash'] as const;
/** `link update --clear`: the options linkctl reads back and resends, so clearing them must be asked for. */
export const CLEARABLE = ['geo', 'device', 'expiry', 'meta-title', 'description'] as const;
export type Clearable = (typeof CLEARABLE)[number];
