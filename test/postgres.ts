/**
 * A private PostgreSQL server for tests of `--db postgres://...`: started in a temporary folder
 * (Debian's `postgresql`: initdb and pg_ctl, run as the `postgres` user when the tests run as
 * root, as initdb refuses root) and stopped by the test file that started it. `pgSkipReason`
 * says why there is none here (the tests then skip, saying so).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { tempDir } from './helpers.js';

interface PgClient {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
}
const { Client } = createRequire(import.meta.url)('pg') as { Client: new (config: object) => PgClient };

/** initdb and pg_ctl: on PATH, or in Debian's /usr/lib/postgresql/<version>/bin (newest first). */
function pgBin(): string | undefined {
  const fromPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (fromPath) return join(fromPath, '..');
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

const bin = pgBin();
const root = process.getuid?.() === 0;
const postgresUser = root ? spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }) : undefined;

/** Why no server can be started here; undefined when one can. */
export const pgSkipReason = !bin
  ? 'PostgreSQL is not installed (initdb not found; .ci/run installs Debian\'s postgresql)'
  : root && (postgresUser?.status !== 0 || spawnSync('sh', ['-c', 'command -v runuser']).status !== 0)
    ? 'running as root without a postgres user and runuser to run initdb as'
    : undefined;

/** Runs a PostgreSQL program (as the postgres user when we are root). */
function pg(program: string, args: string[]): void {
  const [command, argv] = root ? ['runuser', ['-u', 'postgres', '--', join(bin!, program), ...args]] : [join(bin!, program), args];
  const r = spawnSync(command, argv, { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${program} ${args.join(' ')} exited ${r.status}: ${r.stderr}${r.stdout}`);
}

/** A port nothing listens on (now). */
export const freePort = () => new Promise<number>((resolve, reject) => {
  const server = createServer();
  server.once('error', reject);
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    server.close(() => resolve(port));
  });
});

/** Rows of one statement, on a connection of its own. */
export async function sql<T = Record<string, unknown>>(database: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: database });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

export interface Cluster {
  /** postgres://linkctl@127.0.0.1:PORT/postgres (trust authentication unless a password was asked for; never in the URL). */
  url: string;
  /** Its temporary folder (data, log and socket), for files of the test's own too. */
  dir: string;
  /** Stops the server and removes its folder. */
  stop(): void;
}

/**
 * Starts a server on 127.0.0.1 on a free port, with a superuser `linkctl`. Call in beforeAll (it
 * takes seconds). With `password`, the server asks for it (scram-sha-256), as most servers do.
 */
export async function startCluster(options: { password?: string } = {}): Promise<Cluster> {
  if (pgSkipReason) throw new Error(`internal: startCluster without PostgreSQL (${pgSkipReason})`);
  const dir = tempDir('linkctl-pg-');
  chmodSync(dir, 0o755);
  if (root) chownSync(dir, Number(postgresUser!.stdout.trim()), -1);
  const port = await freePort();
  let initialised = false;
  const stop = () => {
    try {
      if (initialised) pg('pg_ctl', ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    const auth = ['--auth=trust'];
    if (options.password !== undefined) {
      const pwfile = join(dir, 'pwfile');
      writeFileSync(pwfile, `${options.password}\n`, { mode: 0o600 });
      if (root) chownSync(pwfile, Number(postgresUser!.stdout.trim()), -1);
      auth.splice(0, 1, '--auth=scram-sha-256', `--pwfile=${pwfile}`);
    }
    pg('initdb', ['-D', join(dir, 'data'), '-U', 'linkctl', ...auth, '-E', 'UTF8', '--no-sync']);
    initialised = true; // from here on, a failed start may still have left a server to stop
    pg('pg_ctl', ['-D', join(dir, 'data'), '-l', join(dir, 'log'), '-w', '-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off`, 'start']);
  } catch (error) {
    try {
      stop();
    } catch {
      // nothing was running
    }
    throw error;
  }
  return { url: `postgres://linkctl@127.0.0.1:${port}/postgres`, dir, stop };
}
