/**
 * `linkctl completion <shell>`: the script for a shell, generated from the program tree. Loaded
 * only when that command runs.
 */
import type { Command } from 'commander';
import { bash } from './bash.js';
import { fish } from './fish.js';
import { describe } from './model.js';
import { powershell } from './powershell.js';
import type { Shell } from './shells.js';
import { zsh } from './zsh.js';

const GENERATORS = { bash, zsh, fish, powershell } satisfies Record<Shell, unknown>;

/** The completion script for `shell`, from the program (any command of the tree: its root is used). */
export function script(shell: Shell, command: Command): string {
  let root = command;
  while (root.parent) root = root.parent;
  return GENERATORS[shell](describe(root));
}
