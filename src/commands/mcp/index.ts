/** `mcp`: linkctl as a Model Context Protocol server for AI agents. The server (and the SDK) load only when it runs. */
import type { Command } from 'commander';
import { pathOption, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { allowPrivateOption } from '../check/allow-private.js';

export function register(program: Command, bind: Bind): void {
  withExamples(
    program
      .command('mcp')
      .description('Serve linkctl\'s commands as MCP tools over stdio, for AI agents (read-only unless allowed)')
      .option('--allow-writes', 'also list the tools that create and change (add, update, assign)')
      .option('--allow-deletes', 'also list the tools that delete (needs --allow-writes); each delete still asks for confirm: true')
      .option('--allow-admin', "also list the installation's admin tools (users and plans: every user's email and plan), by the same read, write and delete rules; an admin's key only")
      .addOption(allowPrivateOption('the check tool may '))
      .option('--allow-override', "let write tools take `override: \"REASON\"` to pass the policy (needs --allow-writes); without it no agent can")
      .addOption(pathOption('--root <dir>', 'the folder whose files tools may read and write (qr_download, export, dataJson "@file", ...); default: none', 'dir'))
      .addHelpText(
        'after',
        wrapped([
          '',
          'One tool per command (qr_list, link_add, channel_assign, ...), with the command\'s own',
          'validation, dry runs (dryRun: true), confirmations (confirm: true), pacing and redaction.',
          'Global options such as --profile, --base-url and --sandbox apply to every call.',
          'Tools read and write local files only inside --root DIR (never the config folder), and none without it.',
          'Messages over 4 MiB get a JSON-RPC error (-32600), lines that are not JSON -32700; the server goes on.',
          'Configuration for Claude Desktop, Claude Code and Cursor: see the README and AGENTS.md.',
        ].join('\n')),
      )
      .action(bind(() => import('./actions.js'), 'serve')),
    ['linkctl mcp', 'linkctl mcp --profile work --allow-writes', 'linkctl --sandbox mcp --allow-writes --allow-deletes'],
  );
}
