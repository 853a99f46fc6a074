/**
 * The GitHub Action (action.yml) and the workflows that use it, run as GitHub runs them, against
 * the sandbox: examples/ci/github-actions.yml for each event (pull request, push to main,
 * schedule), and every workflow in the README. test/e2e/github-actions.ts is the runner: each
 * `run:` step of the workflow and of action.yml in bash, in a fresh copy of this checkout (the
 * action as GitHub downloads it), with GitHub's variables; the first job builds linkctl there
 * (`npm ci`, the build, `npm prune`) and later jobs take that build from the cache. A fake GitHub
 * API on 127.0.0.1 records the calls: the plan's comment is posted once and then updated in
 * place; the click history goes to an artifact and comes back. No job's log holds the API key.
 * Slow: the first job installs and builds (npm's cache or the registry).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain, sent, tempDir, useSandbox } from '../helpers.js';
import { checkoutCopy, Runner, startFakeGitHub, type FakeGitHub, type JobRun, type Workflow } from './github-actions.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SLOW = 300_000;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const example = readFileSync(join(ROOT, 'examples/ci/github-actions.yml'), 'utf8');
const workflow = parse(example) as Workflow;
/** The README and the guides in docs/, where the workflows people copy are. */
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
/** The workflows of the README and the guides: their yaml blocks with jobs. */
const readmeWorkflows = DOCS.flatMap((file) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!)).filter((text) => /^jobs:/m.test(text));

// A key of this run's own, so that finding it in a log means the action or linkctl printed it.
const KEY = `lk_ci_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
const sb = useSandbox({ seed: { empty: true }, key: KEY });
const dir = tempDir('linkctl-ci-');
const repo = join(dir, 'repo');
const PULL_REQUEST = 42;
let github: FakeGitHub;
let runner: Runner;
const baseEnv: Record<string, string> = {};
/** The repository's secrets; a test may add one for its run. */
const secrets: Record<string, string> = {};
const logs: string[] = [];

beforeAll(async () => {
  mkdirSync(repo);
  github = await startFakeGitHub('ghs_test_token');
  Object.assign(secrets, { LINKCTL_BASE_URL: sb.sandbox.url, LINKCTL_API_KEY: sb.sandbox.key });
  const npmCache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();
  Object.assign(baseEnv, {
    // This Node first, as setup-node leaves it; npm's own cache, so the build installs as offline as it can.
    PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
    HOME: dir,
    LANG: 'C.UTF-8',
    LINKCTL_CONFIG_DIR: join(dir, 'config'),
    npm_config_cache: npmCache,
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
  });
  runner = new Runner({
    workspace: repo,
    actionSource: checkoutCopy(ROOT, join(dir, 'action-source')),
    actionRef: new RegExp(`^OWNER/linkctl@v${pkg.version.replace(/\./g, '\\.')}$`),
    github,
    secrets,
    vars: { LINKCTL_BASE_URL: sb.sandbox.url },
    baseEnv,
    root: join(dir, 'runner'),
  });
});
afterAll(async () => {
  await github?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `flow` for `event`; every job's log, summary and outputs are checked for the key. */
async function run(flow: Workflow, event: string, payload: Record<string, unknown> = {}): Promise<JobRun[]> {
  github.calls.length = 0;
  const jobs = await runner.runWorkflow(flow, event, payload);
  for (const job of jobs) {
    logs.push(job.log);
    expect(job.log, `${job.job}: the key in the log`).not.toContain(KEY);
    expect(job.log.toLowerCase()).not.toContain(KEY.toLowerCase());
    expect(job.summary).not.toContain(KEY);
    expect(JSON.stringify(job.outputs)).not.toContain(KEY);
  }
  for (const comment of github.comments) expect(comment.body).not.toContain(KEY);
  return jobs;
}

const pullRequest = () => run(workflow, 'pull_request', { number: PULL_REQUEST, pull_request: { number: PULL_REQUEST } });
const step = (job: JobRun, name: string) => job.steps.find((s) => s.name === name)!;
const links = (aliases: string[]) => `version: 1\nlinks:\n${aliases.map((a) => `  - alias: ${a}\n    url: https://example.com/${a}\n`).join('')}`;
const ALIASES = Array.from({ length: 12 }, (_, i) => `promo-${String(i + 1).padStart(2, '0')}`);
const apiCalls = () => github.calls.map((c) => `${c.method} ${c.path}${c.query.page ? `?page=${c.query.page}` : ''}${c.authorized ? '' : ' (no token)'}`);
const COMMENTS = `/repos/acme/links/issues/${PULL_REQUEST}/comments`;
const MARKER = '<!-- linkctl plan: account.yaml -->\n';

describe('examples/ci/github-actions.yml with the action', () => {
  it('runs on pull requests, on pushes to main, and on a schedule, with the action pinned to this version', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push', 'schedule']);
    expect((workflow.on.push as { branches: string[] }).branches).toEqual(['main']);
    expect(workflow.env).toMatchObject({ LINKCTL_BASE_URL: expect.any(String), LINKCTL_API_KEY: expect.any(String) });
    const uses = Object.values(workflow.jobs).flatMap((job) => job.steps.map((s) => s.uses).filter((u) => u?.includes('linkctl')));
    expect(uses).toEqual(Array(3).fill(`OWNER/linkctl@v${pkg.version}`));
    expect(workflow.jobs.plan!.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
  });

  it('a pull request gets the plan as one comment, updated in place on the next push; the account is not changed', async () => {
    // Someone else's comments come first: the plan's own is on the second page of 100. One of them
    // starts with the plan's marker (anyone can write it): it is not the plan's comment, and stays as it is.
    const SPOOF = `${MARKER}**linkctl plan**: no changes (a comment of someone else's)`;
    for (let i = 0; i < 120; i++) github.comments.push({ id: i + 1, issue: PULL_REQUEST, body: i === 60 ? SPOOF : `review note ${i} <!-- linkctl plan: account.yaml -->`, user: { login: 'someone', type: 'User' } });
    writeFileSync(join(repo, 'account.yaml'), links(ALIASES));
    const [job] = await pullRequest();
    expect(job!.conclusion, job!.log).toBe('success');
    // The first job builds linkctl from the action's checkout, without a warning from npm.
    const build = step(job!, 'Build linkctl');
    expect(build.outcome, build.stderr).toBe('success');
    expect(build.stderr).not.toMatch(/npm warn|npm WARN/);
    expect(step(job!, 'Put linkctl on PATH').stdout).toContain(`linkctl ${pkg.version}, built from `);
    // The token's user first: the job's GITHUB_TOKEN has none (403), so its comments are github-actions[bot]'s.
    expect(apiCalls()).toEqual(['GET /user', `GET ${COMMENTS}?page=1`, `GET ${COMMENTS}?page=2`, `POST ${COMMENTS}`]);
    const mine = github.comments.filter((c) => c.body.startsWith(MARKER) && c.user.login === 'github-actions[bot]');
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body.slice(MARKER.length)).toMatch(/^\*\*linkctl plan\*\*: 12 to add, 0 to change, 0 to delete\.\n\n<details>\n<summary>12 changes<\/summary>\n\n- \*\*add\*\* link `promo-01`\n/);
    expect(job!.summary).toContain('**linkctl plan**: 12 to add');
    expect(sent(sb.sandbox).filter((r) => r.method !== 'GET')).toEqual([]);

    // The next push to the pull request: the same comment, edited; no new one. A cached build.
    writeFileSync(join(repo, 'account.yaml'), links(ALIASES.slice(0, 5)));
    const [again] = await pullRequest();
    expect(again!.conclusion, again!.log).toBe('success');
    expect(step(again!, 'Build linkctl').outcome).toBe('skipped');
    expect(apiCalls()).toEqual(['GET /user', `GET ${COMMENTS}?page=1`, `GET ${COMMENTS}?page=2`, `PATCH /repos/acme/links/issues/comments/${mine[0]!.id}`]);
    expect(github.comments.filter((c) => c.body.startsWith(MARKER))).toEqual([{ id: 61, issue: PULL_REQUEST, body: SPOOF, user: { login: 'someone', type: 'User' } }, { ...mine[0], body: expect.stringContaining('**linkctl plan**: 5 to add, 0 to change, 0 to delete.') }]);
    expect(github.comments.filter((c) => c.user.login === 'someone').every((c) => c.body.startsWith('review note') || c.body === SPOOF)).toBe(true);
  }, SLOW);

  it('a merge to main applies the file, a pull request then shows no changes, and the schedule finds no drift', async () => {
    writeFileSync(join(repo, 'account.yaml'), links(ALIASES));
    const [push] = await run(workflow, 'push');
    expect(push!.conclusion, push!.log).toBe('success');
    expect(step(push!, 'linkctl apply').stdout).toContain('Applied: 12 added, 0 changed, 0 deleted.\n');
    expect(sent(sb.sandbox).filter((r) => r.method === 'POST' && r.path === '/api/url/add')).toHaveLength(12);
    expect(apiCalls()).toEqual([]);

    await pullRequest();
    expect(github.comments.filter((c) => c.body.startsWith(MARKER) && c.user.login === 'github-actions[bot]')).toEqual([expect.objectContaining({ body: `${MARKER}**linkctl plan**: no changes, the account matches the file.\n` })]);

    const [drift] = await run(workflow, 'schedule');
    expect(drift!.conclusion, drift!.log).toBe('success');
    expect(step(drift!, 'linkctl drift').code).toBe(0);
  }, SLOW);

  it('the schedule fails (exit 2) when the account was changed by hand', async () => {
    writeFileSync(join(repo, 'account.yaml'), links(ALIASES));
    expect((await run(workflow, 'push'))[0]!.conclusion).toBe('success');
    const byHand = await runMain(['link', 'add', 'https://example.com/by-hand', '--alias', 'by-hand'], { env: sb.env });
    expect(byHand.code, byHand.stderr).toBe(0);
    const [drift] = await run(workflow, 'schedule');
    expect(drift!.conclusion).toBe('failure');
    const check = step(drift!, 'linkctl drift');
    expect(check.code).toBe(2);
    expect(check.stdout).toContain('- link by-hand\nPlan: 0 to add, 0 to change, 1 to delete.');
    expect(check.stdout).toContain('::error title=linkctl drift::the account no longer matches account.yaml');
  }, SLOW);

  it('a merge that would delete more than 10 records is refused, and nothing is deleted', async () => {
    writeFileSync(join(repo, 'account.yaml'), links(ALIASES));
    expect((await run(workflow, 'push'))[0]!.conclusion).toBe('success');
    writeFileSync(join(repo, 'account.yaml'), links(ALIASES.slice(0, 1)));
    sb.sandbox.requests.length = 0;
    const [push] = await run(workflow, 'push');
    expect(push!.conclusion).toBe('failure');
    const apply = step(push!, 'linkctl apply');
    expect(apply.code).toBe(2);
    expect(apply.stderr).toContain('the plan deletes 11 records, more than --max-deletes 10; nothing was changed');
    expect(sent(sb.sandbox).filter((r) => r.method !== 'GET')).toEqual([]);
  }, SLOW);

  it('a pull request whose file cannot be planned fails its check, and comments nothing', async () => {
    writeFileSync(join(repo, 'account.yaml'), 'version: 1\nlinks:\n  - alias: broken\n');
    const [job] = await pullRequest();
    expect(job!.conclusion).toBe('failure');
    expect(step(job!, 'linkctl plan')).toMatchObject({ outcome: 'failure', code: 1 });
    expect(step(job!, 'linkctl plan').stderr).toContain('account.yaml:3:5: links[0]: missing url');
    expect(step(job!, 'Comment the plan on the pull request').outcome).toBe('skipped');
    expect(apiCalls()).toEqual([]);
  }, SLOW);

  it('an input the action does not take is refused before anything is built or sent, naming it', async () => {
    sb.sandbox.requests.length = 0;
    const flow = parse(example.replace('job: drift', 'job: drfit').replace(/prune: true\n(?![\s\S]*prune: true)/, 'prune: yes\n')) as Workflow;
    const [job] = await run(flow, 'schedule');
    expect(job!.conclusion).toBe('failure');
    const inputs = step(job!, 'Check the inputs');
    expect(inputs.code).toBe(2);
    expect(inputs.stdout).toContain('::error title=linkctl action::job must be one of plan, apply, drift, snapshot, check (or empty, to only put linkctl on PATH), not "drfit"');
    expect(inputs.stdout).toContain("prune must be 'true' or 'false', not \"yes\"");
    // Nothing after the check ran: no build, no linkctl.
    expect(job!.steps.filter((s) => s.outcome !== 'skipped').map((s) => s.name)).toEqual(['actions/checkout@v4', 'actions/setup-node@v4', 'Check the inputs', `OWNER/linkctl@v${pkg.version}`]);
    expect(sb.sandbox.requests).toEqual([]);
  }, SLOW);
});

describe("the workflows of the README and docs/", () => {
  const [history, health] = ['job: snapshot', 'job: check'].map((job) => {
    const text = readmeWorkflows.find((w) => w.includes(job));
    if (!text) throw new Error(`the README has no workflow with ${job}`);
    return parse(text) as Workflow;
  });

  it('every workflow in the README and the example uses the action at this version; none installs linkctl from a registry', () => {
    expect(readmeWorkflows.length).toBeGreaterThanOrEqual(2);
    for (const text of [...readmeWorkflows, example]) {
      const flow = parse(text) as Workflow;
      const uses = Object.values(flow.jobs).flatMap((job) => job.steps.map((s) => s.uses ?? ''));
      expect(uses).toContain(`OWNER/linkctl@v${pkg.version}`);
      expect(uses.filter((u) => u.includes('linkctl'))).toEqual(uses.filter((u) => u === `OWNER/linkctl@v${pkg.version}`));
    }
    // No line anywhere a user copies from runs a package named linkctl from the registry: none is published.
    const registry = /\bnpx (-y |--yes )?linkctl\b|\bnpm (install|i|add) (-g |--global )?linkctl\b|\bnpm exec linkctl\b/;
    for (const file of [...DOCS, 'AGENTS.md', 'examples/ci/github-actions.yml', 'skills/linkctl/SKILL.md', 'action.yml']) {
      const lines = readFileSync(join(ROOT, file), 'utf8').split('\n').filter((line) => registry.test(line));
      expect(lines, file).toEqual([]);
    }
  });

  it('click history: each run restores the history artifact, adds a snapshot and keeps it again', async () => {
    const times = ['2026-06-01T06:15:00Z', '2026-06-02T06:15:00Z'];
    for (const [n, now] of times.entries()) {
      baseEnv.LINKCTL_NOW = now;
      const [job] = await run(history!, 'schedule');
      expect(job!.conclusion, job!.log).toBe('success');
      const restore = step(job!, 'Restore the history');
      expect(restore.stdout).toContain(n === 0 ? 'history: no artifact "linkctl-history" yet' : 'history: artifact "linkctl-history" of 2026-01-01T00:00:00.000Z');
      expect(step(job!, 'linkctl snapshot').stdout).toMatch(/^Snapshot /m);
      expect(apiCalls()).toEqual(n === 0 ? ['GET /repos/acme/links/actions/artifacts'] : ['GET /repos/acme/links/actions/artifacts', 'GET /repos/acme/links/actions/artifacts/500/zip', 'GET /storage/500 (no token)']);
    }
    expect(github.artifacts.map((a) => a.name)).toEqual(['linkctl-history', 'linkctl-history']);
    // A third run, with a step after the action that reads the history it restored: three snapshots.
    baseEnv.LINKCTL_NOW = '2026-06-03T06:15:00Z';
    const reader = structuredClone(history!);
    const steps = reader.jobs.snapshot!.steps;
    steps[0]!.id = 'linkctl';
    steps.push({ run: 'linkctl stats show --since 30d --json > show.json', env: { LINKCTL_DB: '${{ steps.linkctl.outputs.history }}' } });
    const [third] = await run(reader, 'workflow_dispatch');
    expect(third!.conclusion, third!.log).toBe('success');
    expect(JSON.parse(readFileSync(join(repo, 'show.json'), 'utf8'))).toMatchObject({ snapshots: 3 });
    delete baseEnv.LINKCTL_NOW;
  }, SLOW);

  it('snapshot, then check, in one job: the second use restores what the first kept and replaces its artifact (upload-artifact v4 fails a second upload of a name without overwrite)', async () => {
    baseEnv.LINKCTL_NOW = '2026-06-04T06:15:00Z';
    const both = structuredClone(history!);
    const steps = both.jobs.snapshot!.steps;
    steps.push({ ...structuredClone(steps[0]!), id: 'check', with: { job: 'check', 'fail-on': '' } });
    steps.push({ run: 'linkctl stats show --since 30d --json > show.json', env: { LINKCTL_DB: '${{ steps.check.outputs.history }}' } });
    const [job] = await run(both, 'workflow_dispatch').finally(() => delete baseEnv.LINKCTL_NOW);
    expect(job!.conclusion, job!.log).toBe('success');
    const keeps = job!.steps.filter((s) => s.name === 'Keep the history');
    expect(keeps.map((s) => s.outcome)).toEqual(['success', 'success']);
    // The check's restore found the snapshot's upload of this run.
    expect(job!.steps.filter((s) => s.name === 'Restore the history')[1]!.stdout).toMatch(/history: artifact "linkctl-history" of /);
    const ofThisRun = github.artifacts.filter((a) => a.runId === github.artifacts.at(-1)!.runId);
    expect(ofThisRun.map((a) => a.name)).toEqual(['linkctl-history']);
    // Four snapshots: three from the runs before, one from this; the check's run kept beside them.
    expect(JSON.parse(readFileSync(join(repo, 'show.json'), 'utf8'))).toMatchObject({ snapshots: 4 });
  }, SLOW);

  it('click history with LINKCTL_DB set keeps no artifact', async () => {
    // The secret a team sets for PostgreSQL; a file stands in for the URL here (the action passes it on as it is).
    const db = join(dir, 'team-history.db');
    secrets.HISTORY_DATABASE_URL = db;
    const before = github.artifacts.length;
    const [job] = await run(history!, 'schedule').finally(() => delete secrets.HISTORY_DATABASE_URL);
    expect(job!.conclusion, job!.log).toBe('success');
    expect(apiCalls()).toEqual([]);
    expect(step(job!, 'Restore the history').stdout).toContain('history: in the database LINKCTL_DB names (no artifact)');
    expect(step(job!, 'Keep the history').outcome).toBe('skipped');
    expect(github.artifacts.length).toBe(before);
    expect(readFileSync(db).subarray(0, 15).toString()).toBe('SQLite format 3');
  }, SLOW);

  it('link health: a broken destination fails the job, the report is written, and the history is kept all the same', async () => {
    const added = await runMain(['link', 'add', 'https://nothing-here.invalid/page', '--alias', 'gone'], { env: sb.env });
    expect(added.code, added.stderr).toBe(0);
    const before = github.artifacts.length;
    const [job] = await run(health!, 'schedule');
    expect(job!.conclusion).toBe('failure');
    const check = step(job!, 'linkctl check');
    expect(check.code, check.stderr).toBe(1);
    const report = JSON.parse(readFileSync(join(repo, 'linkctl-health.json'), 'utf8')) as Array<{ alias: string; status: string }>;
    expect(report.find((r) => r.alias === 'gone')).toMatchObject({ status: 'dns' });
    expect(step(job!, 'Keep the history').outcome).toBe('success');
    // The history, then the workflow's own step after the action: the report.
    expect(job!.steps.at(-1)).toMatchObject({ name: 'actions/upload-artifact@v4', outcome: 'success' });
    expect(github.artifacts.slice(before).map((a) => a.name)).toEqual(['linkctl-history', 'link-health']);
  }, SLOW);

  it('no job printed the key (every log of this file, collected)', () => {
    expect(logs.length).toBeGreaterThan(8);
    for (const log of logs) expect(log).not.toContain(KEY);
  });
});
