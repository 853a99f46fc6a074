/**
 * Secrets in an account file, given as references to the environment (`${env:NAME}`): what file.ts
 * reads, engine.ts compares and actions.ts writes. Apart from them, so that none imports another
 * for it.
 */

/** A reference as a file gives it: `${env:WIFI_PASSWORD_OFFICE}`. */
export const envReference = (name: string) => `\${env:${name}}`;

/**
 * QR data objects whose wifi `pass` was given as `${env:NAME}`, with NAME: plan and apply never
 * compare it (the file holds no password) and show the reference, never a password.
 */
export const passFromEnv = new WeakMap<object, string>();
