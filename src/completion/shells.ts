/** The shells `linkctl completion` writes scripts for. No imports: the command definition loads it at start-up. */
export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];
