/**
 * `linkctl lint`'s rules and severities: names the command's help and completion list at
 * start-up (src/commands/lint/index.ts), kept apart from the policy file's reader (policy.ts),
 * which brings the YAML library: every command registers its flags at start-up, and none should
 * load a YAML parser for that.
 */
export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** `linkctl lint`'s rules, with their severity unless the policy says otherwise, and their window in days where they have one. */
export const LINT_RULES = {
  'insecure-destination': { severity: 'error', what: 'a destination on plain http://' },
  broken: { severity: 'error', what: "a link whose last health check (`linkctl check`) found it broken" },
  'duplicate-destination': { severity: 'warning', what: 'two or more links with the same destination' },
  'lookalike-alias': { severity: 'warning', what: 'aliases one confusable character or one edit apart' },
  'utm-spelling': { severity: 'warning', what: 'a UTM parameter (or its value) written more than one way across the account' },
  expiring: { severity: 'warning', what: 'a link expiring within the window', days: 30 },
  stale: { severity: 'info', what: 'a link with no clicks in the window, from the click history', days: 90 },
} as const satisfies Record<string, { severity: Severity; what: string; days?: number }>;
export type LintRule = keyof typeof LINT_RULES;
export const LINT_RULE_NAMES = Object.keys(LINT_RULES) as LintRule[];

