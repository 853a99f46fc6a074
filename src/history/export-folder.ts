/**
 * Which folder `stats export` may write into. An export replaces its own day partitions and
 * removes those of days that have no rows any more, so it must never take a folder that holds
 * someone else's files for its own: it writes only into a new or empty folder, one an earlier
 * export marked, or one that holds nothing but what an export writes (an export from before the
 * mark); it marks the folder before writing. The writing itself is ./export.ts's.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

/** The file an export leaves at the top of its folder. */
export const EXPORT_MARK = '.linkctl-export';
/** The tables an export writes, one folder each (./export.ts's TABLES). */
const TABLE_FOLDERS = ['link_clicks', 'qr_scans', 'visits'];
/** The one file an export writes in a day partition. */
export const PART_FILE = /^part-0\.(parquet|csv)$/;

/** Whether `folder` holds only an export's tables, partitions and files (an export made before the mark). */
function onlyExportFiles(folder: string): boolean {
  return readdirSync(folder).every((table) => {
    if (!TABLE_FOLDERS.includes(table) || !lstatSync(join(folder, table)).isDirectory()) return false;
    return readdirSync(join(folder, table)).every((day) => {
      const path = join(folder, table, day);
      return /^day=\d{4}-\d{2}-\d{2}$/.test(day) && lstatSync(path).isDirectory() && readdirSync(path).every((f) => PART_FILE.test(f) && lstatSync(join(path, f)).isFile());
    });
  });
}

/** Refuses a folder an export must not write into, before anything is read; `flag` names it in messages. */
export function checkExportFolder(out: string, flag: string): void {
  if (!existsSync(out)) return;
  if (!lstatSync(out).isDirectory()) throw new UsageError(`${flag} ${out} is a file, not a folder`, 'give a folder (it is created when missing): e.g. --out warehouse/');
  const entries = readdirSync(out);
  if (entries.length === 0 || entries.includes(EXPORT_MARK) || onlyExportFiles(out)) return;
  const shown = entries.slice(0, 3).join(', ') + (entries.length > 3 ? ', ...' : '');
  throw new UsageError(
    `${flag} ${out} holds files no linkctl stats export wrote (${shown}); an export replaces and removes day partitions in its folder, so it writes only into a new or empty folder, or one an earlier export made; nothing was written`,
    'give a new folder, e.g. --out warehouse/linkctl/',
  );
}

/** Creates the folder if needed and marks it as an export's. */
export function markExportFolder(out: string): void {
  mkdirSync(out, { recursive: true });
  const mark = join(out, EXPORT_MARK);
  try {
    writeFileSync(mark, 'This folder is written by `linkctl stats export`: it replaces its day partitions here.\n', { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // marked already
  }
}
