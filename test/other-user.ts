// linkctl as another user sees it: a copy of what the built CLI needs to run (bin/, dist/,
// package.json and the packages it loads at run time) in a folder every user may enter. The
// checkout itself may sit in a folder only its owner can enter (a `mktemp -d` folder, root's
// home), where another user cannot reach bin/linkctl.js.
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The installed packages that `names` need at run time, themselves included (dependencies and installed optional ones). */
function runtimePackages(names: string[], seen = new Set<string>()): Set<string> {
  for (const name of names) {
    const dir = join(ROOT, 'node_modules', name);
    if (seen.has(name) || !existsSync(dir)) continue; // an optional dependency of another platform is not installed
    seen.add(name);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: object; optionalDependencies?: object };
    runtimePackages([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})], seen);
  }
  return seen;
}

/**
 * A folder (mode 755) holding a runnable copy of the built CLI; returns it and the path of its
 * bin/linkctl.js. Folders made inside it with mode 755 are reachable by every user too.
 */
export function copyForAnotherUser(prefix = 'linkctl-other-user-'): { dir: string; bin: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  const app = join(dir, 'linkctl');
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(app, part), { recursive: true });
  const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: object };
  for (const name of runtimePackages(Object.keys(own.dependencies ?? {}))) {
    cpSync(join(ROOT, 'node_modules', name), join(app, 'node_modules', name), { recursive: true });
  }
  return { dir, bin: join(app, 'bin', 'linkctl.js') };
}
