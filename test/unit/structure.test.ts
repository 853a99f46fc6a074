/**
 * The layers stay where the README's architecture section puts them (issue 18): every API path is
 * written in the model layer (src/model/), the sandbox (which serves them) and the raw `api`
 * command, nowhere else; bulk, links-as-code and MCP use the model, not a command's actions.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

const sources = files(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));

describe('the model layer is the one place for API paths', () => {
  it('finds no "api/" outside src/model/, src/sandbox/ and the api command (grep -rn "api/" src --include=*.ts)', () => {
    const allowed = (path: string) => path.startsWith('model/') || path.startsWith('sandbox/') || path.startsWith('commands/api/');
    const found = sources
      .filter((f) => !allowed(f.path))
      .flatMap((f) => f.text.split('\n').map((line, i) => ({ at: `src/${f.path}:${i + 1}`, line })))
      .filter(({ line }) => line.includes('api/'))
      // The api command's own registration names its folder.
      .filter(({ at, line }) => !(at.startsWith('src/commands/index.ts:') && line.includes("from './api/index.js'")))
      .map(({ at, line }) => `${at}: ${line.trim()}`);
    expect(found).toEqual([]);
  });

  it('finds the paths in the model: one file per resource', () => {
    const model = sources.filter((f) => f.path.startsWith('model/') && /'api\/|`api\//.test(f.text)).map((f) => f.path).sort();
    expect(model).toEqual(['model/account.ts', 'model/campaigns.ts', 'model/channels.ts', 'model/domains.ts', 'model/links.ts', 'model/oauth.ts', 'model/overlays.ts', 'model/pixels.ts', 'model/plans.ts', 'model/qr.ts', 'model/splash.ts', 'model/users.ts']);
  });
});

describe('bulk, links-as-code and MCP build on the model, not on commands', () => {
  /** What a capability may take from src/commands/: definitions, enumerations and the helpers that derive flags, columns and schemas. */
  const ALLOWED = /^commands\/([^/]+\/index|[^/]+\/types|shared\/define)\.js$/;
  it.each(['bulk/', 'ascode/', 'mcp/', 'model/'])('%s imports nothing else from src/commands/', (layer) => {
    const wrong = sources
      .filter((f) => f.path.startsWith(layer))
      .flatMap((f) => [...f.text.matchAll(/from '((?:\.\.\/)+)(commands\/[^']+)'/g)].map((m) => ({ file: f.path, target: m[2]! })))
      .filter(({ target }) => !ALLOWED.test(target))
      .map(({ file, target }) => `${file} imports ${target}`);
    expect(wrong).toEqual([]);
  });
});

describe('scripts', () => {
  // `npm run bench` is not part of `npm test`: a merge that breaks its syntax would go unseen.
  it('the bench scripts are valid JavaScript (node --check)', () => {
    const scripts = fileURLToPath(new URL('../../scripts/', import.meta.url));
    const files = [join(scripts, 'bench.mjs'), ...readdirSync(join(scripts, 'bench')).filter((f) => f.endsWith('.mjs')).map((f) => join(scripts, 'bench', f))];
    for (const file of files) {
      const r = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
      expect(r.status, `${file}: ${r.stderr}`).toBe(0);
    }
  });
});
