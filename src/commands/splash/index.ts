/** `splash`: custom splash pages, read only (they are made in the web interface). The work is in ./actions.ts. */
import type { Command } from 'commander';
import { listCommand, type Bind } from '../shared/define.js';

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const splash = program
    .command('splash')
    .description('List custom splash pages (read only; a splash page is used by a short link whose type is its id)');
  listCommand(splash, bind, load, 'custom splash pages', ['linkctl splash list -q']);
}
