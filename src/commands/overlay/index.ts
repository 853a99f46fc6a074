/** `overlay`: CTA overlays, read only (they are made in the web interface). The work is in ./actions.ts. */
import type { Command } from 'commander';
import { listCommand, type Bind } from '../shared/define.js';

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const overlay = program
    .command('overlay')
    .description('List CTA overlays (read only; an overlay is used by a short link with type overlay-ID)');
  listCommand(overlay, bind, load, 'CTA overlays', ['linkctl overlay list --fields id,name']);
}
