/** `api`: not written yet. */
import type { Command } from 'commander';
import type { Bind } from '../shared/define.js';

export function register(_program: Command, _bind: Bind): void {}
