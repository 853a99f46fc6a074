/**
 * How the QR decoder was chosen (README, Install): jsQR against zxing-wasm on styled codes like
 * the product's, made by linkctl's own generator (src/qr/styled.ts): 7 types × 3 module shapes ×
 * 4 eye shapes × 5 looks (plain, centre logo, gradient, colours, logo with gradient), 1000×1000
 * SVG without quiet zone, drawn by resvg at several widths, as drawn and on a quiet zone.
 * No target: it prints the rates and times. scripts/bench.mjs bundles and runs it
 * (`npm run bench -- --only qr-decoders`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as jsqrModule from 'jsqr';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';
import { contentText } from '../../src/qr/content.js';
import { styledSvg, type Style } from '../../src/qr/styled.js';
import { svgPixels, type Pixels } from '../../src/qr/image.js';

const require = createRequire(import.meta.url);
type Decode = typeof import('jsqr').default;
const m = jsqrModule as unknown as { default: Decode | { default: Decode } };
const jsQR: Decode = typeof m.default === 'function' ? m.default : m.default.default;
const wasm = readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm'));
await prepareZXingModule({ overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer }, fireImmediately: true });

const TEXTS = [
  'https://go.example.localhost/2314c2', 'Hello world, this is a text code', contentText('email', { email: 'ada@example.com', subject: 'Hi', body: 'See you' }),
  'tel:+15551234567', 'SMSTO:+15551234:Hello there', contentText('wifi', { ssid: 'Office;1', pass: 's3cr:et', encryption: 'WPA' }),
  contentText('vcard', { fname: 'Ada', lname: 'Lovelace', org: 'Engines', phone: '+15551234', email: 'ada@example.com', site: 'https://example.com' }),
];
const C = (r: number, g: number, b: number) => ({ r, g, b });
const LOOKS: Array<[string, Partial<Style>]> = [
  ['plain', {}], ['logo', { logo: true }], ['gradient', { gradient: C(40, 90, 200), foreground: C(120, 20, 90) }],
  ['colours', { foreground: C(20, 60, 120), background: C(250, 240, 200) }], ['logo+gradient', { logo: true, gradient: C(0, 120, 60), foreground: C(0, 0, 0) }],
];
const BASE: Style = { modules: 'rounded', eyes: 'rounded', foreground: C(0, 0, 0), background: C(255, 255, 255), margin: 0, size: 1000 };
const WIDTHS = [300, 500, 1000];

function quietZone(p: Pixels, by: number): Pixels {
  const width = p.width + 2 * by;
  const data = new Uint8ClampedArray(width * (p.height + 2 * by) * 4).fill(255);
  for (let y = 0; y < p.height; y++) data.set(p.data.subarray(y * p.width * 4, (y + 1) * p.width * 4), ((y + by) * width + by) * 4);
  return { data, width, height: p.height + 2 * by };
}

const tally = new Map<string, { ok: number; n: number; ms: number }>();
const add = (key: string, ok: boolean, ms: number) => {
  const t = tally.get(key) ?? { ok: 0, n: 0, ms: 0 };
  tally.set(key, { ok: t.ok + (ok ? 1 : 0), n: t.n + 1, ms: t.ms + ms });
};
for (const modules of ['square', 'rounded', 'dots'] as const) {
  for (const eyes of ['square', 'rounded', 'circle', 'leaf'] as const) {
    for (const [, look] of LOOKS) {
      for (const text of TEXTS) {
        const svg = styledSvg(text, { ...BASE, modules, eyes, ...look });
        for (const width of WIDTHS) {
          let t = performance.now();
          const drawn = svgPixels(svg, width);
          add(`resvg draws ${width} px`, true, performance.now() - t);
          for (const [how, p] of [['as drawn', drawn], ['quiet zone', quietZone(drawn, Math.round(width / 10))]] as const) {
            t = performance.now();
            add(`jsQR ${width} px ${how}`, jsQR(p.data, p.width, p.height, { inversionAttempts: 'dontInvert' })?.data === text, performance.now() - t);
            t = performance.now();
            const [found] = await readBarcodes({ data: p.data, width: p.width, height: p.height, colorSpace: 'srgb' } as unknown as Parameters<typeof readBarcodes>[0], { formats: ['QRCode'], maxNumberOfSymbols: 1, tryHarder: true });
            add(`zxing-wasm ${width} px ${how}`, found?.text === text, performance.now() - t);
          }
        }
      }
    }
  }
}
for (const [key, t] of tally) console.log(`    ${key.padEnd(34)} ${String(t.ok).padStart(4)}/${t.n} read (${((100 * t.ok) / t.n).toFixed(1)}%)  ${(t.ms / t.n).toFixed(1)} ms each`);
