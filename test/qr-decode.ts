/** Reads QR codes back the way a phone would: jsQR on the pixels of a PNG. */
import * as jsqrModule from 'jsqr';
import { PNG } from 'pngjs';

type Decode = typeof import('jsqr').default;
// jsqr is a CommonJS bundle: its function is the default export under one loader and .default.default under another
const m = jsqrModule as unknown as { default: Decode | { default: Decode } };
const jsQR: Decode = typeof m.default === 'function' ? m.default : m.default.default;

/** The text of the QR code in a PNG, undefined when none is found. */
export function decodePng(bytes: Buffer): string | undefined {
  const png = PNG.sync.read(bytes);
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}
