// The recording of the product 7.7 as a test of the sandbox: every recorded exchange, replayed in
// order against the sandbox in its default mode, gets the same status, content type, keys, value
// types and messages. The recording was made with pro mode off, except its rate-limit steps (and
// the wrong key's, which carries the limit's headers): those are replayed against a sandbox with
// the product's default limit (30 a minute), as `sandbox serve --rate-limit 30/60s` runs it.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareExchange, loadRecording, RECORDING, replay, type RecordedExchange, type Recording } from '../recording.js';
import { useSandbox } from './helpers.js';

const start = useSandbox();
const recording = loadRecording();
/** Steps recorded with pro mode on: their answers carry the rate limit's headers. */
const proMode = (e: RecordedExchange) => Object.keys(e.response.headers).some((h) => h.startsWith('x-ratelimit'));

/** Replays the steps without pro mode against a default sandbox, the others against one with the product's limit. */
async function replayAll(rec: Recording) {
  const plain = await start({ seed: { empty: true } });
  // the recorded links were made within one second: so are the sandbox's, on a clock stopped at that second
  await fetch(`${plain.url}/__sandbox/clock`, { method: 'POST', headers: { Authorization: `Bearer ${plain.key}` }, body: JSON.stringify({ at: '2026-11-28 15:02:19' }) });
  const first = await replay({ ...rec, exchanges: rec.exchanges.filter((e) => !proMode(e)) }, {
    url: plain.url, keys: { KEY: plain.key, KEY2: plain.userKey },
  });
  // The limit's steps name their place in a burst ("request 29 of a burst") and the reset's second;
  // the requests in between were not recorded and are sent here, and the clock is the test's.
  let now = Date.UTC(2026, 10, 28, 15, 0, 0, 200);
  const limited = await start({ rateLimit: { limit: 30, windowSeconds: 60 }, clock: () => now });
  let sent = 0;
  const second = await replay({ ...rec, exchanges: rec.exchanges.filter(proMode) }, {
    url: limited.url, keys: { KEY: limited.key, KEY2: limited.userKey },
    before: async (_i, e) => {
      const nth = /request (\d+) of a burst/.exec(e.name);
      if (nth) {
        for (; sent < Number(nth[1]) - 1; sent++) {
          await fetch(`${limited.url}/api/account`, { headers: { Authorization: `Bearer ${limited.key}` } });
        }
        sent++;
      }
      if (/at the reset second/.test(e.name)) now = (Math.floor(now / 1000) + 60) * 1000 + 300;
      if (/a second after the reset/.test(e.name)) now += 1000;
    },
  });
  return [...first, ...second];
}

/**
 * Exchanges where the sandbox still answers otherwise, each difference written out: the test fails
 * if they change (better or worse), so this list can only shrink knowingly. None are left: links of
 * one second are listed in the order they were made (fact 1), and every update without a channel
 * leaves a `null` in the link's `channel`, which deleting a channel does not (fact 5).
 */
const KNOWN_DIFFERENCES: string[] = [];

const dir = mkdtempSync(join(tmpdir(), 'linkctl-recording-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the sandbox answers as the product 7.7 did (test/fixtures/product-7.7/exchanges.json)', () => {
  it('replays all 86 exchanges', () => expect(recording.exchanges).toHaveLength(86));

  it('every exchange: same status, content type, keys, value types and messages', async () => {
    const results = await replayAll(recording);
    expect(results).toHaveLength(recording.exchanges.length);
    const differing = results.filter((r) => r.differences.length > 0)
      .map((r) => `${r.exchange.name} (${r.exchange.request.method} ${r.exchange.request.path}): ${r.differences.join('; ')}`);
    expect(differing).toEqual(KNOWN_DIFFERENCES);
  }, 60_000);

  it('goes red when a recorded answer changes: one message edited in a copy of the recording', async () => {
    const copy = join(dir, 'exchanges.json');
    copyFileSync(RECORDING, copy);
    const edited = JSON.parse(readFileSync(copy, 'utf8')) as Recording;
    const step = edited.exchanges.find((e) => e.name === 'link add, alias taken')!;
    (step.response.body as { message: string }).message = 'That alias is not available.';
    writeFileSync(copy, JSON.stringify(edited));
    const results = await replayAll(loadRecording(copy));
    const red = results.filter((r) => r.differences.length > 0);
    expect(red.map((r) => r.exchange.name)).toEqual(['link add, alias taken']);
    expect(red[0]!.differences).toEqual(['message: "That alias is not available." recorded, "That alias is taken. Please choose another one." answered']);
  }, 60_000);

  describe('the comparison', () => {
    const recorded = recording.exchanges.find((e) => e.name === 'qr get, phone')!.response;
    const same = { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: structuredClone(recorded.body) };
    it('agrees with an answer of other values of the same types', () => {
      const other = structuredClone(recorded.body) as { details: { id: number; name: string } };
      other.details.id = 7;
      other.details.name = 'another';
      expect(compareExchange(recorded, { ...same, body: other })).toEqual([]);
    });
    it('finds a key missing, a key added, a type changed, a status and a content type', () => {
      const body = structuredClone(recorded.body) as { details: Record<string, unknown> };
      delete body.details.name;
      body.details.extra = 1;
      body.details.scans = '0';
      expect(compareExchange(recorded, { status: 500, headers: { 'content-type': 'text/html' }, body })).toEqual([
        'status: 200 recorded, 500 answered',
        'content type: application/json recorded, text/html answered',
        'body.details.name: recorded, missing from the answer',
        'body.details.extra: answered, not in the recording',
        'body.details.scans: number recorded, string answered ("0")',
      ]);
    });
    it('tells an empty body from a page', () => {
      const empty = recording.exchanges.find((e) => e.name === 'qr update, colours only (no data)')!.response;
      expect(compareExchange(empty, { status: 500, headers: { 'content-type': 'text/html; charset=UTF-8' }, body: '<!DOCTYPE html>' }))
        .toEqual(['body: empty recorded, a body answered']);
    });
  });
});
