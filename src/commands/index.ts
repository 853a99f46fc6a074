/** Every top-level command, in the order `--help` lists them. Definitions only: actions load lazily. */
import type { Command } from 'commander';
import type { Bind } from './shared/define.js';
import { register as auth } from './auth/index.js';
import { register as account } from './account/index.js';
import { register as qr } from './qr/index.js';
import { register as sandbox } from './sandbox/index.js';

export function registerCommands(program: Command, bind: Bind): void {
  for (const register of [auth, account, qr, sandbox]) register(program, bind);
}
