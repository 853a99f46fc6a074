/**
 * `linkctl api METHOD PATH`: a raw request through the same client as every other command
 * (key, retries, rate limit, redirects, dry-run, typed errors), printing the answer as JSON.
 */
import type { Query } from '../../http/client.js';
import { allPages } from '../../http/pages.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Rec, Result } from '../../output/types.js';
import { positiveInt } from '../../validate.js';
import type { ActionInput } from '../shared/define.js';
import type { ApiMethod } from './types.js';
import { readUserFile } from '../../files/access.js';
import type { Subject } from '../../policy/policy.js';
import { withoutUserKeys } from '../../redact.js';

/** A -F (typed, reads @file and @-) or -f (raw string) field, as parsed by the definition. */
type Field = { key: string; value: string; raw?: boolean };

/**
 * `/api/urls`, `api/urls` and `urls?limit=5` all become `api/urls`, with the query string apart.
 * The path is the one the request will send: dot segments (`url/./add`, `x/../url/add`, `%2e`)
 * resolved as its URL resolves them, so that the policy and the ledger judge what the server gets.
 * A path that then leaves the API, or holds an empty segment (`api//url/add`: no endpoint of the
 * API, the product's 404), is refused before anything is sent.
 */
export function splitPath(raw: string): { path: string; query: Record<string, string> } {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw.trim())) {
    throw new UsageError(`PATH is a path such as /api/urls, not a URL; the base URL comes from the profile (got "${raw}")`, 'e.g. linkctl api GET /api/urls');
  }
  const [beforeHash = ''] = raw.trim().split('#');
  const at = beforeHash.indexOf('?');
  const bare = (at < 0 ? beforeHash : beforeHash.slice(0, at)).replace(/^\/+/, '');
  if (!bare) throw new UsageError('PATH must name an endpoint, such as /api/urls', 'e.g. linkctl api GET /api/account');
  const given = /^api(\/|$)/.test(bare) ? bare : `api/${bare}`;
  const path = new URL(given, 'http://host.invalid/').pathname.slice(1);
  if (path !== 'api' && !path.startsWith('api/')) {
    throw new UsageError(`the path "${raw}" leads to /${path}, outside the API under /api/; nothing was sent`, 'give a path under the API, e.g. /api/url/add, without .. segments');
  }
  if (path.replace(/\/$/, '').split('/').includes('')) {
    throw new UsageError(`the path "${raw}" has an empty segment (//), which names no endpoint of the API (servers answer 404); nothing was sent`, `write it with single slashes: /${path.replace(/\/{2,}/g, '/')}`);
  }
  return { path, query: at < 0 ? {} : Object.fromEntries(new URLSearchParams(beforeHash.slice(at + 1))) };
}

/** A field's JSON value: true, false, null and numbers are typed; leading zeros (zip codes) and inexact integers stay text. */
export function typed(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text)) {
    const n = Number(text);
    if (!Number.isInteger(n) || Number.isSafeInteger(n)) return n;
  }
  return text;
}

/** Where a field came from in messages: `--field` (-F) or `--raw-field` (-f). */
const flagOf = (field: Field) => (field.raw ? '--raw-field' : '--field');

/**
 * The fields' values in order, as gh api has them: -f values are strings as given; -F values
 * are typed (for a body) and `@file` / `@-` read a file or stdin (text, not typed). A key given
 * twice is a mistake, not an override. Returns [key, text, typed?].
 */
async function fieldValues(ctx: Context, fields: Field[]): Promise<Array<{ key: string; text: string; json: unknown }>> {
  const seen = new Set<string>();
  for (const field of fields) {
    if (seen.has(field.key)) throw new UsageError(`${flagOf(field)} ${field.key} is given twice`, 'give each field once');
    seen.add(field.key);
  }
  const stdinFields = fields.filter((f) => !f.raw && f.value === '@-');
  if (stdinFields.length > 1) throw new UsageError(`only one field can read stdin (@-); got ${stdinFields.map((f) => f.key).join(', ')}`);
  const values = [];
  for (const field of fields) {
    const { key, value } = field;
    if (field.raw || !value.startsWith('@')) {
      values.push({ key, text: value, json: field.raw ? value : typed(value) });
      continue;
    }
    let text: string;
    if (value === '@-') {
      text = await ctx.readStdin();
    } else {
      try {
        text = readUserFile(ctx, value.slice(1), `--field ${key}`);
      } catch (error) {
        if (error instanceof UsageError && !error.hint) throw new UsageError(error.message, 'use -f (--raw-field) to send a value that starts with @ as it is');
        throw error;
      }
    }
    values.push({ key, text, json: text });
  }
  return values;
}

async function readInput(ctx: Context, source: string): Promise<unknown> {
  let text: string;
  if (source === '-') {
    if (ctx.io.stdin.isTTY) ctx.warn('reading the JSON body from stdin; end it with Ctrl-D');
    text = await ctx.readStdin();
  } else {
    text = readUserFile(ctx, source, '--input');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--input ${source === '-' ? '(stdin)' : source} is not valid JSON: ${(error as Error).message}`, 'the body must be one JSON value, e.g. {"url": "https://example.com"}');
  }
}

/** `page` and `limit` in PATH's query steer --paginate; any other parameter is sent on every page. */
function pagination(query: Query): { page?: number; limit?: number; rest: Query } {
  const { page, limit, ...rest } = query;
  return {
    page: page === undefined ? undefined : positiveInt('page (in PATH)', String(page)),
    limit: limit === undefined ? undefined : positiveInt('limit (in PATH)', String(limit)),
    rest,
  };
}

/**
 * A raw write that creates or changes a link, or a link-type QR code, keeps the policy's rules
 * (src/policy/enforce.ts) as \`link add\`, \`link update\` and \`qr add\` do: the rules hold for
 * every writer, the escape hatch included. The body is read with the API's own names (\`url\`,
 * \`custom\`, \`domain\`, \`campaign\`, the targets and deep links; a QR code's \`data\`); a raw
 * update replaces the whole link, so its body is the link after it. A link moved into a campaign
 * (\`campaign/ID/assign/LINK\`) is read and held to that campaign's rules. Other writes have no rule to keep.
 */
async function keepsPolicy(ctx: Context, method: ApiMethod, path: string, json: unknown): Promise<void> {
  if (method !== 'POST' && method !== 'PUT') return;
  const body = json && typeof json === 'object' && !Array.isArray(json) ? (json as Rec) : {};
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  // Matched without letter case: the product routes only lower-case paths, but a server that did not would write.
  const [resource, second, third, fourth] = path.toLowerCase().replace(/^api\//, '').replace(/\/$/, '').split('/');
  const writes = second === 'add' || third === 'update';
  if (!((writes && (resource === 'url' || resource === 'qr')) || (method === 'POST' && resource === 'campaign' && third === 'assign'))) return;
  const { enforcePolicy, linkSubject, scopesCampaigns } = await import('../../policy/enforce.js');
  let subject: Subject | undefined;
  if (writes && resource === 'url') subject = linkSubject(body);
  else if (writes && resource === 'qr' && (body.type === undefined || body.type === 'link')) {
    subject = { url: str(body.data) ?? (body.data && typeof body.data === 'object' ? str((body.data as Rec).url) : undefined) };
  } else if (resource === 'campaign' && /^\d+$/.test(second ?? '') && /^\d+$/.test(fourth ?? '') && (await scopesCampaigns(ctx))) {
    const [{ planLinkUpdate }, { readLink }] = await Promise.all([import('../../model/links.js'), import('../../model/link-writes.js')]);
    const read = await readLink(await ctx.reader(), Number(fourth));
    subject = linkSubject(planLinkUpdate(read, { campaign: Number(second) }, new Set()).body);
  }
  if (!subject) return;
  await enforcePolicy(ctx, [{ what: `api ${method} /${path}`, subject }]);
}

export async function request(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const method = args[0] as ApiMethod;
  const { path, query } = splitPath(String(args[1]));
  const fields = [...((opts.field ?? []) as Field[]), ...((opts.rawField ?? []) as Field[])];
  const input = opts.input as string | undefined;

  // Every check before anything is read from stdin or sent.
  if (fields.length && input !== undefined) throw new UsageError(`give the body with ${flagOf(fields[0]!)} or with --input, not both`, 'put every field in the --input JSON, or drop --input');
  if (method === 'GET' && input !== undefined) throw new UsageError('GET sends no body: drop --input (with GET, --field values go into the query string)', 'e.g. linkctl api GET urls -F limit=5');
  if (opts.paginate && method !== 'GET') throw new UsageError(`--paginate follows the pages of a GET list; it does not apply to ${method}`, 'drop --paginate, or use it with GET');

  const values = await fieldValues(ctx, fields);
  let json: unknown;
  if (method === 'GET') {
    for (const { key, text } of values) {
      if (key in query) throw new UsageError(`${key} is given both in PATH and with ${flagOf(fields.find((f) => f.key === key)!)}`, 'give it in one place');
      query[key] = text;
    }
  } else if (values.length) {
    json = Object.fromEntries(values.map(({ key, json }) => [key, json]));
  }
  const paging = opts.paginate ? pagination(query) : undefined;
  if (input !== undefined) json = await readInput(ctx, input);

  await keepsPolicy(ctx, method, path, json);
  // An agent (MCP) writes through \`api\` only with \`confirm: true\`, as through every other tool that
  // changes what it cannot see first: any method but GET may create, change or delete anything.
  if (method !== 'GET' && ctx.io.agent) await ctx.confirm(`${method} ${path} may change or delete data on the server`);
  const client = await ctx.client();
  // The admin API's user records carry every user's key: printed as [REDACTED] (src/redact.ts).
  if (!paging) return { kind: 'raw', json: withoutUserKeys(await client.request(method, path, { query, json })) };

  const records: Rec[] = [];
  let pages = 0;
  for await (const page of allPages(client, { path, keys: [], query: paging.rest, page: paging.page, limit: paging.limit })) {
    records.push(...page.records);
    ctx.status(`${records.length}${page.result ? ` of ${page.result}` : ''} records, ${++pages} page${pages === 1 ? '' : 's'}`);
  }
  return { kind: 'raw', json: withoutUserKeys(records) };
}
