/**
 * No import circles in src/ (issue 42): a layer takes from the layers below it, never from one
 * that takes from it. The graph is every module's imports: static `import`/`export ... from`,
 * `import()` (which loads the module all the same, later) and `import type` (erased when built,
 * but a dependency of the layer all the same: the first circle is one). Every circle
 * found is reported, each as a path of files.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** Edges of circles known and being broken elsewhere (none now): any other circle fails. */
const KNOWN: Array<[from: string, to: string]> = [];

/**
 * The layers (issue 53; docs/architecture.md draws them). The command layer uses everything and
 * nothing else imports it. The foundation (HTTP, the model, output, settings) stands only on
 * itself and the base files, never on a capability (ascode, check, history, import, listen,
 * policy, qr, sandbox, journal, files, completion) or the context above it.
 */
const COMMAND_LAYER = ['commands/', 'mcp/', 'bulk/', 'cli.ts', 'run.ts', 'help-templates.ts'];
const FOUNDATION = ['http/', 'model/', 'output/', 'config/'];
const BASE = ['errors.ts', 'io.ts', 'validate.ts', 'redact.ts', 'distance.ts', 'memory.ts', 'version.ts', 'prompt.ts', 'flags.ts', 'numbers.ts'];
const within = (file: string, layer: string[]) => layer.some((part) => (part.endsWith('/') ? file.startsWith(part) : file === part));

/** Every import that points up a layer, as `from → to`. */
export function upward(edges: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [from, tos] of edges) {
    for (const to of tos) {
      const intoCommands = !within(from, COMMAND_LAYER) && within(to, COMMAND_LAYER);
      const foundationUp = within(from, FOUNDATION) && !within(to, FOUNDATION) && !within(to, BASE);
      if (intoCommands || foundationUp) found.push(`${from} → ${to}`);
    }
  }
  return found.sort();
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : []));
}

/** A relative specifier ('./x.js', '../y/index.js', './z') as the file under src/ it loads, or undefined. */
function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return undefined;
}

/** The imports of a module's source, in order: `import ... from`, `import '...'`, `export ... from`, `import()`. */
export function importsOf(text: string): string[] {
  // Comments that open a line (a `/*` inside a string, such as a glob, is not one).
  const code = text.replace(/^\s*\/\*[\s\S]*?\*\//gm, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(/^\s*(?:import|export)\b[^'";()=]*?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm)]
    .filter((m) => m[2] !== undefined || /^\s*import\s*['"]|\bfrom\s*['"][^'"]+['"]$/.test(m[0]))
    .map((m) => (m[1] ?? m[2])!);
}

function graph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of files(SRC)) {
    const from = relative(SRC, file);
    const to = importsOf(readFileSync(file, 'utf8'))
      .map((spec) => resolveImport(file, spec))
      .filter((f): f is string => f !== undefined)
      .map((f) => relative(SRC, f));
    edges.set(from, [...new Set(to)]);
  }
  return edges;
}

/** The strongly connected components of more than one module (or a module importing itself): Tarjan's algorithm. */
function circles(edges: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!idx.has(v)) visit(v);
  return found;
}

/** One circle through a component, as `a → b → ... → a`: the shortest way back to its first module. */
function describe_(component: string[], edges: Map<string, string[]>): string {
  const inside = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of edges.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start].join(' → ');
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return component.join(', ');
}

describe('the import graph of src/', () => {
  const edges = graph();

  it('reads every import: static, type, re-exports and import(); not one in a comment', () => {
    expect(importsOf("import type { A } from './a.js';\nimport { type B } from './b.js';\nimport { c } from './c.js';\nexport { d } from './d.js';\nexport type { E } from './e.js';\nimport './side.js';\nexport const x = 1;\nconst f = await import('./f.js');\n// import { g } from './g.js';\nimport {\n  h,\n  i,\n} from './h.js';"))
      .toEqual(['./a.js', './b.js', './c.js', './d.js', './e.js', './side.js', './f.js', './h.js']);
    // The graph is real: the entry point reaches the commands.
    expect(edges.get('cli.ts')).toContain('commands/index.ts');
  });

  it('has no circle but the known ones another branch breaks; every circle is reported', () => {
    const without = new Map([...edges].map(([from, to]) => [from, to.filter((t) => !KNOWN.some(([a, b]) => a === from && b === t))]));
    const left = circles(without).map((c) => describe_(c, without));
    expect(left, `import circles in src/:\n${left.join('\n')}`).toEqual([]);
    const obsolete = KNOWN.filter(([a, b]) => !(edges.get(a) ?? []).includes(b) || !circles(edges).some((c) => c.includes(a) && c.includes(b)));
    if (obsolete.length) console.warn(`test/unit/import-cycles.test.ts: known circles now broken, to take out of KNOWN: ${obsolete.map((e) => e.join(' → ')).join('; ')}`);
  });

  it('mcp/server.ts reaches the commands without importing the CLI entry point (the circle through cli.ts is gone)', () => {
    const reach = (from: string, seen = new Set<string>()): Set<string> => {
      for (const to of edges.get(from) ?? []) if (!seen.has(to)) seen.add(to), reach(to, seen);
      return seen;
    };
    expect(reach('mcp/server.ts').has('cli.ts')).toBe(false);
    expect(reach('commands/mcp/actions.ts').has('cli.ts')).toBe(false);
  });

  it('has no import that points up a layer', () => {
    const up = upward(edges);
    expect(up, `imports that point up a layer (move what they need down, beside its model, or into the layer both stand on):\n${up.join('\n')}`).toEqual([]);
  });

  it('finds an upward import when there is one (the rule itself)', () => {
    const sample = new Map([
      ['model/links.ts', ['commands/link/types.ts', 'errors.ts', 'http/client.ts']],
      ['qr/read.ts', ['commands/qr/types.ts', 'model/qr.ts']],
      ['http/client.ts', ['check/networks.ts', 'redact.ts']],
      ['output/progress.ts', ['context.ts']],
      ['commands/link/index.ts', ['model/links.ts', 'qr/read.ts']],
      ['bulk/engine.ts', ['commands/shared/define.ts']],
    ]);
    expect(upward(sample)).toEqual(['http/client.ts → check/networks.ts', 'model/links.ts → commands/link/types.ts', 'output/progress.ts → context.ts', 'qr/read.ts → commands/qr/types.ts']);
  });

  it('finds a circle when there is one (the finder itself)', () => {
    const sample = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts', 'd.ts']], ['d.ts', []], ['e.ts', ['e.ts']]]);
    expect(circles(sample).map((c) => describe_(c, sample))).toEqual(['a.ts → b.ts → c.ts → a.ts', 'e.ts → e.ts']);
  });
});
