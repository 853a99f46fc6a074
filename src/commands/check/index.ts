/** `check`: link health. Flags and help only; the work is in ./actions.ts, loaded when it runs. */
import { Option, type Command } from 'commander';
import { UsageError } from '../../errors.js';
import { dbOption, forAgents, listsRecords, optionsForAgents, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { duration, positiveInt } from '../../validate.js';
import { BROKEN, FAIL_ON_NAMES, FINDING_HELP, FINDINGS, FLAG_HELP, FLAGS, HEALTHY, STATUS_HELP, STATUSES } from '../../check/statuses.js';
import { allowPrivateOption } from './allow-private.js';

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

/**
 * `--fail-on`: its values are the one list of names (FAIL_ON_NAMES), kept on the option as its
 * choices so that completion offers them; the parser takes a comma-separated list of them.
 */
function failOnOption(): Option {
  return new Option('--fail-on <list>', 'exit 1 when a result matches one of these, comma-separated: a status, flag or finding (below), or broken').choices(FAIL_ON_NAMES).argParser(failOn);
}

function concurrency(raw: string): number {
  const n = positiveInt('--concurrency', raw);
  if (n > MAX_CONCURRENCY) throw new UsageError(`--concurrency must be at most ${MAX_CONCURRENCY}, got ${n}`, 'a link check should not load anyone\'s servers; the limit of 2 requests at a time to one address holds whatever the value');
  return n;
}

const list = (help: Record<string, string>, names: readonly string[]) => names.map((n) => `  ${n.padEnd(19)}  ${help[n]}`);

/**
 * The check tool's notes for an agent (src/mcp/tools.ts): what a record says, from the same lists
 * as the help, in a few lines; the help's terminal view, -q, --fail-on and exit codes are a
 * person's (the agent reads each record's status), and private addresses are never requested.
 */
const AGENT_NOTES = [
  'A record per link (and QR code); each destination requested once, without the key; private addresses blocked.',
  `status: ${HEALTHY.join(', ')} (healthy); ${BROKEN.join(', ')} (broken); ${STATUSES.filter((s) => !HEALTHY.includes(s) && !BROKEN.includes(s)).join(', ')}. flags: ${FLAGS.join(', ')}. findings: ${FINDINGS.join(', ')}.`,
].join('\n\n');

export function register(program: Command, bind: Bind): void {
  withExamples(
    optionsForAgents(forAgents(listsRecords(dbOption(program.command('check'))), AGENT_NOTES)
      .description("Check every link's destination (and with --qr, what printed QR codes lead to): broken, redirected, insecure")
      .option('--qr', 'also check QR codes whose data is a URL (one image download a code, read locally)')
      .option('--details', "also read each link's details, one request a link, for its expiry and its geo and device targets (slow: paced by the API's rate limit)")
      .option('--expiring <duration>', 'with --details: report links expiring within this long, e.g. 14d, 2w (default 14d)', (v) => duration('--expiring', v, 'hdw'))
      .option('--concurrency <n>', `destinations checked at a time (default 8, at most ${MAX_CONCURRENCY}); never more than 2 at a time to one address`, concurrency)
      .option('--deadline <duration>', 'stop the whole check after this long, e.g. 90s, 10m (default 10m); what was not checked by then is reported unchecked', (v) => duration('--deadline', v, 'smh'))
      .addOption(failOnOption())
      .option('--since-last', 'show only what changed since the previous check of this account: newly broken, fixed, changed')
      .option('--problems-only', 'leave out healthy destinations (ok or redirect, with no finding and no flag --fail-on names) in every format')
      .option('--all', 'on a terminal, list healthy destinations too (they are only counted otherwise)')
      .addOption(allowPrivateOption())
      .addHelpText(
        'after',
        wrapped([
          '',
          'Each distinct destination is requested once, however many links use it: HEAD, then GET',
          '(its first bytes, up to 64 KiB, not kept), whose answer decides; redirects are followed',
          'up to 10 and recorded. Requests carry a linkctl/<version> User-Agent and nothing else of',
          "yours: no API key, no cookie. HTTPS_PROXY/NO_PROXY apply as for the API. --timeout bounds",
          'each request. Only the destinations of the account are requested.',
          '',
          'Private networks: before each request (each redirect too) the host\'s addresses are',
          'resolved; loopback, private (RFC 1918), link-local, unique-local, CGNAT, metadata and',
          'other special addresses are not requested (status blocked) unless --allow-private allows',
          'them, and the connection goes to the address that was checked. Never through linkctl mcp.',
          '',
          'Statuses (one per destination):',
          ...list(STATUS_HELP, STATUSES),
          `  broken (in --fail-on)  any of ${BROKEN.join(', ')}`,
          '',
          'Flags (what else is true of a destination, whatever its status):',
          ...list(FLAG_HELP, FLAGS),
          '',
          'Findings about a link (no request to its destination):',
          ...list(FINDING_HELP, FINDINGS),
          '',
          'The account is read once: who it is, the link list, the domain and campaign lists (and with',
          '--qr the QR list plus each code\'s image): about 4 requests for up to 1,000 links. --details',
          'adds one request a link. Each run is kept in the click-history database (--db, the one',
          '`linkctl stats` uses), the last 30 of each account, for --since-last.',
          'On a terminal: a summary by status, then the problems, worst first (--all: everything).',
          '-q prints the short URLs of what is broken (or matches --fail-on), one a line.',
          'Exit codes: 0, or 1 when a result matches --fail-on (with --since-last: a change matches);',
          '7 when the run could not be stored (the results are printed all the same).',
        ].join('\n')),
      )
      .action(bind(() => import('./actions.js'), 'check')), {
      '--details': 'also read each link\'s details (a request each): expiry, targets',
      '--expiring': 'with details: expiring within this long (default 14d)',
      '--concurrency': `destinations at a time (default 8, at most ${MAX_CONCURRENCY})`,
      '--deadline': 'stop after this long (default 10m); the rest is unchecked',
      '--since-last': 'only what changed since the previous check',
      '--problems-only': 'leave out healthy destinations',
    }),
    [
      'linkctl check',
      'linkctl check --qr',
      'linkctl check --fail-on broken,insecure --json > health.json',
      'linkctl check -q --fail-on broken',
      'linkctl check --allow-private 10.0.0.0/8',
      'linkctl check --since-last',
      'linkctl check --since-last --db postgres://linkctl@db.example.com/marketing',
      'linkctl check --details --expiring 30d --fail-on expiring,broken',
      'linkctl check -o csv --deadline 5m --concurrency 4 > health.csv',
    ],
  );
}
