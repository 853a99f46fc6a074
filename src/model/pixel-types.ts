/** Enumerations of tracking pixels, shared by the definitions (help, validation) and the completions. */

/** Exactly the types servers accept (they reject any other). */
export const PIXEL_TYPES = [
  'gtmpixel',
  'gapixel',
  'fbpixel',
  'adwordspixel',
  'linkedinpixel',
  'twitterpixel',
  'adrollpixel',
  'quorapixel',
  'pinterest',
  'bing',
  'snapchat',
  'reddit',
  'tiktok',
] as const;
export type PixelType = (typeof PIXEL_TYPES)[number];
