// The parts of action.yml that talk to GitHub or read its files, in Node (set up by the action, no
// dependencies): `inputs` checks the action's inputs, `build-key` names the cached build,
// `restore-history` downloads the newest history artifact, `comment` posts or updates the plan
// comment. The REST API is GITHUB_API_URL (GitHub sets it; a test points it at a fake server).
// The token is read from the environment and sent only to that API, never printed.
import { createHash, randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const env = process.env;
const JOBS = ['plan', 'apply', 'drift', 'snapshot', 'check'];
/** GitHub's limit for a comment is 65,536 characters; `plan -o markdown` stays under 60,000 and the marker is short. */
const COMMENT_LIMIT = 65_536;
/** Pages of 100 comments read to find the plan's comment: a pull request with more is not ordinary. */
const MAX_COMMENT_PAGES = 100;
/** The history files an artifact may hold: the database and SQLite's write-ahead files. */
const HISTORY_FILES = /^history\.db(-wal|-shm)?$/;
const MAX_HISTORY_BYTES = 2 ** 31;

class Failure extends Error {
  constructor(message, code = 1) {
    super(message);
    this.code = code;
  }
}

/** A step output in GitHub's delimiter form, under a delimiter nobody can guess: a value with a line break stays one value. */
function output(name, value) {
  const delimiter = `linkctl_${randomUUID()}`;
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, `${name}<<${delimiter}\n${value}\n${delimiter}\n`);
}

/** Text from GitHub, made printable and short before it reaches the log. */
function printable(text) {
  return String(text).replace(/[^\x20-\x7e]+/g, ' ').slice(0, 300);
}

function checkInputs() {
  const problems = [];
  if (!['', ...JOBS].includes(env.LINKCTL_JOB ?? '')) problems.push(`job must be one of ${JOBS.join(', ')} (or empty, to only put linkctl on PATH), not "${printable(env.LINKCTL_JOB)}"`);
  for (const [input, value] of [['prune', env.LINKCTL_PRUNE], ['comment', env.LINKCTL_COMMENT]]) {
    if (value !== 'true' && value !== 'false') problems.push(`${input} must be 'true' or 'false', not "${printable(value)}"`);
  }
  if (!/^(\d+)?$/.test(env.LINKCTL_MAX_DELETES ?? '')) problems.push(`max-deletes must be a whole number of records (0 allows no deletion; empty: no limit), not "${printable(env.LINKCTL_MAX_DELETES)}"`);
  if (!/^[1-9]\d*$/.test(env.LINKCTL_RETENTION ?? '')) problems.push(`history-retention-days must be a whole number of days (1 to 90, or your repository's maximum), not "${printable(env.LINKCTL_RETENTION)}"`);
  if (problems.length) throw new Failure(problems.join('\n'), 2);
}

/** Every file of the checkout but what the build makes: a change to any of them is another build. */
function buildKey() {
  const root = env.GITHUB_ACTION_PATH;
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (dir === root && ['node_modules', 'dist', '.git'].includes(entry.name)) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) hash.update(`${relative(root, path)}\0`).update(readFileSync(path)).update('\0');
    }
  };
  walk(root);
  const key = `linkctl-build-${process.platform}-${process.arch}-node${process.versions.node}-${hash.digest('hex').slice(0, 20)}`;
  output('key', key);
  console.log(`cache key ${key}`);
}

/** A request to GitHub's REST API (or a URL it gave), with the token; an error names what failed and why. */
async function github(method, path, body) {
  const base = (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '');
  const url = path.startsWith('http') ? path : `${base}${path}`;
  if (!env.GITHUB_TOKEN) throw new Failure('no GitHub token: the github-token input is empty');
  const response = await fetch(url, {
    method,
    redirect: 'manual',
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${env.GITHUB_TOKEN}`,
      'x-github-api-version': '2022-11-28',
      'user-agent': 'linkctl-action',
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(60_000),
  });
  if (response.status >= 300 && response.status < 400) return response;
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    let message = text;
    try {
      message = JSON.parse(text).message ?? text;
    } catch {}
    const hint = response.status === 403 || response.status === 404 ? permissionHint(path) : '';
    throw new Failure(`GitHub API: ${method} ${path.replace(/\?.*/, '')}: ${response.status} ${printable(message)}${hint}`);
  }
  return response;
}

function permissionHint(path) {
  if (path.includes('/actions/artifacts')) return ' (the job needs `permissions: actions: read` to read the history artifact)';
  if (path.includes('/comments')) return ' (the job needs `permissions: pull-requests: write`; a pull request from a fork gets a read-only token)';
  return '';
}

function repository() {
  if (!/^[\w.-]+\/[\w.-]+$/.test(env.GITHUB_REPOSITORY ?? '')) throw new Failure('GITHUB_REPOSITORY is not set: this runs in a GitHub Actions job');
  return env.GITHUB_REPOSITORY;
}

async function comment() {
  const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8'));
  const number = event.pull_request?.number ?? event.number;
  if (!Number.isInteger(number)) throw new Failure('this event has no pull request to comment on');
  const plan = readFileSync(env.LINKCTL_PLAN, 'utf8');
  // One comment per account file, found again by this line (an HTML comment: not shown).
  const marker = `<!-- linkctl plan: ${String(env.LINKCTL_FILE).replace(/-{2,}|[<>\r\n]/g, '_')} -->`;
  let body = `${marker}\n${plan}`;
  if (body.length > COMMENT_LIMIT) body = `${body.slice(0, COMMENT_LIMIT - 200)}\n\n… (cut at GitHub's comment limit; the job's log has the whole plan)\n`;
  const repo = repository();
  // Only a comment the token's own user wrote is the plan's: anyone can write the marker.
  const me = await tokenUser();
  let existing;
  for (let page = 1; page <= MAX_COMMENT_PAGES && !existing; page++) {
    const comments = await (await github('GET', `/repos/${repo}/issues/${number}/comments?per_page=100&page=${page}`)).json();
    if (!Array.isArray(comments)) throw new Failure('GitHub API: the comments of the pull request are not a list');
    existing = comments.find((c) => typeof c?.body === 'string' && c.body.startsWith(marker) && c.user?.login === me);
    if (comments.length < 100) break;
  }
  if (existing) {
    const updated = await (await github('PATCH', `/repos/${repo}/issues/comments/${Number(existing.id)}`, { body })).json();
    console.log(`updated the plan's comment on pull request #${number}: ${printable(updated.html_url ?? existing.id)}`);
  } else {
    const created = await (await github('POST', `/repos/${repo}/issues/${number}/comments`, { body })).json();
    console.log(`posted the plan on pull request #${number}: ${printable(created.html_url ?? created.id)}`);
  }
}

/**
 * The login of the token's user: GET /user for a personal token; the job's own GITHUB_TOKEN is
 * an app installation's, which GET /user refuses (403, "Resource not accessible by integration"),
 * and writes as github-actions[bot].
 */
async function tokenUser() {
  const base = (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '');
  if (!env.GITHUB_TOKEN) throw new Failure('no GitHub token: the github-token input is empty');
  const response = await fetch(`${base}/user`, {
    redirect: 'manual',
    headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${env.GITHUB_TOKEN}`, 'x-github-api-version': '2022-11-28', 'user-agent': 'linkctl-action' },
    signal: AbortSignal.timeout(60_000),
  });
  if (response.status === 403) return 'github-actions[bot]';
  if (!response.ok) throw new Failure(`GitHub API: GET /user: ${response.status}: the token's user is needed to find the plan's own comment`);
  const user = await response.json();
  if (typeof user?.login !== 'string') throw new Failure('GitHub API: GET /user gave no login');
  return user.login;
}

async function restoreHistory() {
  if (env.LINKCTL_DB) {
    // Its value may hold a password: not printed.
    console.log('history: in the database LINKCTL_DB names (no artifact)');
    return;
  }
  const name = env.LINKCTL_HISTORY_ARTIFACT;
  const dir = join(env.RUNNER_TEMP, 'linkctl-history');
  mkdirSync(dir, { recursive: true });
  const repo = repository();
  const listed = await (await github('GET', `/repos/${repo}/actions/artifacts?name=${encodeURIComponent(name)}&per_page=100`)).json();
  const newest = (listed.artifacts ?? [])
    .filter((a) => a && a.name === name && !a.expired && typeof a.archive_download_url === 'string')
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))[0];
  if (!newest) {
    console.log(`history: no artifact "${printable(name)}" yet (or every one expired): this run starts the history`);
  } else {
    // The archive URL answers with a redirect to storage that must not get the token.
    const answer = await github('GET', newest.archive_download_url);
    const location = answer.headers.get('location');
    const archive = location ? await fetch(location, { signal: AbortSignal.timeout(600_000) }) : answer;
    if (!archive.ok) throw new Failure(`history: downloading artifact ${Number(newest.id)} failed: ${archive.status}`);
    const files = unzip(Buffer.from(await archive.arrayBuffer()));
    if (!files.has('history.db')) throw new Failure(`history: artifact ${Number(newest.id)} "${printable(name)}" holds no history.db; remove it or choose another history-artifact`);
    for (const [file, bytes] of files) writeFileSync(join(dir, file), bytes, { mode: 0o600 });
    console.log(`history: artifact "${printable(name)}" of ${printable(newest.created_at)} (${files.get('history.db').length} bytes)`);
  }
  output('db', join(dir, 'history.db'));
  output('dir', dir);
}

/** The history files of a zip archive (stored or deflated entries); anything else in it is left out. */
function unzip(zip) {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Failure('history: the artifact is not a zip archive');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const files = new Map();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Failure('history: the artifact\'s zip directory is damaged');
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    at += 46 + nameLength + extraLength + commentLength;
    if (!HISTORY_FILES.test(name)) continue;
    if (size > MAX_HISTORY_BYTES) throw new Failure(`history: ${name} in the artifact is larger than 2 GiB`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    const bytes = method === 0 ? Buffer.from(data) : method === 8 ? inflateRawSync(data, { maxOutputLength: MAX_HISTORY_BYTES }) : undefined;
    if (!bytes || bytes.length !== size) throw new Failure(`history: ${name} in the artifact cannot be read (zip method ${method})`);
    files.set(name, bytes);
  }
  return files;
}

const commands = { inputs: checkInputs, 'build-key': buildKey, 'restore-history': restoreHistory, comment };
try {
  const command = commands[process.argv[2]];
  if (!command) throw new Failure(`usage: github.mjs ${Object.keys(commands).join('|')}`, 2);
  await command();
} catch (error) {
  // A workflow command at the start of the line makes an annotation; the text is ours or printable().
  console.log(`::error title=linkctl action::${error instanceof Failure ? error.message.replace(/\n/g, '%0A') : printable(error?.message ?? error)}`);
  process.exitCode = error instanceof Failure ? error.code : 1;
}
