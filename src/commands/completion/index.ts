/**
 * `completion`: prints a shell's completion script, generated from the command tree (the
 * generator in src/completion/ loads only when this runs). The hidden `__complete` command is
 * what the scripts call at TAB time for profile names; bin/linkctl.js answers it through a
 * small entry without loading the CLI, and this definition answers it otherwise.
 */
import type { Command } from 'commander';
import { enumArgument, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { SHELLS, type Shell } from '../../completion/shells.js';

export function register(program: Command, bind: Bind): void {
  withExamples(
    program
      .command('completion')
      .description('Print the completion script for a shell (commands, flags, values, profile names)')
      .addArgument(enumArgument('<shell>', 'the shell to write the script for', SHELLS))
      .action(async (shell: Shell, _opts: unknown, command: Command) => {
        const { script } = await import('../../completion/index.js');
        const text = script(shell, command);
        const { json, output } = command.optsWithGlobals() as { json?: boolean; output?: string };
        // Printed through commander's output, which main() points at its stdout; --json wraps it, as every command's --json is JSON.
        command.configureOutput().writeOut!(json || output === 'json' ? `${JSON.stringify({ shell, script: text })}\n` : text);
      })
      .addHelpText(
        'after',
        wrapped('\nPut the line for your shell in its start-up file: ~/.bashrc, ~/.zshrc (after compinit), or $PROFILE for PowerShell. fish loads the file it writes by itself.'),
      ),
    [
      'source <(linkctl completion bash)',
      'source <(linkctl completion zsh)',
      'linkctl completion fish > ~/.config/fish/completions/linkctl.fish',
      // PowerShell continues lines with a backtick, not ` \`: this one must never wrap (under 60 columns).
      'linkctl completion powershell | Out-String | iex',
    ],
  );

  program
    .command('__complete', { hidden: true })
    .description('answers the completion scripts at TAB time (profiles: the profile names)')
    .argument('<what>')
    .action(bind(() => import('../../completion/complete.js'), 'completeAction'));
}
