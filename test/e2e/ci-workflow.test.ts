/**
 * examples/ci/github-actions.yml, run as GitHub would run it, against the sandbox: for each event
 * (pull request, push to main, schedule) the jobs it starts, and their `run:` steps in order, in
 * bash with `-eo pipefail` as GitHub's default shell. The secrets are the sandbox's URL and key;
 * `npm` and `gh` are stubs on PATH that record their arguments (and `gh` the comment it posts);
 * `linkctl` is the built CLI. So the example cannot rot: a step that stops working fails here.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runMain, sent, tempDir, useSandbox } from '../helpers.js';

const WORKFLOW = fileURLToPath(new URL('../../examples/ci/github-actions.yml', import.meta.url));
const workflow = parse(readFileSync(WORKFLOW, 'utf8')) as {
  on: Record<string, unknown>;
  env?: Record<string, string>;
  jobs: Record<string, { if?: string; env?: Record<string, string>; steps: Array<{ name?: string; uses?: string; run?: string; env?: Record<string, string> }> }>;
};

const sb = useSandbox({ seed: { empty: true } });
const dir = tempDir('linkctl-ci-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The checkout: a repository with account.yaml. The stubs: npm and gh record, linkctl runs the build.
const repo = join(dir, 'repo');
const bin = join(dir, 'bin');
const record = join(dir, 'calls.log');
mkdirSync(repo);
mkdirSync(bin);
const script = (name: string, body: string) => {
  writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, name), 0o755);
};
script('linkctl', `exec "${process.execPath}" "${BIN}" "$@"`);
script('npm', `echo "npm $*" >> "${record}"`);
// gh pr comment N --body-file FILE: the arguments, then the body it would post.
script('gh', `echo "gh $*" >> "${record}"\nwhile [ $# -gt 0 ]; do if [ "$1" = "--body-file" ]; then cat "$2" > "${join(dir, 'comment.md')}"; fi; shift; done`);

const PULL_REQUEST = 42;
/** What GitHub puts in for each `${{ ... }}` the workflow uses; anything else fails the test. */
const expressions = (): Record<string, string> => ({
  'secrets.LINKCTL_BASE_URL': sb.sandbox.url,
  'secrets.LINKCTL_API_KEY': sb.sandbox.key,
  'github.token': 'ghs_test_token',
  'github.event.pull_request.number': String(PULL_REQUEST),
});

function substitute(value: string): string {
  return value.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    const known = expressions()[expression];
    if (known === undefined) throw new Error(`the workflow uses \${{ ${expression} }}, which this test does not provide`);
    return known;
  });
}

interface StepRun {
  job: string;
  step: string;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** bash as GitHub's default shell runs a step (asynchronously: the sandbox answers from this process). */
function bash(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the jobs `event` starts, step by step; a job stops at its first failing step, as on GitHub. */
async function runEvent(event: 'pull_request' | 'push' | 'schedule'): Promise<StepRun[]> {
  rmSync(record, { force: true });
  rmSync(join(dir, 'comment.md'), { force: true });
  const runs: StepRun[] = [];
  for (const [name, job] of Object.entries(workflow.jobs)) {
    const condition = /^github\.event_name == '([a-z_]+)'$/.exec(job.if ?? '');
    if (!condition) throw new Error(`job ${name}: its if: (${job.if}) is not of the form this test reads`);
    if (condition[1] !== event) continue;
    for (const step of job.steps) {
      if (step.uses) {
        // The checkout is `repo`; node is the one running this test.
        expect(step.uses).toMatch(/^actions\/(checkout|setup-node)@v\d+$/);
        continue;
      }
      expect(step.run, `job ${name}: a step without run or uses`).toBeDefined();
      expect(step.run, 'expressions go through env:, never into a script').not.toContain('${{');
      const env: Record<string, string> = {
        PATH: `${bin}:${process.env.PATH}`,
        HOME: dir,
        LINKCTL_CONFIG_DIR: join(dir, 'config'),
        GITHUB_OUTPUT: join(dir, 'github-output'),
        CI: 'true',
      };
      for (const [key, value] of Object.entries({ ...workflow.env, ...job.env, ...step.env })) env[key] = substitute(String(value));
      const r = await bash(step.run!, env);
      runs.push({ job: name, step: step.name ?? step.run!, ...r });
      if (r.code !== 0) break;
    }
  }
  return runs;
}

const calls = () => (existsSync(record) ? readFileSync(record, 'utf8').trim().split('\n') : []);
const links = (aliases: string[]) => `version: 1\nlinks:\n${aliases.map((a) => `  - alias: ${a}\n    url: https://example.com/${a}\n`).join('')}`;
const ALIASES = Array.from({ length: 12 }, (_, i) => `promo-${String(i + 1).padStart(2, '0')}`);

describe('examples/ci/github-actions.yml', () => {
  it('runs on pull requests, on pushes to main, and on a schedule', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push', 'schedule']);
    expect((workflow.on.push as { branches: string[] }).branches).toEqual(['main']);
    expect(workflow.env).toMatchObject({ LINKCTL_BASE_URL: expect.any(String), LINKCTL_API_KEY: expect.any(String) });
  });

  it('a pull request gets the plan as a comment, and the account is not changed', async () => {
    writeFileSync(join(repo, 'account.yaml'), links(ALIASES));
    const runs = await runEvent('pull_request');
    expect(runs.map((r) => [r.job, r.code])).toEqual([['plan', 0], ['plan', 0], ['plan', 0]]);
    expect(calls()).toEqual(['npm install --global linkctl', `gh pr comment ${PULL_REQUEST} --body-file plan.md`]);
    const comment = readFileSync(join(dir, 'comment.md'), 'utf8');
    expect(comment).toMatch(/^\*\*linkctl plan\*\*: 12 to add, 0 to change, 0 to delete\.\n\n<details>\n<summary>12 changes<\/summary>\n\n- \*\*add\*\* link `promo-01`\n/);
    expect(sent(sb.sandbox).filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('a merge to main applies the file, a pull request then shows no changes, and the schedule finds no drift', async () => {
    writeFileSync(join(repo, 'account.yaml'), links(ALIASES));
    const push = await runEvent('push');
    expect(push.map((r) => [r.job, r.code])).toEqual([['apply', 0], ['apply', 0]]);
    expect(push[1]!.stdout).toBe('Applied: 12 added, 0 changed, 0 deleted.\n');
    expect(sent(sb.sandbox).filter((r) => r.method === 'POST' && r.path === '/api/url/add')).toHaveLength(12);

    await runEvent('pull_request');
    expect(readFileSync(join(dir, 'comment.md'), 'utf8')).toBe('**linkctl plan**: no changes, the account matches the file.\n');

    const schedule = await runEvent('schedule');
    expect(schedule.map((r) => [r.job, r.code])).toEqual([['drift', 0], ['drift', 0]]);
  });

  it('the schedule fails (exit 2) when the account was changed by hand', async () => {
    writeFileSync(join(repo, 'account.yaml'), links(ALIASES));
    expect((await runEvent('push')).at(-1)!.code).toBe(0);
    const byHand = await runMain(['link', 'add', 'https://example.com/by-hand', '--alias', 'by-hand'], { env: sb.env });
    expect(byHand.code, byHand.stderr).toBe(0);
    const schedule = await runEvent('schedule');
    expect(schedule.at(-1)).toMatchObject({ job: 'drift', code: 2 });
    expect(schedule.at(-1)!.stdout).toContain('- link by-hand\nPlan: 0 to add, 0 to change, 1 to delete.');
  });

  it('a merge that would delete more than 10 records is refused, and nothing is deleted', async () => {
    writeFileSync(join(repo, 'account.yaml'), links(ALIASES));
    expect((await runEvent('push')).at(-1)!.code).toBe(0);
    writeFileSync(join(repo, 'account.yaml'), links(ALIASES.slice(0, 1)));
    sb.sandbox.requests.length = 0;
    const push = await runEvent('push');
    expect(push.at(-1)).toMatchObject({ job: 'apply', code: 2 });
    expect(push.at(-1)!.stderr).toContain('the plan deletes 11 records, more than --max-deletes 10; nothing was changed');
    expect(sent(sb.sandbox).filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('a pull request whose file cannot be planned fails its check, and posts nothing', async () => {
    writeFileSync(join(repo, 'account.yaml'), 'version: 1\nlinks:\n  - alias: broken\n');
    const runs = await runEvent('pull_request');
    expect(runs.at(-1)).toMatchObject({ job: 'plan', code: 1 });
    expect(runs.at(-1)!.stderr).toContain('account.yaml:3:5: links[0]: missing url');
    expect(calls()).toEqual(['npm install --global linkctl']);
  });
});
