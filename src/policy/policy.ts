/**
 * The policy file (`--policy FILE`, LINKCTL_POLICY, or the profile's `policy`): rules every write
 * must keep (checked before anything is sent, src/policy/enforce.ts) and the severities of
 * `linkctl lint`'s findings. YAML, documented by schema/policy.schema.json (from ./schema.ts);
 * checked here by hand so that each mistake names the file and line.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { UsageError } from '../errors.js';
import { backtrackingRisk } from './regex-risk.js';

/** The rules a write must keep. Each is optional; a scope's rules replace the top level's, key by key. */
export interface WriteRules {
  'require-params'?: string[];
  'forbid-insecure'?: boolean;
  'alias-pattern'?: string;
  'allowed-hosts'?: string[];
}
export const WRITE_RULES = ['require-params', 'forbid-insecure', 'alias-pattern', 'allowed-hosts'] as const;

import { LINT_RULES, LINT_RULE_NAMES, SEVERITIES, type LintRule, type Severity } from './rules.js';
export { LINT_RULES, LINT_RULE_NAMES, SEVERITIES, type LintRule, type Severity };

export interface LintSetting {
  severity: Severity | 'off';
  days?: number;
}

export interface Scope {
  campaign?: string;
  domain?: string;
  rules: WriteRules;
}

export interface Policy {
  /** The file, as messages name it. */
  file: string;
  rules: WriteRules;
  scopes: Scope[];
  lint: Partial<Record<LintRule, LintSetting>>;
}

type At = (node: Node | null | undefined) => string;

/** Reads and checks a policy file's text; a mistake is exit 2 naming `name:line:column`. */
export function parsePolicy(text: string, name: string): Policy {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const where = (offset = 0) => {
    const { line, col } = lines.linePos(offset);
    return `${name}:${line}:${col}`;
  };
  const at: At = (node) => where(node?.range?.[0] ?? 0);
  const fail = (place: string, message: string): never => {
    throw new UsageError(`policy ${place}: ${message}`, 'see the format in schema/policy.schema.json and docs/governance.md');
  };
  if (doc.errors.length) fail(where(doc.errors[0]!.pos[0]), `not valid YAML: ${doc.errors[0]!.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`);
  const root = doc.contents;
  if (!isMap(root)) fail(at(root), 'the file must be a mapping with `version: 1` and `rules:`');
  const policy: Policy = { file: name, rules: {}, scopes: [], lint: {} };
  let version = false;
  for (const pair of (root as import('yaml').YAMLMap).items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const value = pair.value as Node | null;
    if (key === 'version') {
      if (!isScalar(value) || value.value !== 1) fail(at(value ?? (pair.key as Node)), '`version` must be 1');
      version = true;
    } else if (key === 'rules') policy.rules = writeRules(value, at, fail);
    else if (key === 'scopes') {
      if (!isSeq(value)) fail(at(value ?? (pair.key as Node)), '`scopes` must be a list of `{campaign: NAME, rules: {...}}` or `{domain: HOST, rules: {...}}`');
      for (const item of (value as import('yaml').YAMLSeq).items as Node[]) {
        if (!isMap(item)) fail(at(item), 'each scope must be a mapping with `campaign` or `domain`, and `rules`');
        const scope: Scope = { rules: {} };
        for (const p of (item as import('yaml').YAMLMap).items) {
          const k = isScalar(p.key) ? String(p.key.value) : '';
          const v = p.value as Node | null;
          if (k === 'campaign' || k === 'domain') {
            if (!isScalar(v) || typeof v.value !== 'string' || !v.value) fail(at(v ?? (p.key as Node)), `\`${k}\` must be a non-empty string`);
            scope[k] = String((v as import('yaml').Scalar).value);
          } else if (k === 'rules') scope.rules = writeRules(v, at, fail);
          else fail(at(p.key as Node), `unknown key \`${k}\` in a scope (allowed: campaign, domain, rules)`);
        }
        if (!scope.campaign === !scope.domain) fail(at(item), 'a scope names exactly one of `campaign` or `domain`');
        policy.scopes.push(scope);
      }
    } else if (key === 'lint') {
      if (!isMap(value)) fail(at(value ?? (pair.key as Node)), `\`lint\` must be a mapping of rule names (${LINT_RULE_NAMES.join(', ')}) to off, error, warning or info`);
      for (const p of (value as import('yaml').YAMLMap).items) {
        const rule = isScalar(p.key) ? String(p.key.value) : '';
        if (!(rule in LINT_RULES)) fail(at(p.key as Node), `unknown lint rule \`${rule}\` (known: ${LINT_RULE_NAMES.join(', ')})`);
        policy.lint[rule as LintRule] = lintSetting(rule as LintRule, p.value as Node | null, at, fail);
      }
    } else if (key !== '$schema') fail(at(pair.key as Node), `unknown key \`${key}\` (allowed: version, rules, scopes, lint)`);
  }
  if (!version) fail(at(root), 'the file must say `version: 1`');
  return policy;
}

function writeRules(node: Node | null, at: At, fail: (place: string, message: string) => never): WriteRules {
  if (!isMap(node)) return fail(at(node), `\`rules\` must be a mapping of ${WRITE_RULES.join(', ')}`);
  const rules: WriteRules = {};
  const strings = (v: Node | null, rule: string): string[] => {
    if (!isSeq(v) || !v.items.every((i) => isScalar(i) && typeof i.value === 'string' && i.value !== '')) fail(at(v), `\`${rule}\` must be a list of non-empty strings`);
    return (v as import('yaml').YAMLSeq<import('yaml').Scalar<string>>).items.map((i) => i.value);
  };
  for (const pair of node.items) {
    const rule = isScalar(pair.key) ? String(pair.key.value) : '';
    const v = pair.value as Node | null;
    if (rule === 'require-params') rules[rule] = strings(v, rule);
    else if (rule === 'allowed-hosts') {
      rules[rule] = strings(v, rule);
      for (const host of rules[rule]!) if (!/^(\*\.)?[a-z0-9.-]+$/i.test(host) && host !== '*') fail(at(v), `\`allowed-hosts\`: "${host}" is not a host name or \`*.\` and a host name`);
    } else if (rule === 'forbid-insecure') {
      if (!isScalar(v) || typeof v.value !== 'boolean') fail(at(v), '`forbid-insecure` must be true or false');
      rules[rule] = (v as import('yaml').Scalar<boolean>).value;
    } else if (rule === 'alias-pattern') {
      if (!isScalar(v) || typeof v.value !== 'string') fail(at(v), '`alias-pattern` must be a regular expression in quotes, e.g. "^[a-z0-9-]+$"');
      try {
        new RegExp(String((v as import('yaml').Scalar).value), 'u');
      } catch (error) {
        fail(at(v), `\`alias-pattern\` is not a regular expression: ${(error as Error).message}`);
      }
      // JavaScript cannot stop a match once started: a pattern that can backtrack without limit is refused here, wherever the policy is loaded.
      const risk = backtrackingRisk(String((v as import('yaml').Scalar).value));
      if (risk) fail(at(v), `\`alias-pattern\` is refused: ${risk}; write it without a repeated group whose turns can be split more than one way, e.g. "^[a-z0-9]+(-[a-z0-9]+)*$" rather than "^([a-z0-9]+-?)+$"`);
      rules[rule] = String((v as import('yaml').Scalar).value);
    } else fail(at(pair.key as Node), `unknown rule \`${rule}\` (known: ${WRITE_RULES.join(', ')})`);
  }
  return rules;
}

function lintSetting(rule: LintRule, node: Node | null, at: At, fail: (place: string, message: string) => never): LintSetting {
  const severity = (v: Node | null): LintSetting['severity'] => {
    const s = isScalar(v) ? (v.value === false ? 'off' : v.value) : undefined;
    if (typeof s !== 'string' || !['off', ...SEVERITIES].includes(s)) fail(at(v), `\`${rule}\` must be off, error, warning or info${'days' in LINT_RULES[rule] ? ', or {severity, days}' : ''}`);
    return s as LintSetting['severity'];
  };
  if (!isMap(node)) return { severity: severity(node) };
  const setting: LintSetting = { severity: LINT_RULES[rule].severity };
  for (const p of node.items) {
    const k = isScalar(p.key) ? String(p.key.value) : '';
    const v = p.value as Node | null;
    if (k === 'severity') setting.severity = severity(v);
    else if (k === 'days' && 'days' in LINT_RULES[rule]) {
      if (!isScalar(v) || !Number.isInteger(v.value) || (v.value as number) < 1 || (v.value as number) > 36_500) fail(at(v), `\`${rule}.days\` must be a whole number of days from 1 to 36500`);
      setting.days = (v as import('yaml').Scalar<number>).value;
    } else fail(at(p.key as Node), `unknown key \`${k}\` for \`${rule}\` (allowed: severity${'days' in LINT_RULES[rule] ? ', days' : ''})`);
  }
  return setting;
}

// ---------------------------------------------------------------- checking a write

/** What a write would make a link (or a link-type QR code) hold: only what it sets. */
export interface Subject {
  /** The destination. */
  url?: string;
  /** The other destinations it carries (targets, deep links), each held to the same rules as `url`. */
  targets?: ReadonlyArray<{ where: string; url: string }>;
  alias?: string;
  /** The short domain (a host or URL), if the write names one. */
  domain?: string;
  /** The campaign, by name or id, if the write names one. */
  campaign?: string | number;
}

export interface Violation {
  rule: (typeof WRITE_RULES)[number];
  /** The value at fault. */
  value: string;
  message: string;
  fix: string;
}

const hostOf = (value: string) => {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`).hostname.toLowerCase();
  } catch {
    return value.toLowerCase();
  }
};

/** The rules that hold for a subject: the top level's, then each scope it is in (campaign, domain), key by key. */
export function rulesFor(policy: Policy, subject: Subject, campaignNames: (campaign: string | number) => string[] = (c) => [String(c)]): WriteRules {
  let rules = { ...policy.rules };
  for (const scope of policy.scopes) {
    const inCampaign = scope.campaign !== undefined && subject.campaign !== undefined && campaignNames(subject.campaign).some((n) => n.toLowerCase() === scope.campaign!.toLowerCase());
    const inDomain = scope.domain !== undefined && subject.domain !== undefined && hostOf(subject.domain) === hostOf(scope.domain);
    if (inCampaign || inDomain) rules = { ...rules, ...scope.rules };
  }
  return rules;
}

/** A host matches `example.com` exactly, `*.example.com` as any host under it, `*` any host. */
export function hostAllowed(host: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => p === '*' || (p.startsWith('*.') ? host.endsWith(p.slice(1).toLowerCase()) : host === p.toLowerCase()));
}

/** What a write would break of these rules; nothing when it keeps them. */
export function violations(rules: WriteRules, subject: Subject): Violation[] {
  const found: Violation[] = [];
  const { alias } = subject;
  const destinations = [...(subject.url !== undefined ? [{ where: '', url: subject.url }] : []), ...(subject.targets ?? [])];
  for (const { where, url } of destinations) {
    const the = where ? `the ${where}'s destination` : 'the destination';
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (rules['forbid-insecure'] && /^http:\/\//i.test(url)) {
      found.push({ rule: 'forbid-insecure', value: url, message: `${the} ${url} is plain http://`, fix: 'use https://' });
    }
    const required = rules['require-params'] ?? [];
    const missing = required.filter((p) => !parsed || !parsed.searchParams.get(p));
    if (missing.length) {
      found.push({ rule: 'require-params', value: url, message: `${the} ${url} lacks ${missing.join(', ')}`, fix: `add ${missing.map((p) => `${p}=...`).join('&')} to its query` });
    }
    const hosts = rules['allowed-hosts'];
    if (hosts && (!parsed || !hostAllowed(parsed.hostname.toLowerCase(), hosts))) {
      found.push({ rule: 'allowed-hosts', value: url, message: `${where ? `the ${where}'s destination host` : "the destination's host"} ${parsed?.hostname ?? url} is not one of ${hosts.join(', ')}`, fix: 'point the link at an allowed host' });
    }
  }
  const pattern = rules['alias-pattern'];
  if (alias !== undefined && alias !== '' && pattern !== undefined && !new RegExp(pattern, 'u').test(alias)) {
    found.push({ rule: 'alias-pattern', value: alias, message: `the alias "${alias}" does not match ${pattern}`, fix: `choose an alias matching ${pattern}` });
  }
  return found;
}
