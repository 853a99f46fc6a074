/** Enumerations of channels, shared by the definitions (help, validation) and the completions. */

/** Item types accepted by `channel assign`: `link` is a friendlier spelling of the API's `links`. */
export const CHANNEL_ITEM_TYPES = ['link', 'links', 'bio', 'qr'] as const;
export type ChannelItemType = (typeof CHANNEL_ITEM_TYPES)[number];

/** The `:type` path segment the API takes for each. */
export const ITEM_PATH_TYPE: Record<ChannelItemType, string> = { link: 'links', links: 'links', bio: 'bio', qr: 'qr' };
