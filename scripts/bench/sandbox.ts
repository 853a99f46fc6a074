/**
 * A sandbox for the benchmark, in its own process so its work never counts against the CLI
 * being measured. scripts/bench.mjs bundles this file with esbuild (the sandbox inside dist/
 * is split into chunks and not importable) and runs it as:
 *
 *   node bench-sandbox.mjs [--seed-links N] [--seed-campaigns N] [--seed-channels N] [--empty] [--rate-limit N/SECONDS|off] [--latency MS]
 *
 * It prints one JSON line `{"url","key"}` on stdout and serves until stdin closes or SIGTERM.
 * No state file: every start (and POST /__sandbox/reset) is the seed, with no disk writes.
 */
import { startSandbox } from '../../src/sandbox/server.js';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

const links = Number(flag('--seed-links') ?? 0);
const campaigns = Number(flag('--seed-campaigns') ?? 0);
const channels = Number(flag('--seed-channels') ?? 0);
const empty = process.argv.includes('--empty');
const rate = flag('--rate-limit') ?? 'off';
const match = /^(\d+)\/(\d+)$/.exec(rate);
const latencyMs = Number(flag('--latency') ?? 0);
if (rate !== 'off' && !match) throw new Error(`--rate-limit: N/SECONDS or off, got ${rate}`);

const sandbox = await startSandbox({
  port: 0,
  seed: { links, campaigns, channels, empty },
  rateLimit: match ? { limit: Number(match[1]), windowSeconds: Number(match[2]) } : null,
  latencyMs,
});
process.stdout.write(`${JSON.stringify({ url: sandbox.url, key: sandbox.key })}\n`);

const stop = () => void sandbox.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop).resume();
