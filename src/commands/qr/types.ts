/** Enumerations of QR codes, shared by the definitions (help, validation) and the completions. */
export const QR_TYPES = ['link', 'text', 'email', 'phone', 'sms', 'wifi', 'vcard'] as const;
export type QrType = (typeof QR_TYPES)[number];
export const WIFI_ENCRYPTIONS = ['WPA', 'WEP', 'nopass'] as const;
