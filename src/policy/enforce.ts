/**
 * The policy in force for a run, and its check before a write is sent. Every path that writes a
 * link's destination or alias calls `enforcePolicy` before its first request: `link add`/`update`
 * (and so their `--from` rows and the MCP tools, which run the same actions), `qr add`/`update` of
 * a link-type code, and `plan`/`apply` (per change, see src/ascode/actions.ts). A violation is
 * exit 2 naming the rule and the value; `--override "REASON"` lets a person through (the reason
 * is `ctx.override`, which the ledger records with each write). MCP passes `--override` only when
 * the user started `linkctl mcp --allow-override`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { CONFIG_FILE_NAME, configDir } from '../config/paths.js';
import { readConfig } from '../config/store.js';
import { activeProfile } from '../config/settings.js';
import { isAbsolute, join } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
// policy.ts (and the YAML parser it loads, 157 KB) is loaded only when a policy file is set: every
// write asks for the policy, and most runs have none
import type { Policy, Subject, Violation } from './policy.js';
import { targetsOfBody } from '../model/links.js';

/** Where the policy came from, as messages say it. */
function policyPath(ctx: Context): { path: string; from: string } | undefined {
  if (ctx.globals.policy) return { path: ctx.globals.policy, from: '--policy' };
  if (ctx.env.LINKCTL_POLICY) return { path: ctx.env.LINKCTL_POLICY, from: 'LINKCTL_POLICY' };
  return profilePolicy(ctx);
}

function profilePolicy(ctx: Context): { path: string; from: string } | undefined {
  // The profile's `policy` (set by hand in the config file); a relative path is relative to the config folder.
  // A run without a config file (flags and environment only) has no profile policy.
  if (!existsSync(join(configDir(ctx.env), CONFIG_FILE_NAME))) return undefined;
  const config = readConfig(ctx.env).data;
  const name = activeProfile(ctx.globals, ctx.env, config).value;
  const path = config.profiles[name]?.policy;
  if (!path) return undefined;
  return { path: isAbsolute(path) ? path : join(configDir(ctx.env), path), from: `the \`policy\` of profile "${name}"` };
}

/** The policy of this run (undefined when none is set), read once: a missing or bad file is exit 2 naming it. */
export async function loadPolicy(ctx: Context): Promise<Policy | undefined> {
  const cache = ctx.policyRead;
  if (cache.read) return cache.policy;
  const found = policyPath(ctx);
  let policy: Policy | undefined;
  if (found) {
    let text: string;
    try {
      text = readFileSync(found.path, 'utf8');
    } catch (error) {
      throw new UsageError(`${found.from}: cannot read the policy file ${found.path} (${(error as NodeJS.ErrnoException).code ?? 'error'}); nothing was sent`, 'give the path of a policy YAML file (see docs/governance.md), or leave the policy out');
    }
    policy = (await import('./policy.js')).parsePolicy(text, found.path);
  }
  cache.policy = policy;
  cache.read = true;
  return policy;
}

/**
 * A link body (of a create or an update, with the API's names) as the policy
 * sees it: its destination, alias, domain, campaign (id or name) and every other destination it
 * carries (targets, deep links).
 */
export function linkSubject(body: Record<string, unknown>): Subject {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const campaign = str(body.campaign) ?? (typeof body.campaign === 'number' ? body.campaign : undefined);
  return { url: str(body.url), alias: str(body.custom), domain: str(body.domain), campaign, targets: targetsOfBody(body) };
}

/** Whether the policy of this run has rules scoped to a campaign: only then does moving a link into one need its destinations read. */
export async function scopesCampaigns(ctx: Context): Promise<boolean> {
  return Boolean((await loadPolicy(ctx))?.scopes.some((s) => s.campaign !== undefined));
}

/** One write as the policy sees it: what it is (`link add`, `link spring`) and what it sets. */
export interface Checked {
  what: string;
  subject: Subject;
}

/** The violations of each write, by its index; empty when there is no policy. */
export async function policyViolations(ctx: Context, writes: readonly Checked[]): Promise<Violation[][]> {
  const policy = await loadPolicy(ctx);
  if (!policy) return writes.map(() => []);
  const { rulesFor, violations } = await import('./policy.js');
  const names = await campaignNamer(ctx, policy, writes);
  return writes.map((w) => violations(rulesFor(policy, w.subject, names), w.subject));
}

/**
 * Refuses writes that break the policy, before anything is sent (exit 2 naming rule and value),
 * unless `--override "REASON"` was given: then each violation is said on stderr, with the reason.
 */
export async function enforcePolicy(ctx: Context, writes: readonly Checked[]): Promise<void> {
  const found = await policyViolations(ctx, writes);
  const lines = writes.flatMap((w, i) => found[i]!.map((v) => `${w.what}: policy rule ${v.rule}: ${v.message}`));
  if (!lines.length) return;
  const policy = (await loadPolicy(ctx))!;
  if (ctx.override !== undefined) {
    for (const line of lines) ctx.warn(`note: overridden (${JSON.stringify(ctx.override)}): ${line}`);
    return;
  }
  const fixes = [...new Set(writes.flatMap((_, i) => found[i]!.map((v) => v.fix)))];
  throw new UsageError(
    `${lines.slice(0, 10).join('\n  ')}${lines.length > 10 ? `\n  ... and ${lines.length - 10} more` : ''}\n(policy ${policy.file}); nothing was sent`,
    `${fixes.slice(0, 3).join('; ')}; or, if a person decided so, pass --override "REASON" (the reason is recorded)`,
  );
}

/** Campaign ids to names, read only when a scope names a campaign and a write gives one by id. */
async function campaignNamer(ctx: Context, policy: Policy, writes: readonly Checked[]): Promise<(c: string | number) => string[]> {
  const byId = new Map<string, string>();
  const needed = policy.scopes.some((s) => s.campaign !== undefined) && writes.some((w) => w.subject.campaign !== undefined && /^\d+$/.test(String(w.subject.campaign)));
  if (needed) {
    for (const c of await (await ctx.reader()).all('campaigns')) if (c.id !== undefined && typeof c.name === 'string') byId.set(String(c.id), c.name);
  }
  return (c) => [String(c), ...(byId.has(String(c)) ? [byId.get(String(c))!] : [])];
}
