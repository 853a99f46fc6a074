/** The plans the sandbox emulates (`sandbox serve --plan`, LINKCTL_SANDBOX_PLAN); here, so that help loads no sandbox code. */
export const PLANS = ['pro', 'basic', 'no-api'] as const;
/** `pro` has every feature; `basic` lacks those that real servers drop silently; `no-api` lacks the API (HTTP 403, as 7.7 with pro mode on). */
export type Plan = (typeof PLANS)[number];
/** What the plans other than pro lack, for `--plan`'s help and the hint of a bad LINKCTL_SANDBOX_PLAN. */
export const PLAN_NOTES = 'basic lacks targeting, expiry, parameters, pixels, deep links, aliases and redirect types, which are dropped silently as real servers do; no-api lacks the API itself, so every API request is refused with HTTP 403 as 7.7 does';
/**
 * How the sandbox serves QR images (`sandbox serve --qr-images`, LINKCTL_SANDBOX_QR_IMAGES): `svg`
 * as the product 7.7 does (the default, so that linkctl is tested on what real servers send), or
 * `png`, the sandbox's older form.
 */
export const QR_IMAGES = ['png', 'svg'] as const;
export type QrImages = (typeof QR_IMAGES)[number];
export const DEFAULT_QR_IMAGES: QrImages = 'svg';
/** What the kinds are, for `--qr-images`'s help and the hint of a bad value. */
export const QR_IMAGES_NOTES = 'svg as the product 7.7 serves them (transparent, no quiet zone; the code\'s link answers the image once, then a 302 to the stored file) or png, a plain PNG on white with a quiet zone';
