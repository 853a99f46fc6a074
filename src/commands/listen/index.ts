/** `listen`: the product's own webhooks as a live click stream, exact history and signed forwards. Flags and help only; the work is in ./actions.ts and src/listen/. */
import type { Command } from 'commander';
import { dbOption, many, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { duration, httpUrl, nonEmpty, positiveInt } from '../../validate.js';
import { UsageError } from '../../errors.js';

const MIN_POLL_MS = 5_000;
function pollInterval(raw: string): number {
  const ms = duration('--poll', raw, 'smh');
  if (ms < MIN_POLL_MS) throw new UsageError(`--poll must be at least 5s (each poll reads the whole link list), got ${raw}`, 'e.g. --poll 60s');
  return ms;
}

/**
 * A forward target: an http(s) URL without a user name or password. fetch refuses to send one
 * (so it was retried forever), and the password was printed in each retry's message; neither
 * the refusal nor its hint shows it.
 */
function forwardTarget(raw: string): string {
  const userInfo = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i.exec(raw.trim());
  if (userInfo) {
    const shown = `${userInfo[1]}***@${raw.trim().slice(userInfo[0].length)}`;
    throw new UsageError(`--forward-to ${shown}: a URL with a user name or password is refused (it cannot be sent, and would be shown in every message)`, 'give the URL without them; the receiver checks the Linkctl-Signature header instead (docs/listen.md, "Forwarding, signed")');
  }
  return httpUrl('--forward-to', raw);
}

export const DEFAULT_LISTEN_PORT = 8790;

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  withExamples(
    dbOption(program.command('listen'))
      .description('Receive the product\'s webhooks (link created, every counted visit): a live tail, one JSON line per event with --json, each event stored in the click history before it is acknowledged, and forwarded signed with --forward-to')
      .option('--host <address>', 'address to listen on (put a reverse proxy in front for the product to reach it)', '127.0.0.1')
      .option('--port <port>', 'port to listen on (0: any free port)', (v) => (v === '0' ? 0 : positiveInt('--port', v)), DEFAULT_LISTEN_PORT)
      .option('--public-url <url>', 'the address the product reaches this receiver at (behind a reverse proxy): the URLs printed start with it', (v) => httpUrl('--public-url', v))
      .option('--forward-to <url>', 'POST each event here too, in order, signed (Linkctl-Signature); retried until it answers 2xx (repeatable)', many(forwardTarget))
      .option('--poll <interval>', 'without webhooks: read the link list every interval (at least 5s) and print link.created, link.updated and link.deleted; sees no clicks', (v) => pollInterval(v))
      .option('--secret <secret>', 'the signing secret of --forward-to (default: LINKCTL_LISTEN_SECRET, else one made once and kept with the profile)', (v) => nonEmpty('--secret', v, 16))
      .addHelpText('after', wrapped([
        '',
        'The product cannot be told these URLs through its API: paste the two URLs listen prints into',
        'its web interface (Tools, Integrations, the two webhook fields). The secret in them is kept',
        'with the profile, so a restart keeps the same URLs.',
        '`stats show`, `top` and `report` count these events exactly over the time listen ran.',
      ].join('\n'))),
    [
      'linkctl listen',
      'linkctl listen --json | jq .',
      'linkctl listen --public-url https://links.example.com/linkctl-hooks --forward-to https://hooks.example.com/clicks',
      'linkctl --sandbox listen --port 0',
      'linkctl listen --poll 60s --json   # no webhooks: link changes only, no clicks',
    ],
  ).action(bind(load, 'listen'));
}
