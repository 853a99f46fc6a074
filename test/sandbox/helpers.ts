import { afterEach } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any; // parsed body, undefined when not JSON; `any` keeps the assertions short
}

/** Starts a sandbox that is closed after the current test. */
export function useSandbox() {
  const open: Sandbox[] = [];
  afterEach(async () => { await Promise.all(open.splice(0).map((s) => s.close())); });
  return async (options: SandboxOptions = {}) => {
    const sb = await startSandbox({ rateLimit: null, ...options });
    open.push(sb);
    return sb;
  };
}

/** One API call with the sandbox key (override with `auth`, null = no header). */
export async function call(sb: Sandbox, method: string, path: string, body?: unknown, auth: string | null = `Bearer ${sb.key}`): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (auth !== null) headers.Authorization = auth;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(sb.url + path, {
    method, headers, redirect: 'manual',
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}

export const get = (sb: Sandbox, path: string) => call(sb, 'GET', path);
