/** `check`: link health. Flags and help only; the work is in ./actions.ts, loaded when it runs. */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { dbOption, listsRecords, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { duration, positiveInt } from '../../validate.js';
import { BROKEN, FAIL_ON_NAMES, FINDING_HELP, FINDINGS, STATUS_HELP, STATUSES } from '../../check/statuses.js';

/** Polite by default; more than this many requests at a time is no longer a check but a load test. */
export const MAX_CONCURRENCY = 32;

/** `--fail-on broken,redirect-offsite`: names from FAIL_ON_NAMES, comma-separated. */
function failOn(raw: string): string[] {
  const names = raw.split(',').map((n) => n.trim().toLowerCase()).filter(Boolean);
  if (names.length === 0) throw new UsageError('--fail-on needs at least one name', `e.g. --fail-on broken; the names are ${FAIL_ON_NAMES.join(', ')}`);
  for (const name of names) {
    if (!FAIL_ON_NAMES.includes(name)) throw new UsageError(`--fail-on: unknown name "${name}"; allowed: ${FAIL_ON_NAMES.join(', ')}`, 'run `linkctl check --help` for what each name means');
  }
  return names;
}

function concurrency(raw: string): number {
  const n = positiveInt('--concurrency', raw);
  if (n > MAX_CONCURRENCY) throw new UsageError(`--concurrency must be at most ${MAX_CONCURRENCY}, got ${n}`, 'a link check should not load anyone\'s servers; the limit of 2 requests at a time per host holds whatever the value');
  return n;
}

const list = (help: Record<string, string>, names: readonly string[]) => names.map((n) => `  ${n.padEnd(19)}  ${help[n]}`);

export function register(program: Command, bind: Bind): void {
  withExamples(
    listsRecords(dbOption(program.command('check')))
      .description("Check every link's destination (and with --qr, what printed QR codes lead to): broken, redirected, insecure")
      .option('--qr', 'also check QR codes whose data is a URL (one image download a code, read locally)')
      .option('--details', "also read each link's details, one request a link, for its expiry and its geo and device targets (slow: paced by the API's rate limit)")
      .option('--expiring <duration>', 'with --details: report links expiring within this long, e.g. 14d, 2w (default 14d)', (v) => duration('--expiring', v, 'hdw'))
      .option('--concurrency <n>', `destinations checked at a time (default 8, at most ${MAX_CONCURRENCY}); never more than 2 at a time per host`, concurrency)
      .option('--deadline <duration>', 'stop the whole check after this long, e.g. 90s, 10m (default 10m); what was not checked by then is reported unchecked', (v) => duration('--deadline', v, 'smh'))
      .option('--fail-on <list>', 'exit 1 when a result matches one of these names, comma-separated (see below)', failOn)
      .option('--since-last', 'show only what changed since the previous check of this account: newly broken, fixed, changed')
      .addHelpText(
        'after',
        wrapped([
          '',
          'Each distinct destination is requested once, however many links use it: HEAD, then GET',
          '(body read up to 64 KiB, not kept) when HEAD is refused or fails; redirects are followed',
          'up to 10 and recorded. Requests carry a linkctl/<version> User-Agent and nothing else of',
          "yours: no API key, no cookie. HTTPS_PROXY/NO_PROXY apply as for the API. --timeout bounds",
          'each request. Only the destinations of the account are requested.',
          '',
          'Statuses (one per destination):',
          ...list(STATUS_HELP, STATUSES),
          `  broken (in --fail-on)  any of ${BROKEN.join(', ')}`,
          '',
          'Findings about a link (no request to its destination):',
          ...list(FINDING_HELP, FINDINGS),
          '',
          'The account is read once: who it is, the link list, the domain and campaign lists (and with',
          '--qr the QR list plus each code\'s image): about 4 requests for up to 1,000 links. --details',
          'adds one request a link. Each run is kept in the click-history database (--db, the one',
          '`linkctl stats` uses), the last 30 of each account, for --since-last.',
          'Exit codes: 0, or 1 when a result matches --fail-on (with --since-last: a change matches).',
        ].join('\n')),
      )
      .action(bind(() => import('./actions.js'), 'check')),
    [
      'linkctl check',
      'linkctl check --qr',
      'linkctl check --fail-on broken,redirect-offsite --json > health.json',
      'linkctl check --since-last',
      'linkctl check --since-last --db postgres://linkctl@db.example.com/marketing',
      'linkctl check --details --expiring 30d --fail-on expiring,broken',
      'linkctl check -o csv --deadline 5m --concurrency 4 > health.csv',
    ],
  );
}
