/** `stats`: click history. Flags and help only; the work is in ./actions.ts and src/history/, loaded when a command runs. */
import type { Command } from 'commander';
import { concurrencyOption, dbOption, enumOption, forceOption, many, pathOption, optionsForAgents, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { nonEmpty, positiveInt } from '../../validate.js';
import { DIMENSIONS, EXPORT_FORMATS, GROUPS, PERIODS } from '../../history/kinds.js';

const text = (flag: string) => (v: string) => nonEmpty(flag, v).trim();

/** What a series is made of: links, campaigns, QR codes, or the most clicked links. */
function selection(command: Command): Command {
  return optionsForAgents(command
    .option('--link <id|alias>', 'a link, by id or alias (repeatable)', many(text('--link')))
    .option('--campaign <id|name>', 'the links of a campaign, by id or name (repeatable)', many(text('--campaign')))
    .option('--qr <id|name>', 'a QR code\'s scans, by id or name (repeatable)', many(text('--qr')))
    .option('--top <n>', 'also the N links with the most clicks in the window, each a series of its own', (v) => positiveInt('--top', v)), {
    '--link': 'links by id or alias',
    '--campaign': 'campaigns\' links, by id or name',
    '--qr': 'QR codes\' scans, by id or name',
    '--top': 'also the N most clicked links, a series each',
  });
}

function window(command: Command, since: string): Command {
  return command
    .option('--since <when>', `start of the window: a duration before now (48h, 30d, 12w) or a date (default ${since})`)
    .option('--until <when>', 'end of the window (default: now)')
    .option('--account <id|name>', 'the account, when the database holds several of this server');
}

/** The window's options as an agent reads them (the help's say more for a person). */
const WINDOW_FOR_AGENTS = { '--since': 'start: a duration (30d, 48h) or a date', '--until': 'end (default now)', '--account': 'if the database holds several' };

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const loadGroups = () => import('./groups.js');
  const loadExport = () => import('./export.js');
  const stats = program
    .command('stats')
    .description('Click history: snapshots of every total, kept in a database, shown as series over time')
    .addHelpText('after', wrapped([
      '',
      'The API gives totals only. `stats snapshot` (from cron or a scheduled CI job) stores them;',
      '`show`, `top` and `report` show the differences between snapshots. A period no two',
      'snapshots span is a gap, not a zero; the clicks across a missed snapshot are spread evenly',
      'over its periods, marked estimated; a total that went down is flagged as a reset.',
      'Exit 8: no snapshot of this account yet.',
      'LINKCTL_NOW=2025-06-01T06:00:00Z stands in for the clock (for tests and demos).',
    ].join('\n')));

  withExamples(
    dbOption(stats.command('snapshot'))
      .description('Record the totals of every link, QR code and campaign now (⌈links/1000⌉+3 requests; -q for cron)')
      .option('--details <n>', 'also the top countries, referrers, browsers and systems of the N most clicked links (one request each)', (v) => positiveInt('--details', v))
      .addOption(concurrencyOption('with --details: links read'))
      .action(bind(load, 'snapshot')),
    ['linkctl stats snapshot', 'linkctl stats snapshot -q --details 20', 'linkctl stats snapshot --db postgres://linkctl@db.example.com/marketing'],
  );
  withExamples(
    optionsForAgents(dbOption(selection(window(stats.command('show'), '30d, or 48h --by hour, 12w --by week, 52w --by month')))
      .description('Clicks per period: a table with a sparkline, or series for scripts (--json, -o ndjson|csv)')
      .addOption(enumOption('--by <period>', 'period of each point (UTC): hour, day, week (ISO, from Monday) or month (default day)', PERIODS))
      .addOption(enumOption('--breakdown <what>', 'changes of the top countries, referrers, browsers or systems of the chosen links (needs snapshots with --details)', DIMENSIONS))
      .action(bind(load, 'show')), { ...WINDOW_FOR_AGENTS, '--by': 'each point\'s period, UTC (default day)', '--breakdown': 'changes by country, referrer, browser or system' }),
    [
      'linkctl stats show --since 30d --by day',
      'linkctl stats show --link spring-sale --since 12w --by week',
      'linkctl stats show --campaign "Spring launch" -o csv > spring.csv',
      'linkctl stats show --top 10 --json',
      'linkctl stats show --link spring-sale --breakdown countries',
    ],
  );
  withExamples(
    optionsForAgents(dbOption(window(stats.command('top'), '7d'))
      .description('The most clicked links of the window (days ending today), each against the same span before, with what the history covers said')
      .option('--top <n>', 'how many (default 10)', (v) => positiveInt('--top', v))
      .option('--qr', 'QR codes\' scans instead of links\' clicks')
      .addOption(enumOption('--group <by>', 'links\' clicks summed by campaign, channel (as the server lists them now) or domain, or by each visit\'s country, referrer, browser or os (from listen\'s events and --details snapshots); clicks in none counted apart', GROUPS))
      .action(bind(loadGroups, 'top')), { ...WINDOW_FOR_AGENTS, '--group': 'sum by what links belong to (campaign, channel, domain) or by visit (country, referrer, browser, os); clicks in none counted apart' }),
    ['linkctl stats top --since 7d', 'linkctl stats top --since 30d --top 20 --json', 'linkctl stats top --qr', 'linkctl stats top --group campaign --since 30d'],
  );
  withExamples(
    dbOption(window(stats.command('export'), 'the first snapshot'))
      .description('The history as files a warehouse loads: daily clicks per link, QR scans and visits, one folder per table, a partition per day (day=YYYY-MM-DD)')
      .addOption(pathOption('--out <dir>', 'the folder to write into (created when missing); a day exported again is replaced, never added to', 'dir').makeOptionMandatory())
      .addOption(enumOption('--format <format>', 'parquet (typed columns, every warehouse loads it) or csv (default parquet)', EXPORT_FORMATS))
      .option('--no-channels', 'leave the channel column empty and send no request (the history keeps no channels: they are read from the server, one request per channel)')
      .action(bind(loadExport, 'exportStats')),
    ['linkctl stats export --out warehouse/', 'linkctl stats export --since 30d --out warehouse/ --format csv', 'linkctl stats export --out warehouse/ --no-channels --db postgres://linkctl@db.example.com/marketing'],
  );
  withExamples(
    dbOption(selection(window(stats.command('report'), '90d')))
      .description('One self-contained page to forward: totals against the period before, charts, top links and QR codes, breakdowns; --pdf prints it')
      .addOption(pathOption('--html <file>', 'the page to write (- for stdout)'))
      .addOption(pathOption('--pdf <file>', 'also (or only) the page printed to PDF, by headless Chromium (LINKCTL_BROWSER, or chromium on PATH)'))
      .addOption(enumOption('--paper <size>', 'the PDF\'s paper: a4 or letter (default a4)', ['a4', 'letter']))
      .addOption(enumOption('--by <period>', 'period of each bar (default day)', PERIODS))
      .addOption(forceOption())
      .action(bind(() => import('./report.js'), 'report')),
    ['linkctl stats report --since 90d --html report.html', 'linkctl stats report --since 30d --pdf report.pdf', 'linkctl stats report --campaign "Spring launch" --top 5 --html spring.html'],
  );
  withExamples(
    dbOption(stats.command('forget'))
      .description('Remove one snapshot from the history (one dated wrongly, say); asks first on a terminal, needs --yes elsewhere')
      .requiredOption('--snapshot <id>', 'the snapshot\'s number, as `stats snapshot` printed it (Snapshot 12 at ...)', (v) => positiveInt('--snapshot', v))
      .action(bind(load, 'forget')),
    ['linkctl stats forget --snapshot 2', 'linkctl stats forget --snapshot 2 --yes --db postgres://linkctl@db.example.com/marketing'],
  );
  withExamples(
    dbOption(stats.command('migrate'))
      .description('Bring a history database written by an older linkctl to this one\'s tables (show, top and report only read)')
      .action(bind(load, 'migrateDb')),
    ['linkctl stats migrate', 'linkctl stats migrate --dry-run --db postgres://linkctl@db.example.com/marketing'],
  );
}
