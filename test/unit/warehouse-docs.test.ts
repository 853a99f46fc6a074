/** docs/warehouse.md documents the export's tables: each of its schema tables is the program's (`TABLES`), column for column. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TABLES } from '../../src/history/export.js';

const doc = readFileSync(new URL('../../docs/warehouse.md', import.meta.url), 'utf8');

describe('docs/warehouse.md', () => {
  for (const [table, columns] of Object.entries(TABLES)) {
    it(`documents ${table} as the export writes it`, () => {
      const section = doc.split(/^### /m).find((s) => s.startsWith(`${table}:`));
      expect(section, `a "### ${table}:" section`).toBeDefined();
      const rows = section!.split('\n').filter((l) => /^\| [a-z_]+ \| [A-Z0-9]+ \|/.test(l)).map((l) => l.split('|').slice(1, 4).map((c) => c.trim()));
      expect(rows).toEqual(columns.map((c) => [c.name, c.type, c.about]));
    });
  }
});
