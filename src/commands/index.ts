/** Every top-level command, in the order `--help` lists them. Definitions only: actions load lazily. */
import type { Command } from 'commander';
import type { Bind } from './shared/define.js';
import { register as auth } from './auth/index.js';
import { register as account } from './account/index.js';
import { register as qr } from './qr/index.js';
import { register as link } from './link/index.js';
import { register as domain } from './domain/index.js';
import { register as campaign } from './campaign/index.js';
import { register as channel } from './channel/index.js';
import { register as pixel } from './pixel/index.js';
import { register as overlay } from './overlay/index.js';
import { register as splash } from './splash/index.js';
import { register as api } from './api/index.js';
import { register as ascode } from './ascode/index.js';
import { register as importer } from './import/index.js';
import { register as check } from './check/index.js';
import { register as log } from './log/index.js';
import { register as lint } from './lint/index.js';
import { register as completion } from './completion/index.js';
import { register as stats } from './stats/index.js';
import { register as sandbox } from './sandbox/index.js';
import { register as mcp } from './mcp/index.js';
import { register as listen } from './listen/index.js';
import { register as admin } from './admin/index.js';

export function registerCommands(program: Command, bind: Bind): void {
  for (const register of [auth, account, qr, link, domain, campaign, channel, pixel, overlay, splash, ascode, importer, stats, listen, check, lint, log, admin, api, completion, sandbox, mcp]) register(program, bind);
}
