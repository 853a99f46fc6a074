import { startSandbox } from './src/sandbox/server.js';
import { ApiClient } from './src/http/client.js';
import { readCodes } from './src/qr/read.js';
for (const qrImages of ['png', 'svg'] as const) {
  const sb = await startSandbox({ qrImages });
  const client = new ApiClient({ baseUrl: sb.url, apiKey: sb.key, timeoutMs: 10000, maxWaitMs: 10000, env: {} });
  const adds = [
    { type: 'link', data: 'https://example.com/a?x=1', foreground: 'rgb(10,20,120)', background: 'rgb(255,250,230)' },
    { type: 'text', data: 'Hello; world' },
    { type: 'email', data: { email: 'ada@example.com', subject: 'Hi there', body: 'See you; soon' } },
    { type: 'email', data: 'bob@example.com' },
    { type: 'phone', data: '+15551234567' },
    { type: 'sms', data: { phone: '+15551234', message: 'Hello: there' } },
    { type: 'wifi', data: { ssid: 'Cafe;1', pass: 'p:a\\ss', encryption: 'WPA' } },
    { type: 'vcard', data: { fname: 'Ada', lname: 'Lovelace', org: 'Engines; Ltd', phone: '+1555', cell: '+1666', email: 'ada@example.com', site: 'https://ada.example.com', street: '1 Main St', city: 'London', country: 'UK' } },
    { type: 'link', data: 'https://example.com/logo', logo: 'https://example.com/l.png' },
  ];
  const codes = [];
  for (const a of adds) {
    const r = await client.request('POST', 'api/qr/add', { json: { ...a, name: a.type } });
    codes.push({ id: Number(r.id), name: a.type, link: String(r.link) });
  }
  const t = performance.now();
  const reads = await readCodes(client, codes);
  console.log(qrImages, (performance.now() - t).toFixed(0), 'ms');
  for (const [i, r] of reads.entries()) console.log(JSON.stringify(r.content ?? r.unreadable), JSON.stringify(r.content?.data) === JSON.stringify(adds[i].data) ? 'SAME' : 'DIFF');
  const list = await client.request('GET', 'api/qr', { query: { limit: 100 } });
  console.log('scans', (list.data as any).qrs.map((q: any) => q.scans).join(','), 'requests', sb.requests.map((r) => r.path).join(' '));
  await sb.close();
}
