/** Enumerations of QR codes, shared by the definitions (help, validation) and the completions. */
export const QR_TYPES = ['link', 'text', 'email', 'phone', 'sms', 'wifi', 'vcard'] as const;
export type QrType = (typeof QR_TYPES)[number];
export const WIFI_ENCRYPTIONS = ['WPA', 'WEP', 'nopass'] as const;
/** `qr download --format`: the formats linkctl writes itself. */
export const PRINT_FORMATS = ['png', 'svg'] as const;
/** The largest PNG side `qr download` draws: 4096 × 4096 is 64 MiB of pixels while it is made. */
export const MAX_PRINT_PIXELS = 4096;
