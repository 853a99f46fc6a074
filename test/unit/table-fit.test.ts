/**
 * Table cells at 80 columns (issue 42): a cell is shortened only when there is no room, the same
 * way on every row. Names were cut (`Restaurant m…`) while a long image URL kept every character,
 * and stats show's notes were cut (`6 gaps; 2…`). Now URLs shrink before names (keeping their
 * scheme, host and the end of their path), and values a cut would make half-true (notes, counts,
 * dates, a sparkline) are never cut: such a column is left out whole, with a note.
 */
import { describe, expect, it } from 'vitest';
import { render, type OutputOptions } from '../../src/output/render.js';
import type { Column } from '../../src/output/types.js';

const options: OutputOptions = { format: 'table', tty: true, color: false, header: true, quiet: false, width: 80 } as OutputOptions;

async function table(columns: Column[], records: Array<Record<string, unknown>>): Promise<{ out: string; err: string }> {
  let out = '';
  let err = '';
  await render(
    { kind: 'list', columns, pages: (async function* () { yield records; })() },
    options,
    { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: (s: string) => ((err += s), true) } },
  );
  return { out, err };
}

describe('tables at 80 columns', () => {
  it('keeps names whole and shortens the image URL instead, the same way on every row', async () => {
    const columns: Column[] = [{ key: 'id', header: 'ID' }, { key: 'name', header: 'Name' }, { key: 'scans', header: 'Scans' }, { key: 'date', header: 'Created' }, { key: 'link', header: 'Image' }];
    const records = [
      { id: 3, name: 'Office wifi', scans: 0, date: '2025-01-15 12:00:00', link: 'http://127.0.0.1:33101/qr/1t3urdf' },
      { id: 1, name: 'Restaurant menu', scans: 128, date: '2025-01-10 12:00:00', link: 'http://127.0.0.1:33101/qr/1cc79v5' },
    ];
    const { out } = await table(columns, records);
    const lines = out.trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(out).toContain('Restaurant menu  ');
    expect(out).toContain('2025-01-10 12:00:00');
    // Scheme, host and the end of the path on every row, cut at the same place.
    expect(lines.slice(1).map((l) => /http:\/\/127\.0\.0\.1:33101…\S+$/.exec(l)?.[0])).toEqual(['http://127.0.0.1:33101…/1t3urdf', 'http://127.0.0.1:33101…/1cc79v5']);
  });

  it('never cuts a value a cut would make half-true (stats show\'s NOTES): shown whole, or left out with a note saying how to see it', async () => {
    const columns: Column[] = [{ key: 'label', header: 'SERIES' }, { key: 'clicks', header: 'CLICKS' }, { key: 'trend', header: 'PER DAY (last 30)' }, { key: 'last', header: 'LAST' }, { key: 'notes', header: 'NOTES' }];
    const records = [{ label: 'All links', clicks: 1234, trend: '▁▂▃▄▅▆▇█'.repeat(5), last: 57, notes: '6 gaps; 2 estimated' }];
    const { out, err } = await table(columns, records);
    for (const line of out.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(out).not.toMatch(/6 gaps; 2…|…/);
    expect(out).toContain('▁▂▃▄▅▆▇█'.repeat(5)); // the sparkline is not cut either
    expect(err).toBe('not shown at 80 columns: NOTES (--fields label,notes shows it)\n');
    const wide = await table(columns, [{ ...records[0]!, trend: '▁▂▃▄▅▆▇█' }]);
    expect(wide.out).toContain('6 gaps; 2 estimated');
  });
});
