/** `linkctl lint`: reads the account (or a file) and the history database, reports findings worst first. Sends no change. */
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import type { ActionInput } from '../shared/define.js';
import type { Rec, Result } from '../../output/types.js';
import { safeText } from '../../output/safe-text.js';
import { loadPolicy } from '../../policy/enforce.js';
import { now } from '../../history/time.js';
import { lint as findProblems, setting, type ClickHistory, type Finding, type LastCheck, type LintLink } from '../../policy/lint.js';
import type { Policy, WriteRules } from '../../policy/policy.js';

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

export async function lint(ctx: Context, { opts }: ActionInput): Promise<Result> {
  // The policy first: a bad one is exit 2 before any request.
  let policy = await loadPolicy(ctx);
  // --expiring-days and --stale-days win over the policy's windows.
  for (const [flag, rule] of [['expiringDays', 'expiring'], ['staleDays', 'stale']] as const) {
    if (opts[flag] === undefined) continue;
    policy ??= { file: '(none)', rules: {}, scopes: [], lint: {} };
    policy = { ...policy, lint: { ...policy.lint, [rule]: { ...setting(policy, rule), days: opts[flag] as number } } };
  }
  const notes: string[] = [];
  let links: LintLink[];
  let history: ClickHistory | undefined;
  let check: LastCheck | undefined;
  if (opts.file !== undefined) {
    links = await fileLinks(ctx, String(opts.file));
    notes.push('a file has no click history or health checks: stale and broken are not judged');
  } else {
    links = await accountLinks(ctx, policy);
    ({ history, check } = await fromDatabase(ctx, policy, opts.db as string | undefined, notes));
  }
  const findings = findProblems({ links, policy, history, check, now: now(ctx.env) });
  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  const summary = findings.length
    ? `${findings.length} finding${findings.length === 1 ? '' : 's'} in ${links.length} link${links.length === 1 ? '' : 's'}: ${Object.entries(counts).filter(([, n]) => n).map(([s, n]) => `${n} ${s}${n === 1 ? '' : 's'}`).join(', ')}`
    : `No findings in ${links.length} link${links.length === 1 ? '' : 's'}.`;
  for (const note of notes) ctx.warn(`note: ${note}`);
  const exitCode = findings.length ? ExitCode.api : ExitCode.ok;
  const json = {
    findings,
    summary: { links: links.length, ...counts },
    history: history ? { database: history.where, snapshots: history.snapshots, first: history.first, newest: history.newest } : null,
    lastCheck: check ? { database: check.where, finishedAt: check.finishedAt } : null,
    notes,
  };
  if (ctx.format === 'json') return { kind: 'raw', json, exitCode };
  if (ctx.format !== 'table') return { kind: 'list', pages: (async function* () { yield findings as unknown as Rec[]; })(), columns: COLUMNS, exitCode };
  // 80 columns off a terminal (a CI log, a file), the terminal's width on one.
  const width = Math.max(60, Math.min(ctx.io.stdout.columns || 80, 120));
  return { kind: 'text', text: `${[...findings.map((f) => block(f, width)), summary].join('\n')}\n`, exitCode };
}

const COLUMNS = [
  { key: 'severity', header: 'Severity' },
  { key: 'rule', header: 'Rule' },
  { key: 'record', header: 'Record' },
  { key: 'message', header: 'Finding' },
  { key: 'fix', header: 'Fix' },
];

/** One finding in the text view: `error  rule  record`, then what and the fix, wrapped under it. */
function block(f: Finding, width: number): string {
  const head = `${f.severity.toUpperCase().padEnd(7)} ${f.rule}: ${safeText(f.record)}`;
  return [...wrap(head, width, '        '), ...wrap(safeText(f.message), width, '        ', '        '), ...wrap(`fix: ${safeText(f.fix)}`, width, '        ', '        ')].join('\n');
}

/** Words to lines of at most `width` (a word longer than a line is cut). */
function wrap(text: string, width: number, indent: string, first = ''): string[] {
  const lines: string[] = [];
  let line = first;
  for (const word of text.split(' ')) {
    const start = line.trim() === '' ? line : `${line} `;
    if (start.length + word.length <= width || line.trim() === '') {
      line = start + word;
      while (line.length > width) {
        lines.push(line.slice(0, width));
        line = indent + line.slice(width);
      }
    } else {
      lines.push(line);
      line = indent + word;
    }
  }
  lines.push(line);
  return lines;
}

/** An account file's links, as `apply` reads it. */
async function fileLinks(ctx: Context, name: string): Promise<LintLink[]> {
  const { readUserFile } = await import('../../files/access.js');
  const { readAccountFile } = await import('../../ascode/file.js');
  const text = name === '-' ? await ctx.readStdin() : readUserFile(ctx, name, '-f');
  const { file } = readAccountFile(text, name === '-' ? '<stdin>' : name, {});
  const targets = await targetsOf();
  return (file.links ?? []).map((r) => ({ alias: str(r.alias), domain: str(r.domain), url: str(r.url), expiry: str(r.expiry), campaign: str(r.campaign), targets: targets(r) }));
}

/** A file-shaped link record's other destinations (targets, deep links), read as apply would send them. */
async function targetsOf(): Promise<(record: Rec) => Array<{ where: string; url: string }>> {
  const [{ linkBody }, { targetsOfBody }] = await Promise.all([import('../../ascode/apply.js'), import('../../model/links.js')]);
  // Names stand for ids: only the destinations are wanted.
  const byName = (_kind: unknown, name: string) => name as unknown as number;
  return (record) => {
    try {
      return targetsOfBody(linkBody(record, byName));
    } catch {
      return []; // a record the file's checks refuse elsewhere
    }
  };
}

/** The account's links through the run's reader; each link's own read (its expiry) only when the expiring rule is on. */
async function accountLinks(ctx: Context, policy: Policy | undefined): Promise<LintLink[]> {
  const { readState, addDetails } = await import('../../ascode/engine.js');
  const reader = await ctx.reader();
  ctx.status('reading the links');
  const state = await readState(reader, ['links']);
  // Each link's own read gives its expiry and its geo and device targets (destinations the rules judge too).
  const judgesDestinations = (r: WriteRules) => Boolean(r['forbid-insecure'] || r['require-params']?.length || r['allowed-hosts']);
  const destinationRules = Boolean(policy && (judgesDestinations(policy.rules) || policy.scopes.some((s) => judgesDestinations(s.rules))));
  if (setting(policy, 'expiring').severity !== 'off' || setting(policy, 'insecure-destination').severity !== 'off' || destinationRules) {
    await addDetails(reader, state.links, (what) => ctx.status(`reading: ${what}`));
  }
  const targets = await targetsOf();
  return state.links.map((c) => ({ id: c.id, alias: str(c.record.alias), domain: str(c.record.domain), url: str(c.record.url), expiry: str(c.record.expiry), campaign: str(c.record.campaign), targets: targets(c.record) }));
}

/**
 * What the history database knows: when each link's clicks last changed, and the last check's
 * broken links. No database (or none of this account) is a note, not a failure: those rules are
 * then not judged, and the note says so.
 */
async function fromDatabase(ctx: Context, policy: Policy | undefined, db: string | undefined, notes: string[]): Promise<{ history?: ClickHistory; check?: LastCheck }> {
  const wanted = (['stale', 'broken'] as const).filter((r) => setting(policy, r).severity !== 'off');
  if (!wanted.length) return {};
  const { openHistory, NoHistoryError } = await import('../../history/store.js');
  let store: Awaited<ReturnType<typeof openHistory>>;
  try {
    store = await openHistory(ctx, { db, create: false });
  } catch (error) {
    if (!(error instanceof NoHistoryError)) throw error;
    notes.push(`${error.message}: ${wanted.join(' and ')} not judged (\`linkctl stats snapshot\` and \`linkctl check\` record what they need)`);
    return {};
  }
  try {
    const { readAccount } = await import('../../history/read.js');
    const source = await readAccount(ctx);
    const where = store.db.where;
    return await store.db.read(async () => {
      const [src] = await store.db.all('SELECT id FROM sources WHERE base_url = ? AND account = ?', [source.baseUrl, source.account]);
      if (!src) {
        notes.push(`${where} has no history of this account: ${wanted.join(' and ')} not judged`);
        return {};
      }
      const out: { history?: ClickHistory; check?: LastCheck } = {};
      if (wanted.includes('stale')) {
        const [span] = await store.db.all('SELECT MIN(taken_at), MAX(taken_at), COUNT(*) FROM snapshots WHERE source_id = ?', [src[0]]);
        if (span && Number(span[2]) > 0) {
          const rows = await store.db.all(
            `SELECT i.remote_id, MAX(s.taken_at) FROM items i JOIN counts c ON c.item_id = i.id JOIN snapshots s ON s.id = c.snapshot_id
             WHERE i.source_id = ? AND i.kind = 'link' AND i.remote_id IS NOT NULL GROUP BY i.remote_id`,
            [src[0]],
          );
          out.history = { lastChange: new Map(rows.map(([id, at]) => [Number(id), String(at)])), first: String(span[0]), newest: String(span[1]), snapshots: Number(span[2]), where };
          const days = setting(policy, 'stale').days!;
          if (Date.parse(String(span[0])) > now(ctx.env) - days * 86_400_000) notes.push(`the click history (${where}) goes back only to ${String(span[0]).slice(0, 10)}, less than the stale rule's ${days} days: stale not judged`);
        } else notes.push(`${where} has no snapshots of this account: stale not judged`);
      }
      if (wanted.includes('broken')) {
        const [run] = await store.db.all('SELECT id, finished_at FROM check_runs WHERE source_id = ? ORDER BY id DESC LIMIT 1', [src[0]]);
        if (run) {
          const { BROKEN } = await import('../../check/statuses.js');
          const rows = await store.db.all('SELECT link, status, destination, error FROM check_results WHERE run_id = ? AND link IS NOT NULL ORDER BY seq', [run[0]]);
          const broken = new Map<number, { status: string; destination: string; error?: string }>();
          for (const [link, status, destination, error] of rows) if ((BROKEN as readonly string[]).includes(String(status)) && !broken.has(Number(link))) broken.set(Number(link), { status: String(status), destination: String(destination), error: str(error) });
          out.check = { finishedAt: String(run[1]), broken, where };
        } else notes.push(`${where} has no health check of this account: broken not judged (\`linkctl check\` records one)`);
      }
      return out;
    });
  } finally {
    await store.close();
  }
}
