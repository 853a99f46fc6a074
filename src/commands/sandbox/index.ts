/** `sandbox`: the local emulator of the API, for trying linkctl without an account and for tests. */
import type { Command } from 'commander';
import { enumOption, pathOption, withExamples, type Bind } from '../shared/define.js';
import { DEFAULT_QR_IMAGES, PLAN_NOTES, PLANS, QR_IMAGES, QR_IMAGES_NOTES } from '../../sandbox/types.js';
import { httpUrl, milliseconds, positiveInt } from '../../validate.js';
import { UsageError } from '../../errors.js';

const MAX_VISITS = 100_000;
const visitCount = (flag: string, v: string) => {
  const n = positiveInt(flag, v);
  if (n > MAX_VISITS) throw new UsageError(`${flag} must be at most ${MAX_VISITS}, got ${n}`, `run it again for more visits; e.g. ${flag} 1000`);
  return n;
};

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const sandbox = program.command('sandbox').description('Run a local emulator of the API (no account needed)');
  withExamples(
    sandbox
      .command('serve')
      .description('Serve the emulator in the foreground; prints the base URL and the key it accepts, and logs each request on stderr (nothing on stderr with --quiet)')
      .option('--port <port>', 'port to listen on (0 = any free port)', (v) => (v === '0' ? 0 : positiveInt('--port', v)), 8787)
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .addOption(pathOption('--state <file>', 'state file (default: sandbox-state.json in the config folder, shared with --sandbox)'))
      .option('--key <key>', 'the API key of its first user, the administrator (default: the sandbox key, or the seed\'s)')
      .option('--user-key <key>', 'the API key of its second user, a plain user of the same installation (default: the sandbox\'s user key, or the seed\'s)')
      .addOption(pathOption('--seed <file>', 'start from this installation (users with their keys, overlays and splash pages; a JSON file, see docs/sandbox.md), and go back to it on POST /__sandbox/reset; the state is kept in memory unless --state is given'))
      .option('--rate-limit <n/seconds>', 'requests per window per key: 30/60 is a real server\'s default (default: off, or LINKCTL_SANDBOX_RATE_LIMIT)')
      .option('--no-rate-limit-headers', 'limit without sending X-RateLimit-* headers, like servers without a cache')
      .option('--documented', 'answer in the documented shapes of link-api.md instead of as real servers do')
      .option('--quirks', 'answer as real servers do (the default; kept for scripts)')
      .option('--string-ids', 'send ids and counts as strings and maxpage as 1.0, as servers on PHP before 8.1 do (default: integers as on PHP 8.1+, or LINKCTL_SANDBOX_STRING_IDS=1)')
      .addOption(enumOption('--plan <plan>', `the account's plan: pro has every feature; ${PLAN_NOTES} (default: pro, or LINKCTL_SANDBOX_PLAN)`, PLANS))
      .option('--latency <time>', 'how long each request takes, as a network and a busy server would: half before it is carried out, half before its answer, e.g. 30ms (default: 0)', (v) => milliseconds('--latency', v))
      .option('--jitter <time>', 'spread each request\'s latency evenly over --latency ± this, e.g. 10ms (default: 0)', (v) => milliseconds('--jitter', v))
      .option('--webhook-created <url>', 'POST the product\'s "link created" webhook here on each create, as Tools, Integrations does on the product (kept in the state)', (v) => httpUrl('--webhook-created', v))
      .option('--webhook-visits <url>', 'POST the product\'s visit webhook here on each counted visit (kept in the state; `sandbox visits` posts it too)', (v) => httpUrl('--webhook-visits', v))
      .addOption(enumOption('--qr-images <kind>', `how QR images are served: ${QR_IMAGES_NOTES} (default: ${DEFAULT_QR_IMAGES}, or LINKCTL_SANDBOX_QR_IMAGES)`, QR_IMAGES))
      .action(bind(load, 'serve')),
    [
      'linkctl sandbox serve',
      'linkctl sandbox serve --port 0 --rate-limit 5/2 --documented',
      'linkctl sandbox serve --rate-limit 30/60 --plan basic   # pace and plan of a real server',
      'linkctl sandbox serve --qr-images png   # plain PNG QR images, not the product\'s SVG',
      'linkctl sandbox serve --latency 30ms --jitter 10ms   # as slow as a PHP server over a network',
      'linkctl sandbox serve --api-path /v2   # the API at /v2',
      'linkctl sandbox serve --port 0 --seed scenario-seed.json   # two users and nothing else, to replay a recording',
      'LINKCTL_API_KEY=<printed key> linkctl --base-url http://127.0.0.1:8787 qr list',
    ],
  );
  withExamples(
    sandbox.command('status').description('Say whether --sandbox uses a running `sandbox serve` or starts its own').action(bind(load, 'status')),
    ['linkctl sandbox status', 'linkctl sandbox status --json'],
  );
  withExamples(
    sandbox
      .command('visits')
      .description('Simulate visits to a short link, counted as real ones (clicks, unique visitors, countries, referrers): a trend to look at with `stats`')
      .requiredOption('--link <id|alias>', 'the link visited')
      .option('--count <n>', 'how many visits (at most 100000)', (v) => visitCount('--count', v), 1)
      .option('--visitors <n>', 'from how many distinct visitors (default: one each)', (v) => visitCount('--visitors', v))
      .option('--country <code>', 'where they come from: a country code (US, CA, DE, ...) or name')
      .option('--referrer <url>', 'the page they come from (default: none, "direct")')
      .option('--user-agent <text>', 'their browser (default: Chrome on Linux)')
      .addOption(pathOption('--state <file>', 'state file (default: the one --sandbox and `sandbox serve` use)'))
      .action(bind(load, 'visits')),
    [
      'linkctl sandbox visits --link spring-sale --count 40 --country CA',
      'linkctl sandbox visits --link 1 --count 10 --visitors 3 --referrer https://news.example.com/',
      'linkctl --sandbox stats snapshot && linkctl sandbox visits --link docs --count 25 && linkctl --sandbox stats snapshot',
    ],
  );
  withExamples(
    sandbox.command('reset').description('Put the sandbox state back to its seeded records').addOption(pathOption('--state <file>', 'state file to reset')).action(bind(load, 'reset')),
    ['linkctl sandbox reset'],
  );
}
