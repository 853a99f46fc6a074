/**
 * A small GitHub Actions runner for tests: it runs a workflow's jobs for an event as GitHub does,
 * each `run:` step in bash (`--noprofile --norc -eo pipefail`, the default shell) with the
 * variables GitHub sets (GITHUB_*, RUNNER_*, CI), `${{ }}` expressions and `if:` conditions
 * evaluated, step outputs and GITHUB_PATH carried between steps, and composite actions (this
 * repository's action.yml) run step by step from a fresh copy of the checkout for every job.
 * The few marketplace actions used are emulated: checkout and setup-node do nothing (the workspace
 * and this Node are there), cache keeps folders between jobs under their key (saved when the job
 * succeeds, as its post step does), upload-artifact zips its path into the fake GitHub API.
 * An expression, input or action this runner does not know fails the test rather than guessing.
 *
 * The fake GitHub REST API (127.0.0.1, port 0) answers what the action uses: a pull request's
 * comments (list, create, update) and the repository's artifacts (list, download through a
 * redirect to "storage"), checks the token, and records every call.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join, relative, resolve } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { parse } from 'yaml';

// ---------------------------------------------------------------- expressions

type Value = string | number | boolean | null | Record<string, unknown>;

export interface Contexts {
  [name: string]: unknown;
}

const TOKEN = /\s*(?:('(?:[^']|'')*')|(-?\d+(?:\.\d+)?)|(==|!=|&&|\|\||!|\(|\)|,)|([A-Za-z_][\w-]*(?:\.[A-Za-z_*][\w-]*)*))/y;

/** Evaluates a GitHub expression (the part inside `${{ }}`) over `contexts`; status functions ask `status`. */
export function evaluate(expression: string, contexts: Contexts, status: { failed: boolean } = { failed: false }): Value {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < expression.length && expression.slice(at).trim()) {
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(expression);
    if (!m) throw new Error(`expression ${JSON.stringify(expression)}: cannot read it at ${JSON.stringify(expression.slice(at))}`);
    tokens.push(m[0].trim());
    at = TOKEN.lastIndex;
  }
  let i = 0;
  const peek = () => tokens[i];
  const next = () => tokens[i++];
  const truthy = (v: Value) => !(v === false || v === 0 || v === '' || v === null || (typeof v === 'number' && Number.isNaN(v)));
  const number = (v: Value) => (v === null ? 0 : typeof v === 'boolean' ? Number(v) : typeof v === 'string' ? (v.trim() === '' ? 0 : Number(v)) : typeof v === 'number' ? v : NaN);
  const equal = (a: Value, b: Value) => (typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : number(a) === number(b));
  const primary = (): Value => {
    const t = next();
    if (t === undefined) throw new Error(`expression ${JSON.stringify(expression)} ends too early`);
    if (t === '(') {
      const v = or();
      if (next() !== ')') throw new Error(`expression ${JSON.stringify(expression)}: missing )`);
      return v;
    }
    if (t.startsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
    if (/^-?\d/.test(t)) return Number(t);
    if (t === 'true' || t === 'false') return t === 'true';
    if (t === 'null') return null;
    if (peek() === '(') {
      next();
      if (next() !== ')') throw new Error(`expression ${JSON.stringify(expression)}: ${t}() takes no arguments here`);
      if (t === 'success') return !status.failed;
      if (t === 'failure') return status.failed;
      if (t === 'always') return true;
      if (t === 'cancelled') return false;
      throw new Error(`expression ${JSON.stringify(expression)}: function ${t}() is not known to this runner`);
    }
    const [context, ...path] = t.split('.');
    if (!(context! in contexts)) throw new Error(`expression ${JSON.stringify(expression)}: context ${context} is not available here`);
    let value: unknown = contexts[context!];
    for (const key of path) {
      if (value === null || typeof value !== 'object') return null;
      if (context === 'inputs' && !(key in (value as object))) throw new Error(`expression ${JSON.stringify(expression)}: the action has no input ${key}`);
      if (context === 'github' && value === contexts.github && !(key in (value as object))) throw new Error(`expression ${JSON.stringify(expression)}: github.${key} is not provided by this runner`);
      value = (value as Record<string, unknown>)[key] ?? null;
    }
    return value as Value;
  };
  const unary = (): Value => (peek() === '!' ? (next(), !truthy(unary())) : comparison());
  const comparison = (): Value => {
    const left = primary();
    const op = peek();
    if (op === '==' || op === '!=') {
      next();
      const right = primary();
      return op === '==' ? equal(left, right) : !equal(left, right);
    }
    return left;
  };
  const and = (): Value => {
    let v = unary();
    while (peek() === '&&') {
      next();
      const r = unary();
      v = truthy(v) ? r : v;
    }
    return v;
  };
  const or = (): Value => {
    let v = and();
    while (peek() === '||') {
      next();
      const r = and();
      v = truthy(v) ? v : r;
    }
    return v;
  };
  const value = or();
  if (i !== tokens.length) throw new Error(`expression ${JSON.stringify(expression)}: unexpected ${tokens[i]}`);
  return value;
}

const asText = (v: Value) => (v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** A string with each `${{ expression }}` replaced by its value. */
export function substitute(text: string, contexts: Contexts, status?: { failed: boolean }): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expression: string) => asText(evaluate(expression, contexts, status)));
}

/** An `if:` as GitHub reads it: bare or in `${{ }}`, and `success() &&` unless it asks for a status itself. */
function condition(text: string | undefined, contexts: Contexts, status: { failed: boolean }): boolean {
  if (text === undefined) return !status.failed;
  const expression = String(text).trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  const asksStatus = /\b(success|failure|always|cancelled)\(\)/.test(expression);
  const v = evaluate(asksStatus ? expression : `success() && (${expression})`, contexts, status);
  return !(v === false || v === 0 || v === '' || v === null);
}

// ---------------------------------------------------------------- the fake GitHub API

export interface ApiCall {
  method: string;
  path: string;
  query: Record<string, string>;
  authorized: boolean;
  body?: unknown;
}

export interface Comment {
  id: number;
  issue: number;
  body: string;
  user: { login: string; type: string };
}

export interface Artifact {
  id: number;
  name: string;
  created_at: string;
  expired: boolean;
  zip: Buffer;
  /** The workflow run that uploaded it: upload-artifact v4 refuses a second artifact of one name in one run. */
  runId: number;
}

export interface FakeGitHub {
  url: string;
  token: string;
  repository: string;
  calls: ApiCall[];
  comments: Comment[];
  artifacts: Artifact[];
  close(): Promise<void>;
}

export async function startFakeGitHub(token: string, repository = 'acme/links'): Promise<FakeGitHub> {
  const calls: ApiCall[] = [];
  const comments: Comment[] = [];
  const artifacts: Artifact[] = [];
  let nextId = 1000;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let raw = '';
    request.setEncoding('utf8').on('data', (d) => (raw += d));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const authorized = request.headers.authorization === `Bearer ${token}`;
      const body = raw ? (JSON.parse(raw) as unknown) : undefined;
      calls.push({ method: request.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), authorized, ...(body === undefined ? {} : { body }) });
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(JSON.stringify(value));
      };
      // Storage: reached through the artifact's redirect, with a signature and no token.
      const stored = /^\/storage\/(\d+)$/.exec(url.pathname);
      if (stored) {
        const artifact = artifacts.find((a) => a.id === Number(stored[1]));
        if (!artifact || url.searchParams.get('sig') !== `signed-${artifact.id}`) return json(403, { message: 'bad signature' });
        response.writeHead(200, { 'content-type': 'application/zip' });
        return response.end(artifact.zip);
      }
      if (!authorized) return json(401, { message: 'Bad credentials' });
      // The job's GITHUB_TOKEN is an app installation's: it has no user (its comments are github-actions[bot]'s).
      if (url.pathname === '/user') return json(403, { message: 'Resource not accessible by integration' });
      const prefix = `/repos/${repository}`;
      if (!url.pathname.startsWith(`${prefix}/`)) return json(404, { message: 'Not Found' });
      const path = url.pathname.slice(prefix.length);
      let m: RegExpExecArray | null;
      if ((m = /^\/issues\/(\d+)\/comments$/.exec(path))) {
        const issue = Number(m[1]);
        if (request.method === 'GET') {
          const perPage = Number(url.searchParams.get('per_page') ?? 30);
          const page = Number(url.searchParams.get('page') ?? 1);
          return json(200, comments.filter((c) => c.issue === issue).slice((page - 1) * perPage, page * perPage));
        }
        if (request.method === 'POST') {
          const comment = { id: nextId++, issue, body: (body as { body: string }).body, user: { login: 'github-actions[bot]', type: 'Bot' } };
          comments.push(comment);
          return json(201, { ...comment, html_url: `https://github.invalid/${repository}/pull/${issue}#issuecomment-${comment.id}` });
        }
      }
      if ((m = /^\/issues\/comments\/(\d+)$/.exec(path)) && request.method === 'PATCH') {
        const comment = comments.find((c) => c.id === Number(m![1]));
        if (!comment) return json(404, { message: 'Not Found' });
        comment.body = (body as { body: string }).body;
        return json(200, { ...comment, html_url: `https://github.invalid/${repository}/pull/${comment.issue}#issuecomment-${comment.id}` });
      }
      if (path === '/actions/artifacts' && request.method === 'GET') {
        const named = artifacts.filter((a) => !url.searchParams.get('name') || a.name === url.searchParams.get('name'));
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        return json(200, {
          total_count: named.length,
          // Oldest first, as GitHub does not promise an order: the action must pick the newest itself.
          artifacts: named.map((a) => ({ id: a.id, name: a.name, created_at: a.created_at, expired: a.expired, size_in_bytes: a.zip.length, archive_download_url: `${base}${prefix}/actions/artifacts/${a.id}/zip` })),
        });
      }
      if ((m = /^\/actions\/artifacts\/(\d+)\/zip$/.exec(path)) && request.method === 'GET') {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        return json(302, {}, { location: `${base}/storage/${m[1]}?sig=signed-${m[1]}` });
      }
      return json(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    repository,
    calls,
    comments,
    artifacts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A zip archive of `files` (deflated), as upload-artifact makes. */
export function zip(files: Array<{ name: string; data: Buffer }>): Buffer {
  const parts: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of files) {
    const compressed = deflateRawSync(data);
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    parts.push(local, nameBytes, compressed);
    directory.push(central, nameBytes);
    offset += local.length + nameBytes.length + compressed.length;
  }
  const size = directory.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, ...directory, end]);
}

// ---------------------------------------------------------------- the runner

interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
  'working-directory'?: string;
  'continue-on-error'?: boolean;
}

export interface Workflow {
  on: Record<string, unknown>;
  env?: Record<string, unknown>;
  permissions?: Record<string, string>;
  jobs: Record<string, { if?: string; env?: Record<string, unknown>; permissions?: Record<string, string>; steps: Step[] }>;
}

interface ActionFile {
  inputs?: Record<string, { required?: boolean; default?: string }>;
  outputs?: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

export interface StepRun {
  name: string;
  outcome: 'success' | 'failure' | 'skipped';
  code?: number | null;
  stdout: string;
  stderr: string;
}

export interface JobRun {
  job: string;
  conclusion: 'success' | 'failure';
  /** Every step, the composite action's own steps among them, in order. */
  steps: StepRun[];
  /** What the job printed, as its log shows it (stdout and stderr of every step). */
  log: string;
  summary: string;
  outputs: Record<string, Record<string, string>>;
}

export interface RunnerOptions {
  /** The repository's checkout: the workspace. */
  workspace: string;
  /** The action's source, copied afresh for every job, as GitHub downloads it. */
  actionSource: string;
  /** `uses:` values that mean this action (e.g. `OWNER/linkctl@v0.1.0`). */
  actionRef: RegExp;
  github: FakeGitHub;
  secrets: Record<string, string>;
  vars?: Record<string, string>;
  /** The machine's environment under GitHub's variables and the workflow's env (PATH, HOME, npm's cache). */
  baseEnv: Record<string, string>;
  /** Scratch space: runner temp, caches, event files. */
  root: string;
}

export class Runner {
  private caches = new Map<string, Map<string, string>>();
  private uploads = 0;
  /** Workflow runs (GITHUB_RUN_ID, shared by a run's jobs) and jobs run (each its own folder). */
  private runs = 0;
  private jobs = 0;
  constructor(private readonly options: RunnerOptions) {}

  /** Runs every job of `workflow` whose `if:` holds for `event`, one after the other (they do not depend on each other). */
  async runWorkflow(workflow: Workflow, event: string, payload: Record<string, unknown> = {}): Promise<JobRun[]> {
    if (!(event in workflow.on)) throw new Error(`the workflow does not run on ${event}`);
    const runs: JobRun[] = [];
    const runId = ++this.runs;
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const run = await this.runJob(runId, name, job, workflow.env ?? {}, event, payload);
      if (run) runs.push(run);
    }
    return runs;
  }

  private async runJob(runId: number, name: string, job: Workflow['jobs'][string], workflowEnv: Record<string, unknown>, event: string, payload: Record<string, unknown>): Promise<JobRun | undefined> {
    const temp = join(this.options.root, `job-${++this.jobs}`);
    mkdirSync(join(temp, 'tmp'), { recursive: true });
    const eventPath = join(temp, 'event.json');
    writeFileSync(eventPath, JSON.stringify(payload));
    const github = {
      event_name: event,
      event: payload,
      token: 'ghs_test_token',
      repository: this.options.github.repository,
      workspace: this.options.workspace,
      api_url: this.options.github.url,
      run_id: String(runId),
      action_path: '',
    };
    const base = { github, secrets: this.options.secrets, vars: this.options.vars ?? {}, runner: { os: 'Linux', temp: join(temp, 'tmp'), tool_cache: join(this.options.root, 'tool-cache') } };
    const status = { failed: false };
    if (job.if !== undefined && !condition(job.if, { ...base, env: {} }, status)) return undefined;
    const summary = join(temp, 'summary.md');
    writeFileSync(summary, '');
    const state: JobState = {
      name,
      temp,
      status,
      paths: [],
      steps: [],
      log: [],
      pendingSaves: [],
      env: {
        // What GitHub sets for every step (https://docs.github.com/actions/reference/variables-reference).
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_API_URL: this.options.github.url,
        GITHUB_SERVER_URL: 'https://github.invalid',
        GITHUB_REPOSITORY: this.options.github.repository,
        GITHUB_EVENT_NAME: event,
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_WORKSPACE: this.options.workspace,
        GITHUB_RUN_ID: String(runId),
        GITHUB_JOB: name,
        GITHUB_STEP_SUMMARY: summary,
        RUNNER_OS: 'Linux',
        RUNNER_TEMP: join(temp, 'tmp'),
        RUNNER_TOOL_CACHE: join(this.options.root, 'tool-cache'),
      },
    };
    const jobEnv: Record<string, string> = {};
    const contexts = { ...base, env: jobEnv };
    for (const [k, v] of Object.entries({ ...workflowEnv, ...job.env })) jobEnv[k] = substitute(String(v), contexts, status);
    const outputs: Record<string, Record<string, string>> = {};
    await this.runSteps(job.steps, state, contexts, outputs, jobEnv);
    // actions/cache's post step: save what missed, when the job succeeded.
    if (!status.failed) for (const save of state.pendingSaves) save();
    return { job: name, conclusion: status.failed ? 'failure' : 'success', steps: state.steps, log: state.log.join(''), summary: readFileSync(summary, 'utf8'), outputs };
  }

  private async runSteps(steps: Step[], state: JobState, contexts: Contexts, outputs: Record<string, Record<string, string>>, env: Record<string, string>): Promise<void> {
    const stepsContext: Record<string, { outputs: Record<string, string>; outcome: string }> = {};
    const scope = { ...contexts, steps: stepsContext, env };
    for (const step of steps) {
      const name = substitute(step.name ?? step.uses ?? step.run ?? '', scope, state.status);
      const record = (outcome: StepRun['outcome'], stepOutputs: Record<string, string>, extra: Partial<StepRun> = {}) => {
        if (step.id) stepsContext[step.id] = { outputs: stepOutputs, outcome };
        if (step.id) outputs[step.id] = stepOutputs;
        state.steps.push({ name, outcome, stdout: '', stderr: '', ...extra });
        if (outcome === 'failure' && !step['continue-on-error']) state.status.failed = true;
      };
      if (!condition(step.if, scope, state.status)) {
        record('skipped', {});
        continue;
      }
      const stepEnv: Record<string, string> = { ...env };
      for (const [k, v] of Object.entries(step.env ?? {})) stepEnv[k] = substitute(String(v), scope, state.status);
      if (step.run !== undefined) {
        if (/\$\{\{/.test(step.run)) throw new Error(`step "${name}": expressions go through env:, never into a script`);
        const r = await this.bash(step.run, state, stepEnv, step['working-directory'] ? substitute(step['working-directory'], scope, state.status) : this.options.workspace);
        record(r.code === 0 ? 'success' : 'failure', r.outputs, { code: r.code, stdout: r.stdout, stderr: r.stderr });
        continue;
      }
      const uses = step.uses ?? '';
      const withs: Record<string, string> = {};
      for (const [k, v] of Object.entries(step.with ?? {})) withs[k] = substitute(String(v), scope, state.status);
      if (this.options.actionRef.test(uses)) {
        const result = await this.runAction(withs, state, contexts, stepEnv);
        record(result.failed ? 'failure' : 'success', result.outputs);
      } else if (/^actions\/(checkout|setup-node)@v4$/.test(uses)) {
        record('success', {});
      } else if (uses === 'actions/cache@v4') {
        record('success', this.cache(withs, state));
      } else if (uses === 'actions/upload-artifact@v4') {
        const uploaded = this.upload(withs, Number(state.env.GITHUB_RUN_ID));
        if (typeof uploaded === 'string') {
          state.log.push(`${uploaded}\n`);
          record('failure', {}, { stderr: uploaded });
        } else record('success', uploaded);
      } else {
        throw new Error(`step "${name}": uses ${uses}, which this runner does not know`);
      }
    }
  }

  /** The composite action: inputs from `with:` or their defaults, its steps, its outputs. */
  private async runAction(withs: Record<string, string>, state: JobState, contexts: Contexts, env: Record<string, string>) {
    // Where GitHub puts a downloaded action: the same path in every job, downloaded afresh for each.
    const dir = join(this.options.root, '_actions', 'linkctl');
    rmSync(dir, { recursive: true, force: true });
    cpSync(this.options.actionSource, dir, { recursive: true });
    const action = parse(readFileSync(join(dir, 'action.yml'), 'utf8')) as ActionFile;
    if (action.runs.using !== 'composite') throw new Error('action.yml is not a composite action');
    const declared = action.inputs ?? {};
    for (const key of Object.keys(withs)) if (!(key in declared)) throw new Error(`the workflow gives the action an input it does not have: ${key}`);
    const github = { ...(contexts.github as object), action_path: dir };
    const inputs: Record<string, string> = {};
    for (const [key, input] of Object.entries(declared)) {
      if (input.required && withs[key] === undefined) throw new Error(`the action's input ${key} is required`);
      inputs[key] = withs[key] ?? substitute(String(input.default ?? ''), { ...contexts, github }, state.status);
    }
    const scope = { ...contexts, github, inputs };
    const outputs: Record<string, Record<string, string>> = {};
    const before = state.status.failed;
    state.status.failed = false;
    await this.runSteps(action.runs.steps, state, scope, outputs, { ...env, GITHUB_ACTION_PATH: dir });
    const failed = state.status.failed;
    state.status.failed = before || failed;
    const steps = Object.fromEntries(Object.entries(outputs).map(([id, o]) => [id, { outputs: o }]));
    const actionOutputs: Record<string, string> = {};
    for (const [key, output] of Object.entries(action.outputs ?? {})) actionOutputs[key] = substitute(output.value, { ...scope, steps, env }, state.status);
    return { failed, outputs: actionOutputs };
  }

  private cache(withs: Record<string, string>, state: JobState): Record<string, string> {
    const paths = withs.path!.split('\n').map((p) => p.trim()).filter(Boolean).map((p) => resolve(this.options.workspace, p));
    const key = withs.key!;
    if (!key) throw new Error('actions/cache without a key');
    const saved = this.caches.get(key);
    if (saved) {
      // Restored to the paths this step names (the same strings as when it was saved, as GitHub requires).
      for (const path of paths) if (saved.has(path)) cpSync(saved.get(path)!, path, { recursive: true });
      return { 'cache-hit': 'true' };
    }
    state.pendingSaves.push(() => {
      const copies = new Map<string, string>();
      for (const path of paths) {
        if (!existsSync(path)) continue;
        const copy = join(this.options.root, 'caches', String(this.caches.size), relative('/', path));
        cpSync(path, copy, { recursive: true });
        copies.set(path, copy);
      }
      this.caches.set(key, copies);
    });
    return { 'cache-hit': 'false' };
  }

  /** upload-artifact v4: its outputs, or the error it fails with. */
  private upload(withs: Record<string, string>, runId: number): Record<string, string> | string {
    const path = resolve(this.options.workspace, withs.path!);
    const files = !existsSync(path) ? [] : statSync(path).isDirectory() ? readdirSync(path).map((name) => ({ name, data: readFileSync(join(path, name)) })) : [{ name: basename(path), data: readFileSync(path) }];
    if (!files.length) {
      if (withs['if-no-files-found'] === 'error') throw new Error(`upload-artifact: no files at ${path}`);
      return {};
    }
    const artifacts = this.options.github.artifacts;
    const same = artifacts.findIndex((a) => a.runId === runId && a.name === withs.name);
    if (same >= 0) {
      // What v4 answers (actions/upload-artifact issues 478, 487); `overwrite: true` deletes the earlier one first.
      if (withs.overwrite !== 'true') return 'Error: Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run';
      artifacts.splice(same, 1);
    }
    const id = 500 + this.uploads++;
    // A second apart, so that "the newest" is never a tie.
    artifacts.push({ id, name: withs.name!, created_at: new Date(Date.UTC(2026, 0, 1) + (id - 500) * 1000).toISOString(), expired: false, zip: zip(files), runId });
    return { 'artifact-id': String(id) };
  }

  private bash(script: string, state: JobState, env: Record<string, string>, cwd: string) {
    const file = join(state.temp, `step-${state.steps.length}.sh`);
    writeFileSync(file, script);
    const outputFile = join(state.temp, `output-${state.steps.length}`);
    const pathFile = join(state.temp, `path-${state.steps.length}`);
    writeFileSync(outputFile, '');
    writeFileSync(pathFile, '');
    const fullEnv = { ...this.options.baseEnv, ...env, ...state.env, GITHUB_OUTPUT: outputFile, GITHUB_PATH: pathFile, PATH: [...state.paths, env.PATH ?? this.options.baseEnv.PATH].join(':') };
    return new Promise<{ code: number | null; stdout: string; stderr: string; outputs: Record<string, string> }>((resolve, reject) => {
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], { cwd, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => ((stdout += d), state.log.push(d)));
      child.stderr.setEncoding('utf8').on('data', (d: string) => ((stderr += d), state.log.push(d)));
      child.on('error', reject);
      child.on('close', (code) => {
        const outputs: Record<string, string> = {};
        Object.assign(outputs, parseOutputs(readFileSync(outputFile, 'utf8')));
        // GITHUB_PATH: each line is put in front of PATH for the job's later steps.
        for (const line of readFileSync(pathFile, 'utf8').split('\n').reverse()) if (line) state.paths.unshift(line);
        resolve({ code, stdout, stderr, outputs });
      });
    });
  }
}

/** GITHUB_OUTPUT as the runner reads it: `name=value` lines, and `name<<DELIMITER` ... `DELIMITER` for a value of several lines. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      if (end < 0) throw new Error(`GITHUB_OUTPUT: no end of the value of ${heredoc[1]} (delimiter ${heredoc[2]})`);
      outputs[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq > 0) outputs[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return outputs;
}

interface JobState {
  name: string;
  temp: string;
  status: { failed: boolean };
  paths: string[];
  steps: StepRun[];
  log: string[];
  pendingSaves: Array<() => void>;
  env: Record<string, string>;
}

/** A checkout of the repository as GitHub downloads an action: its files, no node_modules, dist or .git. */
export function checkoutCopy(root: string, into: string): string {
  cpSync(root, into, {
    recursive: true,
    filter: (src) => !/(^|\/)(node_modules|\.git|dist|\.vitest-cache)$/.test(src.slice(root.length - 1)) && !src.endsWith('.tgz'),
  });
  return into;
}
