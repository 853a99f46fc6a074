/** Paging through every page: where to stop on documented and real servers, and on odd ones. */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/http/client.js';
import { allPages, fullRead } from '../../src/http/pages.js';

/** A fake client over `total` records, `perPage` a page, answering like the function given. */
function server(answer: (page: number) => Record<string, unknown>) {
  const asked: number[] = [];
  const client = {
    request: async (_method: string, _path: string, options: { query: { page: number } }) => {
      asked.push(options.query.page);
      return { error: 0, data: answer(options.query.page) };
    },
  } as unknown as ApiClient;
  return { client, asked };
}

const records = (page: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: (page - 1) * 10 + i + 1 }));

async function collect(client: ApiClient, page?: number) {
  const ids: number[] = [];
  for await (const p of allPages(client, { path: 'api/urls', keys: ['urls'], limit: 10, page })) ids.push(...p.records.map((r) => r.id as number));
  return ids;
}

describe('allPages', () => {
  it('stops at maxpage, although real servers still give a nextpage', async () => {
    const { client, asked } = server((page) => ({ currentpage: page, maxpage: 3, nextpage: page + 1, urls: records(page, page < 3 ? 10 : 4) }));
    expect(await collect(client)).toHaveLength(24);
    expect(asked).toEqual([1, 2, 3]);
  });

  it('stops on an empty page, and on an empty list', async () => {
    const { client, asked } = server((page) => ({ currentpage: page, maxpage: '9', urls: page <= 2 ? records(page, 10) : [] }));
    expect(await collect(client)).toHaveLength(20);
    expect(asked).toEqual([1, 2, 3]);
    const empty = server(() => ({ currentpage: 1, maxpage: 0, nextpage: null, urls: [] }));
    expect(await collect(empty.client)).toEqual([]);
  });

  it('goes on to the first empty page when the server sends no maxpage', async () => {
    const { client, asked } = server((page) => ({ nextpage: page + 1, urls: page <= 3 ? records(page, 10) : [] }));
    expect(await collect(client)).toHaveLength(30);
    expect(asked).toEqual([1, 2, 3, 4]);
  });

  it('fails (exit 6) when a server without maxpage ignores page and repeats itself', async () => {
    const { client, asked } = server(() => ({ urls: records(1, 10) }));
    await expect(collect(client)).rejects.toMatchObject({ exitCode: 6, message: expect.stringMatching(/same records as page 1/) });
    expect(asked).toEqual([1, 2]);
  });

  it('fails when the server repeats currentpage, and trusts its own counter over currentpage', async () => {
    const repeated = server((page) => ({ currentpage: 1, maxpage: 3, urls: records(page, 10) }));
    await expect(collect(repeated.client)).rejects.toMatchObject({ exitCode: 6 });
    expect(repeated.asked).toEqual([1, 2]);
    // A server whose currentpage runs ahead does not end the loop early, nor one that lags keep it going.
    const lagging = server((page) => ({ currentpage: page - 1, maxpage: 2, urls: records(page, 10) }));
    expect(await collect(lagging.client)).toHaveLength(20);
    expect(lagging.asked).toEqual([1, 2]);
  });

  it('starts at the page asked for', async () => {
    const { client, asked } = server((page) => ({ currentpage: page, maxpage: 4, urls: records(page, 10) }));
    expect(await collect(client, 3)).toHaveLength(20);
    expect(asked).toEqual([3, 4]);
  });
});

describe('fullRead', () => {
  it('reads on in the server\'s own page size when it gives fewer records than asked and says more pages follow', async () => {
    const total = 350;
    const asked: Array<[number, number]> = [];
    const client = {
      request: async (_method: string, _path: string, options: { query: { page: number; limit: number } }) => {
        const { page, limit } = options.query;
        asked.push([page, limit]);
        // 100 a page whatever the limit, numbered in that size
        const ids = Array.from({ length: 100 }, (_, i) => (page - 1) * 100 + i + 1).filter((id) => id <= total);
        return { error: 0, data: { currentpage: page, maxpage: Math.ceil(total / 100), urls: ids.map((id) => ({ id })) } };
      },
    } as unknown as ApiClient;
    const ids: number[] = [];
    for await (const p of fullRead(client, { path: 'api/urls', keys: ['urls'] })) ids.push(...p.records.map((r) => r.id as number));
    expect(ids).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(asked).toEqual([[1, 1000], [2, 100], [3, 100], [4, 100]]);
  });
});
