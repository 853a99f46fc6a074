// `link qr`: QR codes of short URLs made locally, read back as a phone would (jsQR).
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { runCli, runMain, tempDir, useSandbox } from '../helpers.js';
import { decodePng } from '../qr-decode.js';
import { qrPng, terminalToMatrix, WHITE, BLACK } from '../../src/qr/render.js';

const fx = useSandbox();

/** The terminal drawing as a PNG, 6 px a module (what a phone camera sees on the screen). */
const screenshot = (text: string) => decodePng(qrPng(terminalToMatrix(text), { scale: 6, margin: 0, foreground: BLACK, background: WHITE }));

describe('link qr', () => {
  it('draws the short URL of a link on the terminal in half blocks, with a quiet zone, readable by a phone', async () => {
    const r = await runCli(['link', 'qr', '1'], { env: fx.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^[█▀▄ \n]+$/);
    const lines = r.stdout.replace(/\n$/, '').split('\n');
    expect(lines[0]).toMatch(/^█+$/); // quiet zone: the first two module rows are light
    expect(new Set(lines.map((l) => [...l].length)).size).toBe(1);
    expect(screenshot(r.stdout)).toBe(`${fx.sandbox.url}/docs`);
  });

  it('names the link asked for when the server does not know it', async () => {
    const r = await runCli(['link', 'qr', '999'], { env: fx.env });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('linkctl: link 999: Link does not exist.\n');
    expect(r.stdout).toBe('');
  });

  it('encodes --short URL without asking the server', async () => {
    const r = await runCli(['link', 'qr', '--short', 'https://go.sandbox.localhost/menu', '--ecc', 'H'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(screenshot(r.stdout)).toBe('https://go.sandbox.localhost/menu');
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('writes a print-ready PNG of the asked size and colours that decodes to the short URL', async () => {
    const dir = tempDir();
    const file = join(dir, 'menu.png');
    const r = await runCli(['link', 'qr', '2', '--file', file, '--size', '600', '--margin', '4', '--foreground', '#102030', '--background', 'rgb(250,250,240)'], { env: fx.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Saved .*menu\.png \(PNG, \d+x\d+ px, error correction M\): http:\/\/127\.0\.0\.1:\d+\/spring-sale\n$/);
    const bytes = readFileSync(file);
    expect(decodePng(bytes)).toBe(`${fx.sandbox.url}/spring-sale`);
    const png = PNG.sync.read(bytes);
    expect(png.width).toBeLessThanOrEqual(600);
    expect(png.width).toBeGreaterThan(500);
    expect([...png.data.subarray(0, 3)]).toEqual([250, 250, 240]);
    expect(readdirSync(dir)).toEqual(['menu.png']); // no temporary file left
  });

  it('writes an SVG with the given size and colours', async () => {
    const file = join(tempDir(), 'menu.svg');
    const r = await runCli(['link', 'qr', '--short', 'https://go.sandbox.localhost/menu', '--file', file, '--size', '300', '--json'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ file, format: 'svg', url: 'https://go.sandbox.localhost/menu', ecc: 'M', size: 300, margin: 4 });
    const svg = readFileSync(file, 'utf8');
    expect(svg).toMatch(/<svg [^>]*width="300" height="300"/);
    expect(svg).toContain('fill="#000000"');
  });

  it.each([
    [['link', 'qr', '1', '--ecc', 'X'], /--ecc must be one of L, M, Q, H/],
    [['link', 'qr', '1', '--foreground', 'blue', '--file', 'x.png'], /--foreground must be #RRGGBB or rgb\(r,g,b\)/],
    [['link', 'qr', '1', '--file', 'x.gif'], /--file must end in \.png or \.svg/],
    [['link', 'qr', '1', '--size', '400'], /--size apply to image files/],
    [['link', 'qr', '1', '--margin', '-1'], /--margin must be a whole number/],
    [['link', 'qr'], /give a link \(id, alias or short URL\) or --short URL/],
  ])('refuses %j with exit 2, sending nothing', async (args, message) => {
    const r = await runMain(args, { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(fx.sandbox.requests).toHaveLength(0);
    expect(existsSync('x.png')).toBe(false);
  });

  it('refuses a --size too small for the code (known once the URL is read) with exit 2, writing nothing', async () => {
    const dir = tempDir();
    const r = await runMain(['link', 'qr', '1', '--file', join(dir, 'x.png'), '--size', '20'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--size 20 is too small for this code: it needs at least \d+ pixels/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
