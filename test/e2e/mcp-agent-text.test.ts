/**
 * MCP tools described for agents (issue 42): `tools/list` of the read-only server was 27.8 KB for
 * 19 tools, and the check tool's description alone 5.3 KB of flags, exit codes and a terminal view
 * no agent can use. Measured here on the wire, through the built CLI's MCP server (in this
 * process: test/mcp-transport.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers.js';
import { InProcessTransport } from '../mcp-transport.js';

const fx = useSandbox();
const clients: Client[] = [];
afterAll(async () => {
  for (const client of clients) await client.close();
});

async function connect(flags: string[] = []) {
  const transport = new InProcessTransport(flags, fx.env);
  const client = new Client({ name: 'linkctl-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

describe('tools/list for agents', () => {
  it('is under 12 KB for the read-only set, the check tool\'s under 2 KB (it was 5.3 KB), and says how paging works once, in the instructions', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(19);
    const bytes = Buffer.byteLength(JSON.stringify({ tools }));
    // 12 KB with lint, log_verify and stats_top's group (issues 41, 43): 11.8 KB for 21 tools,
    // after shorter option texts for agents (optionsForAgents) in import, check, export and stats.
    expect(bytes).toBeLessThan(12_000);
    const check = tools.find((t) => t.name === 'check')!;
    expect(Buffer.byteLength(JSON.stringify(check))).toBeLessThan(2_000);
    expect(client.getInstructions()).toMatch(/nextCursor[^]*maxBytes|maxBytes[^]*nextCursor/);
    // The list tools still take their controls.
    expect(Object.keys(tools.find((t) => t.name === 'link_list')!.inputSchema.properties!)).toEqual(expect.arrayContaining(['limit', 'page', 'all', 'cursor', 'maxBytes', 'fields', 'search']));
  });

  it('names no flag and no exit code, in any tool, writes and deletes included: parameters by their names', async () => {
    const client = await connect(['--allow-writes', '--allow-deletes']);
    const { tools } = await client.listTools();
    const texts = tools.flatMap((t) => [
      [t.name, t.description ?? ''],
      ...Object.entries(t.inputSchema.properties ?? {}).map(([name, p]) => [`${t.name}.${name}`, (p as { description?: string }).description ?? '']),
    ]);
    const cli = texts.filter(([, text]) => /(^|[\s(`])(--[a-z][a-z0-9-]+|-[a-zA-Z])(?=[\s`),.:;=|]|$)|\bexit (code|status|[0-9])|\bExit codes\b|Global options/.test(text!));
    expect(cli).toEqual([]);
    // Where the help said --alias, the tool says alias.
    expect(tools.find((t) => t.name === 'link_add')!.description).toMatch(/A link with `alias` is known by its alias/);
  });
});
