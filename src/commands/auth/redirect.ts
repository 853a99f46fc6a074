/**
 * The one-shot listener of `auth login --oauth`: the product redirects the browser to the
 * registered loopback URI with `?code=CODE`, and sends no `state` to tie that request to this
 * login. So the listener answers on the redirect's address only (its Host, its path), takes
 * exactly one code, and closes at once after it: a second request finds nothing listening.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AuthError, InterruptedError, NetworkError, UsageError } from '../../errors.js';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** A `--redirect-uri` linkctl can listen on: http, a loopback host, an explicit port, no query or fragment. */
export function loopbackRedirect(raw: string): URL {
  const hint = 'register the client with a loopback redirect such as http://127.0.0.1:8765/linkctl-callback, and give the same URI here';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--redirect-uri must be a URL such as http://127.0.0.1:8765/linkctl-callback, got "${raw}"`, hint);
  }
  if (url.protocol !== 'http:' || !LOOPBACK.has(url.hostname)) {
    throw new UsageError(`--redirect-uri must be a loopback URI (http://127.0.0.1, http://[::1] or http://localhost), got "${raw}": linkctl receives the code on this machine`, hint);
  }
  if (!url.port || url.port === '0') throw new UsageError(`--redirect-uri must name its port (the one registered with the client), got "${raw}"`, hint);
  if (url.search || url.hash || url.username || url.password) throw new UsageError(`--redirect-uri must be a plain URI without a query, fragment or credentials, got "${raw}"`, hint);
  return url;
}

const page = (title: string, text: string) =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>\n`;

export interface Waiting {
  /** The code, once one arrives; rejects after `timeoutMs`, on Ctrl-C, or when the redirect carries an error instead. */
  code: Promise<string>;
  close(): Promise<void>;
}

/** Starts listening on `redirect`'s address; the code arrives at its path only. */
export async function listenForCode(redirect: URL, timeoutMs: number, signal?: AbortSignal): Promise<Waiting> {
  const path = redirect.pathname.replace(/\/+$/, '');
  const sockets = new Set<Socket>();
  let settle: { resolve(code: string): void; reject(error: Error): void } | undefined;
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  let done = false;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const answer = (status: number, title: string, text: string) => {
      res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'close' });
      res.end(page(title, text));
    };
    const url = new URL(req.url ?? '/', redirect.origin);
    // Only a request addressed to the redirect (a page elsewhere made to resolve to 127.0.0.1 sends its own Host) on its path.
    if (done || req.method !== 'GET' || req.headers.host !== redirect.host || url.pathname.replace(/\/+$/, '') !== path) {
      return answer(404, 'Not found', 'This is not the page linkctl is waiting on.');
    }
    const given = url.searchParams.get('code');
    const error = url.searchParams.get('error') ?? url.searchParams.get('message');
    if (!given) {
      if (!error) return answer(400, 'No code', 'This request carries no sign-in code; linkctl is still waiting.');
      done = true;
      answer(200, 'Sign-in refused', 'The server did not give a code. You can close this tab; linkctl says what happened.');
      void finish().then(() => settle!.reject(new AuthError(`the server redirected without a code: ${error.slice(0, 200)}`, 'run `linkctl auth login --oauth` again and approve the request')));
      return;
    }
    done = true;
    answer(200, 'Signed in', 'linkctl has the code. You can close this tab.');
    void finish().then(() => settle!.resolve(given));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const finish = () =>
    new Promise<void>((resolve) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      server.close(() => resolve());
      // The answer is written; nothing else is taken on this address.
      setImmediate(() => {
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
    });
  const fail = (error: Error) => {
    if (done) return;
    done = true;
    void finish().then(() => settle!.reject(error));
  };
  const minutes = timeoutMs / 60_000;
  const timer = setTimeout(
    () => fail(new AuthError(`no sign-in code arrived within ${minutes >= 1 ? `${+minutes.toFixed(1)} minute${minutes === 1 ? '' : 's'}` : `${+(timeoutMs / 1000).toFixed(1)} s`}; linkctl stopped listening on ${redirect.href}`,
      'approve the request in the browser; if the server showed an error instead of sending you back, the redirect URI is not the one registered for the client (the admin sees it in the OAuth client settings)')),
    timeoutMs,
  );
  timer.unref?.();
  const onAbort = () => fail(new InterruptedError());
  signal?.addEventListener('abort', onAbort, { once: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      reject(error.code === 'EADDRINUSE'
        ? new NetworkError(`cannot listen on ${redirect.host} for the sign-in code: the port is in use`, 'stop what listens there, or register another loopback redirect URI for the client')
        : new NetworkError(`cannot listen on ${redirect.host} for the sign-in code (${error.code ?? error.message})`, 'register a loopback redirect URI on a port you may use'));
    });
    server.listen(Number(redirect.port), redirect.hostname.replace(/^\[|\]$/g, ''), () => resolve());
  });
  code.catch(() => undefined); // handled by whoever awaits it; never an unhandled rejection
  return { code, close: () => (done ? Promise.resolve() : (fail(new InterruptedError()), finish())) };
}
