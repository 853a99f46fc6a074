/**
 * A server of the test's own for click history: it answers what `stats snapshot` reads (the
 * account, the link, QR code and campaign lists, a link's statistics) with whatever values the
 * test puts in `state`, raw: negative or fractional totals, strings, NUL in a title. It records
 * each request, can hold an answer until the test lets it go, and can date its answers (the
 * `Date` header) as the test says. On 127.0.0.1, port 0; stopped by `close()`.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export const HISTORY_SERVER_KEY = 'history-test-key-0123456789abcdef';

export interface HistoryServerState {
  account: Record<string, unknown>;
  links: Array<Record<string, unknown>>;
  qrs: Array<Record<string, unknown>>;
  campaigns: Array<Record<string, unknown>>;
  /** `GET /api/url/:id`'s `data` (clicks and the top-* lists), by link id. */
  stats: Record<number, Record<string, unknown>>;
}

export interface HistoryServer {
  url: string;
  state: HistoryServerState;
  /** Paths requested, in order (`GET /api/urls`). */
  requests: string[];
  /** The `Date` header's time (epoch ms) for each answer; default: the real clock. */
  date?: () => number;
  /** When set, answers to paths matching it wait for the promise. */
  hold?: { path: RegExp; until: Promise<void> };
  env: Record<string, string>;
  close(): Promise<void>;
}

const list = (key: string, records: unknown[]) => ({
  error: 0,
  data: { result: records.length, perpage: Math.max(1, records.length), currentpage: 1, nextpage: null, maxpage: 1, [key]: records },
});

export async function startHistoryServer(state: HistoryServerState, configDir: string): Promise<HistoryServer> {
  const sockets = new Set<Socket>();
  const self = { state, requests: [] as string[] } as HistoryServer;
  const answer = (res: ServerResponse, body: unknown, status = 200) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), Date: new Date(self.date?.() ?? Date.now()).toUTCString() });
    res.end(text);
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      self.requests.push(`${req.method} ${path}`);
      if (self.hold && self.hold.path.test(path)) await self.hold.until;
      const s = self.state;
      if (path === '/api/account') return answer(res, { error: 0, data: s.account });
      if (path === '/api/urls') return answer(res, list('urls', s.links));
      if (path === '/api/qr') return answer(res, list('qrs', s.qrs));
      if (path === '/api/campaigns') return answer(res, list('campaigns', s.campaigns));
      const one = /^\/api\/url\/(\d+)$/.exec(path);
      if (one) {
        const link = s.links.find((l) => Number(l.id) === Number(one[1]));
        if (link) return answer(res, { error: 0, id: link.id, details: { id: link.id, alias: link.alias, title: link.title }, data: s.stats[Number(one[1])] ?? { clicks: link.clicks } });
      }
      // A code's single read: a code with statistics (a link code) counts scans of its own (src/qr/scans.ts).
      const code = /^\/api\/qr\/(\d+)$/.exec(path);
      if (code) {
        const q = s.qrs.find((x) => Number(x.id) === Number(code[1]));
        if (q) return answer(res, { error: 0, details: { id: q.id, name: q.name, link: q.link, scans: q.scans }, data: { clicks: Number(q.scans), uniqueClicks: 0 } });
      }
      return answer(res, { error: 1, message: 'not found' }, 404);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  self.url = `http://127.0.0.1:${port}`;
  self.env = { LINKCTL_BASE_URL: self.url, LINKCTL_API_KEY: HISTORY_SERVER_KEY, LINKCTL_CONFIG_DIR: configDir };
  self.close = () => new Promise<void>((resolve) => {
    for (const socket of sockets) socket.destroy();
    server.close(() => resolve());
  });
  return self;
}

/** An account with two links, a QR code and a campaign, every total a plain count. */
export function plainState(): HistoryServerState {
  return {
    account: { id: 7, username: 'team', email: 'team@example.invalid' },
    links: [
      { id: 1, alias: 'docs', title: 'Docs', shorturl: 'https://go.example.invalid/docs', clicks: '10', uniqueclicks: '8', campaign: 1 },
      { id: 2, alias: 'spring', title: 'Spring sale', shorturl: 'https://go.example.invalid/spring', clicks: '5', uniqueclicks: '5' },
    ],
    qrs: [{ id: 1, name: 'Menu', link: 'https://go.example.invalid/qr/1.png', scans: '3' }],
    campaigns: [{ id: 1, name: 'Launch', views: 4 }],
    stats: {},
  };
}
