/**
 * `linkctl __complete profiles`: what the completion scripts ask at TAB time, one name a line.
 * It runs at every TAB, so it reads the config file with fs and nothing else (no conf, no API
 * layer, not even commander: bin/linkctl.js loads it as its own small entry). Any error, such
 * as a corrupt config, prints nothing: a completion has no place to report it.
 */
import { readConfig } from '../config/store.js';
import type { Context } from '../context.js';
import type { Rec, Result } from '../output/types.js';

type Env = Record<string, string | undefined>;

export function profileNames(env: Env): string[] {
  try {
    // A name with a line break would read as two names.
    return Object.keys(readConfig(env).data.profiles).filter((name) => name && !/[\r\n]/.test(name));
  } catch {
    return [];
  }
}

/** The fast entry (dist/complete.cjs), called by bin/linkctl.js with argv after `__complete`. */
export function complete(argv: string[], stdout: { write(s: string): unknown }, env: Env): void {
  if (argv[0] === 'profiles') for (const name of profileNames(env)) stdout.write(`${name}\n`);
}

/** The same answer through the CLI (the hidden `__complete` command), when the fast entry is not built: in a pipe, one name a line. */
export async function completeAction(ctx: Context, { args }: { args: unknown[] }): Promise<Result> {
  const names = args[0] === 'profiles' ? profileNames(ctx.env) : [];
  async function* pages(): AsyncIterable<Rec[]> {
    yield names.map((name) => ({ name }));
  }
  return { kind: 'list', pages: pages(), columns: [{ key: 'name' }] };
}
