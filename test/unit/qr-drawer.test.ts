/**
 * The drawing process (src/qr/drawer.ts): one process draws a run's SVG images one after
 * another; a draw past its time limit or its pixel budget is refused and its process killed,
 * and the next draw gets a new process.
 */
import { describe, expect, it } from 'vitest';
import { DrawFailure, drawSvg } from '../../src/qr/drawer.js';
import { BLACK, WHITE, qrMatrix, qrSvg } from '../../src/qr/render.js';

/** Ten thousand translucent circles through four levels of <use>: resvg takes seconds (five levels: 23 s). */
function slowSvg(): string {
  const levels = ['<circle id="a0" cx="50" cy="50" r="45" fill="black" fill-opacity="0.01"/>'];
  for (let l = 1; l <= 4; l++) levels.push(`<g id="a${l}">${`<use href="#a${l - 1}"/>`.repeat(10)}</g>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100"><defs>${levels.join('')}</defs><use href="#a4"/></svg>`;
}

const code = qrSvg(qrMatrix('https://s.invalid/a', 'M'), { size: 300, margin: 4, foreground: BLACK, background: WHITE });
const BUDGET = 1000 * 1000 * 16;

describe('the drawing process', () => {
  it('draws several images in turn, each to its own size', async () => {
    const [a, b] = await Promise.all([drawSvg(code, 300, BUDGET), drawSvg(code, 500, BUDGET)]);
    expect([a.width, a.height, a.pixels.length]).toEqual([300, 300, 300 * 300 * 4]);
    expect([b.width, b.height, b.pixels.length]).toEqual([500, 500, 500 * 500 * 4]);
  });

  it('a draw past its time limit is refused, and the next one is drawn by a new process', async () => {
    const started = Date.now();
    const slow = drawSvg(slowSvg(), 300, BUDGET, 300);
    const after = drawSvg(code, 300, BUDGET); // queued behind it
    await expect(slow).rejects.toMatchObject({ reason: 'time', message: 'the SVG took more than 0.3 s to draw; refused' });
    expect(Date.now() - started).toBeLessThan(2000); // killed, not waited for (it takes seconds)
    expect((await after).width).toBe(300);
  });

  it('a draw of more pixels than its budget is refused', async () => {
    const error = await drawSvg(code, 1000, 100_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DrawFailure);
    expect((error as DrawFailure).reason).toBe('size');
    expect((await drawSvg(code, 300, BUDGET)).height).toBe(300);
  });

  it('an SVG that is not square-ish, or not an SVG, is the draw\'s own failure, and the process goes on', async () => {
    await expect(drawSvg('<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="10"/>', 300, BUDGET)).rejects.toMatchObject({ reason: 'failed', message: expect.stringMatching(/^not square: /) });
    await expect(drawSvg('not an svg', 300, BUDGET)).rejects.toMatchObject({ reason: 'failed' });
    expect((await drawSvg(code, 300, BUDGET)).width).toBe(300);
  });
});
