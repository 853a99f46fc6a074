/**
 * `--concurrency auto` (src/http/concurrency.ts): how many requests it allows in flight, from what
 * the server shows. The answers are the test's own (kind and time), so no clock is involved; the
 * end-to-end tests (test/e2e/pipeline.test.ts) check what the sandbox sees.
 */
import { describe, expect, it } from 'vitest';
import { AUTO_MAX_IN_FLIGHT, AUTO_START, InFlightControl, inOrder, requestKind } from '../../src/http/concurrency.js';

/** A control over a policy whose `limited` the test sets. */
function control() {
  const policy = { limited: false };
  return { policy, control: new InFlightControl(policy) };
}

/** Answers of one kind, each after `ms`, until `count` have been given. */
function answers(c: InFlightControl, count: number, ms: number | (() => number), kind = 'POST api/url/add'): void {
  for (let i = 0; i < count; i++) c.answer(kind, typeof ms === 'number' ? ms : ms());
}

describe('--concurrency auto', () => {
  it('one at a time before any answer, then up to 8 while answers come back as fast as ever', () => {
    const { control: c } = control();
    expect(c.limit('auto')).toBe(1);
    answers(c, 200, 30);
    expect(c.limit('auto')).toBe(AUTO_MAX_IN_FLIGHT);
    expect(AUTO_MAX_IN_FLIGHT).toBe(8);
  });

  it('from 4 once an answer shows no limit, doubles each round trip until the first sign of load (one more a quick answer, as TCP\'s slow start), then one more a round', () => {
    const { control: c } = control();
    const seen: number[] = [];
    // a round trip at a time: as many answers as are in flight, each as quick as the first
    for (let trip = 0; trip < 4; trip++) {
      answers(c, c.limit('auto'), 30);
      seen.push(c.limit('auto'));
    }
    expect(seen).toEqual([AUTO_START, 8, 8, 8]);
    expect(AUTO_START).toBe(4);
    c.failure();
    expect(c.limit('auto')).toBe(4);
    answers(c, 4, 30);
    expect(c.limit('auto')).toBe(5); // after a sign of load, one more a round
  });

  it('answers slowing down while it climbs end the climb: one slow answer among the latest four decides nothing, two do', () => {
    const { control: c } = control();
    answers(c, 3, 30);
    expect(c.limit('auto')).toBe(6);
    answers(c, 1, 200); // the server starts queueing ours
    expect(c.limit('auto')).toBe(7);
    answers(c, 1, 200);
    expect(c.limit('auto')).toBe(6);
    answers(c, 6, 200); // and goes on: one fewer a round
    expect(c.limit('auto')).toBe(5);
  });

  it('a kind first seen with several in flight (apply\'s links after its campaigns) is timed by its first answers: queueing later is seen', () => {
    const { control: c } = control();
    answers(c, 200, 30, 'POST api/campaign/add');
    expect(c.limit('auto')).toBe(8);
    answers(c, 40, 30, 'POST api/url/add');
    expect(c.limit('auto')).toBe(8);
    answers(c, 8 * 3, 120, 'POST api/url/add');
    expect(c.limit('auto')).toBeLessThan(8);
  });

  it('a kind seen for the first time in a round with others (a read, then the rows\' POSTs) is learned too: up to 8', () => {
    const { control: c } = control();
    c.answer('GET api/urls limit=1000', 40);
    answers(c, 60, 30);
    expect(c.limit('auto')).toBe(8);
  });

  it('a number is that number, whatever the server shows', () => {
    const { policy, control: c } = control();
    policy.limited = true;
    c.overLimit();
    expect(c.limit(5)).toBe(5);
    expect(c.limit(1)).toBe(1);
  });

  it('one at a time while the server shows a rate limit, however fast it answers', () => {
    const { policy, control: c } = control();
    answers(c, 200, 30);
    expect(c.limit('auto')).toBe(8);
    policy.limited = true; // X-RateLimit-* headers in an answer (the policy notes them)
    expect(c.limit('auto')).toBe(1);
    answers(c, 200, 30);
    expect(c.limit('auto')).toBe(1);
  });

  it('back to one at the first over-limit answer', () => {
    const { control: c } = control();
    answers(c, 200, 30);
    expect(c.limit('auto')).toBe(8);
    c.overLimit();
    expect(c.limit('auto')).toBe(1);
  });

  it('fewer when answers slow down under load, more again when they are quick', () => {
    const { control: c } = control();
    answers(c, 200, 30);
    expect(c.limit('auto')).toBe(8);
    // The server queues: every answer takes three times as long.
    answers(c, 8, 90);
    expect(c.limit('auto')).toBe(7);
    answers(c, 7 * 3, 90);
    expect(c.limit('auto')).toBeLessThanOrEqual(4);
    answers(c, 200, 30);
    expect(c.limit('auto')).toBe(8);
  });

  it('jitter is not load: answers spread over 5–75 ms still reach 8', () => {
    const { control: c } = control();
    let i = 0;
    // A spread that repeats (no randomness in a test): 5, 15, ..., 75 ms.
    answers(c, 400, () => 5 + ((i++ * 37) % 71));
    expect(c.limit('auto')).toBe(8);
  });

  it('a server that got slower for good: at one in flight its times become the usual ones, and it climbs again', () => {
    const { control: c } = control();
    answers(c, 200, 30);
    answers(c, 400, 200); // slower for good: down to one, then learned as the usual time
    expect(c.limit('auto')).toBeGreaterThan(1);
    answers(c, 400, 200);
    expect(c.limit('auto')).toBe(8);
  });

  it('half as many after a failure (5xx, a reset, a timeout)', () => {
    const { control: c } = control();
    answers(c, 200, 30);
    c.failure();
    expect(c.limit('auto')).toBe(4);
    c.failure();
    c.failure();
    c.failure();
    expect(c.limit('auto')).toBe(1);
  });

  it('kinds of request are timed apart: a slow list read is not a slow server', () => {
    const { control: c } = control();
    answers(c, 200, 30);
    answers(c, 4, 3000, 'GET api/urls limit=8000');
    answers(c, 4, 3000, 'GET api/urls limit=8000');
    expect(c.limit('auto')).toBe(8);
    expect(requestKind('GET', 'api/url/12', undefined)).toBe(requestKind('GET', 'api/url/13'));
    expect(requestKind('PUT', 'api/url/12/update')).toBe('PUT api/url/:id/update');
    expect(requestKind('GET', 'api/urls', 1000)).not.toBe(requestKind('GET', 'api/urls', 8000));
  });
});

describe('inOrder', () => {
  it('at most limit() at a time, asked again as each finishes; results in the items\' order', async () => {
    let running = 0;
    let most = 0;
    let limit = 2;
    const finish: Array<() => void> = [];
    const started: number[] = [];
    const done = inOrder([1, 2, 3, 4, 5, 6], () => limit, async (n) => {
      started.push(n);
      most = Math.max(most, ++running);
      await new Promise<void>((resolve) => finish.push(resolve));
      running--;
      return n * 10;
    });
    await Promise.resolve();
    expect(started).toEqual([1, 2]);
    limit = 4;
    finish[1]!(); // the second finishes first
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual([1, 2, 3, 4, 5]);
    for (const f of finish) f();
    while (finish.length < 6) await new Promise((r) => setTimeout(r, 0));
    finish[5]!();
    expect(await done).toEqual([10, 20, 30, 40, 50, 60]);
    expect(most).toBe(4);
  });

  it('after a failure no more are started; those in flight finish, then the failure is thrown', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = inOrder([1, 2, 3, 4, 5], () => 2, async (n) => {
      started.push(n);
      await new Promise((r) => setTimeout(r, n === 1 ? 1 : 20));
      if (n === 1) throw new Error('one failed');
      finished.push(n);
      return n;
    });
    await expect(run).rejects.toThrow('one failed');
    expect(started).toEqual([1, 2]);
    expect(finished).toEqual([2]);
  });

  it('items of one key run one after another in the items\' order, others beside them (apply: two QR codes named "Table")', async () => {
    const events: string[] = [];
    const items = [{ key: 'table', n: 1, ms: 30 }, { key: 'table', n: 2, ms: 1 }, { key: 'menu', n: 3, ms: 1 }];
    const run = inOrder(items, () => 3, async (item) => {
      events.push(`start ${item.n}`);
      await new Promise((r) => setTimeout(r, item.ms));
      events.push(`end ${item.n}`);
      return item.n;
    }, (item) => item.key);
    expect(await run).toEqual([1, 2, 3]);
    // 3 runs beside 1; 2 waits for 1 although it is quicker.
    expect(events).toEqual(['start 1', 'start 3', 'end 3', 'end 1', 'start 2', 'end 2']);
  });

  it('an item waiting for an earlier one of its key does nothing once an item failed', async () => {
    const done: number[] = [];
    const run = inOrder([{ key: 'a', n: 1 }, { key: 'a', n: 2 }], () => 2, async (item) => {
      await new Promise((r) => setTimeout(r, 5));
      if (item.n === 1) throw new Error('one failed');
      done.push(item.n);
    }, (item) => item.key);
    await expect(run).rejects.toThrow('one failed');
    expect(done).toEqual([]);
  });
});

describe('rows that share a key keep their order (src/bulk/lookup.ts rowKeys)', () => {
  it('a link add touches its alias and its destination; rows of the same link share a key, others none', async () => {
    const { rowKeys } = await import('../../src/bulk/lookup.js');
    const add = (url: string, alias?: string) => rowKeys('link add', { args: [url], opts: alias === undefined ? {} : { alias } });
    const shared = (a: string[], b: string[]) => a.some((k) => b.includes(k));
    expect(shared(add('https://example.com/a', 'spring'), add('https://example.com/b', 'Spring'))).toBe(true); // aliases match in any case
    expect(shared(add('https://example.com/a', 'spring'), add('https://example.com/a'))).toBe(true); // a row without alias finds it by destination
    expect(shared(add('https://example.com/a', 'spring'), add('https://example.com/b', 'summer'))).toBe(false);
    expect(rowKeys('link update', { args: [12], opts: {} })).toEqual(['link:id:12']);
    expect(rowKeys('link delete', { args: [[3, 4]], opts: {} })).toEqual(['link:id:3', 'link:id:4']);
    expect(shared(rowKeys('qr add', { args: [], opts: { name: 'Menu' } }), rowKeys('qr add', { args: [], opts: { name: 'menu' } }))).toBe(true);
    expect(rowKeys('campaign add', { args: [], opts: { name: 'Spring' } })).toEqual(['campaigns:key:spring']);
  });
});
