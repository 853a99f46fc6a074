/**
 * `linkctl check`: reads the account once, runs the account checks, checks each distinct
 * destination once (src/check/probe.ts), stores the run in the click-history database
 * (src/check/store.ts) and returns one record per link destination (and per QR code with --qr):
 * as data (--json, -o), as the terminal view (src/check/view.ts), or with -q as the short URLs
 * of what is broken.
 */
import { SANDBOX_OWN_ORIGINS, sandboxPagesAt } from '../../sandbox/own-origin.js';
import type { Context } from '../../context.js';
import { AGENT_ALLOW_HINT, allowanceOf, type Allowance } from '../../config/allow-private.js';
import { CliError, ExitCode, InterruptedError, UsageError } from '../../errors.js';
import type { Column, Rec, Result } from '../../output/types.js';
import { safeText } from '../../output/safe-text.js';
import { VERSION } from '../../version.js';
import type { ActionInput } from '../shared/define.js';
import { addDetails, findDuplicates, findMissingCampaigns, findUnknownDomains, linkOf, readOptionalList, requestKey, type CheckedLink, type LinkFinding } from '../../check/account.js';
import type { AccountReader } from '../../model/reader.js';
import { Prober, type Hop, type Probe } from '../../check/probe.js';
import type { AllowPrivate } from '../../http/networks.js';
import { BROKEN, FLAGS, STATUSES, STATUS_ORDER, type Status } from '../../check/statuses.js';
import type { CheckStore } from '../../check/store.js';
import type { Change, CheckRecord } from '../../check/record.js';
import { destinationsWhere, isProblem, PLAIN, renderView, type Paint } from '../../check/view.js';
import { readAccount } from '../../history/read.js';

const DEFAULT_CONCURRENCY = 8;
const PER_HOST = 2;
const DEFAULT_DEADLINE_MS = 10 * 60_000;
const DEFAULT_EXPIRING_MS = 14 * 86_400_000;
const GC_EVERY = 250;

/** The options of a run, parsed: nothing is sent before this passes. */
export interface CheckRequest {
  qr: boolean;
  details: boolean;
  expiringMs: number;
  concurrency: number;
  deadlineMs: number;
  failOn: string[];
  sinceLast: boolean;
  problemsOnly: boolean;
  all: boolean;
  /** Private addresses this run may request, and where that was said; undefined: none. */
  allowPrivate?: Allowance;
}

export function parse(opts: Record<string, unknown>, ctx: Pick<Context, 'env' | 'settings' | 'io'>): CheckRequest {
  if (opts.expiring !== undefined && !opts.details) {
    throw new UsageError('--expiring needs --details: expiry dates are read one request a link', 'add --details (slow on big accounts: paced by the API\'s rate limit)');
  }
  return {
    qr: Boolean(opts.qr),
    details: Boolean(opts.details),
    expiringMs: (opts.expiring as number | undefined) ?? DEFAULT_EXPIRING_MS,
    concurrency: (opts.concurrency as number | undefined) ?? DEFAULT_CONCURRENCY,
    deadlineMs: (opts.deadline as number | undefined) ?? DEFAULT_DEADLINE_MS,
    failOn: (opts.failOn as string[] | undefined) ?? [],
    sinceLast: Boolean(opts.sinceLast),
    problemsOnly: Boolean(opts.problemsOnly),
    all: Boolean(opts.all),
    allowPrivate: allowPrivateOf(opts.allowPrivate as AllowPrivate | true | undefined, ctx),
  };
}

/**
 * Which private addresses the run may request: the user's allowance (allow-private.ts). A tool
 * call of `linkctl mcp` gets only what the server was started with, never its own.
 */
function allowPrivateOf(flag: AllowPrivate | true | undefined, ctx: Pick<Context, 'env' | 'settings' | 'io'>): CheckRequest['allowPrivate'] {
  if (ctx.io.agent) return ctx.io.checkAllowPrivate;
  return allowanceOf(flag, ctx);
}

const chainText = (chain: Hop[]) => chain.map((h) => `${h.code ?? '-'} ${h.url}`).join(' -> ');
const findingsText = (findings: LinkFinding[]) => findings.map((f) => `${f.kind}: ${f.detail}`).join('; ');

/** Every field, in order: what csv and tsv print (json and ndjson print the records whole). */
const COLUMNS: Column[] = [
  { key: 'link' },
  { key: 'qr' },
  { key: 'alias' },
  { key: 'shorturl' },
  { key: 'target' },
  { key: 'destination' },
  { key: 'status' },
  { key: 'flags', show: (r) => (r.flags as string[]).join(' ') },
  { key: 'code' },
  { key: 'chain', show: (r) => chainText(r.chain as Hop[]) },
  { key: 'error' },
  { key: 'findings', show: (r) => findingsText(r.findings as LinkFinding[]) },
  { key: 'checkedAt' },
  { key: 'change', optional: true },
  { key: 'previous', optional: true },
];

/** A record before its destination is checked. */
type Subject = Pick<CheckRecord, 'link' | 'qr' | 'alias' | 'shorturl' | 'target' | 'destination' | 'findings'> & { unread?: string };

/** The record of a subject, its fields always in this order. */
function recordOf(s: Subject, probe: Probe | undefined): CheckRecord {
  return {
    link: s.link, qr: s.qr, alias: s.alias, shorturl: s.shorturl, target: s.target, destination: s.destination,
    status: probe?.status ?? 'unchecked', flags: probe?.flags ?? [], code: probe?.code ?? null, chain: probe?.chain ?? [], error: probe?.error ?? s.unread ?? null,
    findings: s.findings, checkedAt: probe?.checkedAt ?? new Date().toISOString(),
  };
}

const subjectOf = (r: Pick<CheckRecord, 'link' | 'qr' | 'target'>) => (r.qr !== null ? `qr:${r.qr}` : `link:${r.link}${r.target ? ` ${r.target}` : ''}`);

/** Whether a record matches `--fail-on`: its status, a flag or a finding (`broken`: any broken status). */
function matches(record: CheckRecord, names: Set<string>): boolean {
  if (names.has(record.status) || (names.has('broken') && BROKEN.includes(record.status))) return true;
  return record.flags.some((f) => names.has(f)) || record.findings.some((f) => names.has(f.kind));
}

/** `--since-last`: the records whose status moved since the previous run of this account, each saying how. */
function changesSince(records: CheckRecord[], previous: Map<string, { status: Status }> | undefined): CheckRecord[] {
  const out: CheckRecord[] = [];
  for (const record of records) {
    if (record.status === 'unchecked') continue; // unknown now: neither broken nor fixed
    const before = previous?.get(subjectOf(record))?.status;
    const nowBroken = BROKEN.includes(record.status);
    const wasBroken = before !== undefined && BROKEN.includes(before);
    // A status this linkctl no longer gives (`insecure`, a flag now) says whether it was broken, not which outcome it was.
    const comparable = before !== undefined && before !== 'unchecked' && STATUSES.includes(before);
    let change: Change | undefined;
    if (nowBroken && !wasBroken) change = 'newly-broken';
    else if (wasBroken && !nowBroken) change = 'fixed';
    else if (comparable && before !== record.status) change = 'changed';
    if (change) out.push({ ...record, change, previous: before ?? null });
  }
  return out;
}

export async function check(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const request = parse(opts, ctx);
  ctx.checkOutput(COLUMNS);
  const started = Date.now();
  // The history first: a database that cannot be used is said before anything is sent, not after a long check.
  const { CheckStore } = await import('../../check/store.js');
  const store = await CheckStore.open(ctx, opts.db);
  try {
    return await run(ctx, request, store, started);
  } finally {
    // A database that went away while the check ran fails to close too: the results are printed all the same.
    await store.close().catch(() => undefined);
  }
}

/** What went wrong with the database, in one line that names it. */
function databaseFailure(error: unknown, where: string): string {
  const cause = (error instanceof CliError ? error.message : `${(error as Error)?.message ?? String(error)}`).replace(/\s+/g, ' ').trim();
  return cause.includes(where) ? cause : `${where}: ${cause}`;
}

async function run(ctx: Context, request: CheckRequest, store: CheckStore, started: number): Promise<Result> {
  const reader = await ctx.reader();
  const { client } = reader;
  const warn = (line: string) => ctx.warn(line);
  // Whose runs these are (one request): the history keeps them per server and account, as it keeps snapshots.
  const source = await readAccount(ctx);

  // Everything the run reads of the account, each list once (the run's reader).
  const links: CheckedLink[] = (await reader.all('links')).map(linkOf);
  const domains = await readOptionalList(reader, 'domains', warn, 'domain');
  if (domains) findUnknownDomains(links, domains, client.base);
  const campaigns = links.some((l) => l.campaign !== null) ? await readOptionalList(reader, 'campaigns', warn, 'campaign') : [];
  if (campaigns) findMissingCampaigns(links, campaigns);
  findDuplicates(links);
  if (request.details) {
    await addDetails(reader, links, request.expiringMs, Date.now(), (done) => ctx.status(`reading link details ${done}/${links.length}`), warn);
  }
  const qrs = request.qr ? await readQrCodes(ctx, reader) : [];

  // What to check: each link's destination and targets, each QR code that holds a URL.
  const subjects: Subject[] = [];
  for (const link of links) {
    const of = { link: link.id, qr: null, alias: link.alias, shorturl: link.shorturl };
    subjects.push({ ...of, target: null, destination: link.destination, findings: link.findings });
    for (const t of link.targets) subjects.push({ ...of, target: t.target, destination: t.url, findings: [] });
  }
  for (const q of qrs) {
    if ('text' in q) continue; // not a URL: nothing to check
    const of = { link: null, qr: q.id, alias: null, shorturl: q.link, target: null };
    if ('url' in q) subjects.push({ ...of, destination: q.url, findings: [] });
    else subjects.push({ ...of, destination: '', findings: [{ kind: 'qr-unreadable', detail: q.unreadable }], unread: 'the code could not be read' });
  }
  // Each distinct destination once, however many links use it.
  const urls = new Map<string, string>();
  for (const s of subjects) if (s.destination && !urls.has(requestKey(s.destination))) urls.set(requestKey(s.destination), s.destination);
  const probes = await checkDestinations(ctx, [...urls.values()], request, started);
  const records = subjects.map((s) => recordOf(s, s.destination ? probes.get(requestKey(s.destination)) : undefined));

  // Stored for the next --since-last, compared with the previous run first. A database that
  // fails now (full disk, server gone) loses no result: they are printed, and it is said.
  let notStored: string | undefined;
  let shown: CheckRecord[] = records;
  if (request.sinceLast) {
    let previous: Awaited<ReturnType<CheckStore['previousRun']>>;
    try {
      previous = await store.previousRun(source);
      if (!previous) warn(`no earlier check of this account in ${store.where}: every broken destination is new`);
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      warn(`linkctl: the previous check could not be read (${databaseFailure(error, store.where)}); every broken destination is shown as new`);
    }
    shown = changesSince(records, previous?.results);
  }
  try {
    await store.saveRun(
      source,
      { startedAt: new Date(started).toISOString(), finishedAt: new Date().toISOString(), profile: ctx.settings().profile.value, options: { qr: request.qr, details: request.details, expiringMs: request.expiringMs } },
      records.map((r) => ({ ...r, subject: subjectOf(r) })),
    );
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    notStored = `linkctl: the results of this check were not stored (${databaseFailure(error, store.where)}); they are printed, not kept, and the next --since-last compares with an earlier check`;
    warn(notStored);
  }

  const names = new Set(request.failOn);
  const matched = shown.filter((r) => matches(r, names)).length;
  // An agent gets the results with the note (a tool error would carry the message alone).
  const exitCode = notStored && !ctx.io.agent ? ExitCode.config : matched > 0 ? 1 : 0;
  const headline = summaryLine(records, urls.size, links.length, request.qr ? qrs.length : undefined, started);
  const tail = `${request.sinceLast ? `; ${shown.length} change${shown.length === 1 ? '' : 's'} since the previous check` : ''}${names.size ? `; --fail-on matched ${matched}` : ''}`;
  const blockedNote = privateNote(ctx, records, request);
  // The sandbox's seeded links lead to its own pages (sandbox/own-origin.ts): say why loopback was requested, when it was.
  const own = ctx.sandboxOrigin;
  if (own && records.some((r) => r.chain.some((hop) => hop.url.startsWith(`${own}/`)))) ctx.warn(`the sandbox's own address ${new URL(own).host} is allowed (no other private address)`);

  if (ctx.globals.quiet) {
    // The short URLs of what is broken (or matches --fail-on), one a line, each once: for xargs, a mail, a chat.
    const wanted = shown.filter((r) => (names.size ? matches(r, names) : BROKEN.includes(r.status)));
    const lines = [...new Set(wanted.map((r) => r.shorturl ?? r.destination).filter(Boolean))];
    return { kind: 'text', text: lines.map((l) => `${safeText(l)}\n`).join(''), exitCode };
  }
  const view = ctx.format === 'table' && Boolean(ctx.io.stdout.isTTY) && !ctx.globals.fields?.length;
  if (view) {
    const options = ctx.outputOptions();
    const text = renderView({
      records, shown, all: request.all, sinceLast: request.sinceLast, failOn: names,
      headline: `${headline[0]!.toUpperCase()}${headline.slice(1)}${tail}.`, notes: blockedNote ? [blockedNote] : [], width: options.width, paint: options.color ? await painter() : PLAIN,
    });
    return { kind: 'text', text, exitCode };
  }
  warn(`${headline}${tail}`);
  if (blockedNote) warn(blockedNote);
  const listed = request.problemsOnly ? shown.filter((r) => isProblem(r, names)) : shown;
  return {
    kind: 'list',
    columns: COLUMNS.map((c) => (request.sinceLast && c.optional ? { ...c, optional: false } : c)),
    pages: (async function* () {
      yield listed as unknown as Rec[];
    })(),
    exitCode,
  };
}

/** `checked 21 destinations of 22 links in 4.1 s: 2 client-error, 19 ok; flags: 3 insecure; 2 findings`. */
function summaryLine(records: CheckRecord[], destinations: number, links: number, qrs: number | undefined, started: number): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  // Statuses and flags belong to destinations: counted as destinations, as the headline counts them.
  const counts = (names: readonly string[], of: (r: CheckRecord) => readonly string[]) =>
    names.map((name) => [name, destinationsWhere(records, (r) => of(r).includes(name))] as const).filter(([, n]) => n > 0).map(([name, n]) => `${n} ${name}`);
  const statuses = counts(STATUS_ORDER, (r) => [r.status]);
  const flags = counts(FLAGS, (r) => r.flags);
  const findings = records.reduce((n, r) => n + r.findings.length, 0);
  return `checked ${plural(destinations, 'destination')} of ${plural(links, 'link')}${qrs !== undefined ? ` and ${plural(qrs, 'QR code')}` : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s` +
    `${statuses.length ? `: ${statuses.join(', ')}` : ''}${flags.length ? `; flags: ${flags.join(', ')}` : ''}${findings ? `; ${plural(findings, 'finding')}` : ''}`;
}

/** What a person needs to know about blocked destinations, and about private addresses this run allowed. */
function privateNote(ctx: Context, records: CheckRecord[], request: CheckRequest): string | undefined {
  const blocked = destinationsWhere(records, (r) => r.status === 'blocked');
  if (request.allowPrivate) return `private addresses allowed by ${request.allowPrivate.from}: ${request.allowPrivate.allow === 'all' ? 'all' : request.allowPrivate.allow.map((n) => n.text).join(', ')}`;
  if (!blocked) return undefined;
  const what = `${blocked} destination${blocked === 1 ? '' : 's'} blocked: a private, loopback or link-local address was not requested`;
  return ctx.io.agent ? `${what}: ${AGENT_ALLOW_HINT}` : `${what}; --allow-private [networks] checks them`;
}

async function painter(): Promise<Paint> {
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  const tones = { bad: chalk.red.bold, warn: chalk.yellow, good: chalk.green };
  return { bold: (s) => chalk.bold(s), dim: (s) => chalk.dim(s), status: (s, tone) => tones[tone](s) };
}

async function readQrCodes(ctx: Context, reader: AccountReader) {
  const { readQrData } = await import('../../check/qr.js');
  const list = await reader.all('qr');
  return readQrData(reader.client, list, (done) => ctx.progress(`reading QR code images ${done}/${list.length}`));
}

/** Each URL once, within the limits and the deadline; progress on a terminal. */
async function checkDestinations(ctx: Context, urls: string[], request: CheckRequest, started: number): Promise<Map<string, Probe>> {
  const controller = new AbortController();
  let deadlinePassed = false;
  const timer = setTimeout(() => {
    deadlinePassed = true;
    controller.abort();
  }, Math.max(0, started + request.deadlineMs - Date.now()));
  const onInterrupt = () => controller.abort();
  ctx.io.signal?.addEventListener('abort', onInterrupt, { once: true });
  const prober = new Prober({
    env: ctx.env,
    timeoutMs: ctx.globals.timeout * 1000,
    userAgent: `linkctl/${VERSION}`,
    signal: controller.signal,
    deadline: () => deadlinePassed,
    concurrency: request.concurrency,
    perHost: PER_HOST,
    allowPrivate: request.allowPrivate?.allow,
    allowOrigin: ctx.sandboxOrigin,
    aliasOrigin: ctx.sandboxOrigin ? { from: SANDBOX_OWN_ORIGINS, to: sandboxPagesAt(ctx.sandboxOrigin) } : undefined,
    trace: ctx.globals.debug ? (line) => ctx.warn(`[debug] ${line}`) : undefined,
  });
  // Each request leaves garbage (sockets' buffers, parsed headers) that V8 lets pile up in the old
  // generation while requests wait on slow servers: a young generation kept small and a full
  // collection every GC_EVERY destinations keep the peak flat (measured over 1,000: 142 -> 115 MB).
  const memory = urls.length > GC_EVERY ? await import('../../memory.js') : undefined;
  memory?.keepMemoryFlat();
  const probes = new Map<string, Probe>();
  let broken = 0;
  const progress = () => ctx.progress(`checking destinations ${probes.size}/${urls.length}${broken ? `, ${broken} broken` : ''}`);
  try {
    if (urls.length) progress();
    await prober.checkAll(urls, (url, probe) => {
      probes.set(requestKey(url), probe);
      if (BROKEN.includes(probe.status)) broken++;
      if (probes.size % GC_EVERY === 0) memory?.collectGarbage();
      progress();
    });
  } finally {
    clearTimeout(timer);
    ctx.io.signal?.removeEventListener('abort', onInterrupt);
    await prober.close();
  }
  return probes;
}
