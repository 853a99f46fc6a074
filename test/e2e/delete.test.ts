/**
 * Every delete: asks on a terminal (tested in-process with a fake prompt elsewhere), takes
 * --yes, and without a terminal and without --yes refuses with exit 2, sending nothing.
 */
import { describe, expect, it } from 'vitest';
import { runCli, useSandbox } from '../helpers.js';

const DELETES: Array<[command: string, noun: string, unknownIdMessage: string]> = [
  ['qr', 'QR code', 'QR does not exist.'],
  ['link', 'link', 'Link does not exist.'],
  ['domain', 'branded domain', 'Domain not found. Please try again.'],
  ['campaign', 'campaign', 'Campaign not found. Please try again.'],
  ['channel', 'channel', 'Channel not found. Please try again.'],
  ['pixel', 'pixel', 'Pixel not found. Please try again.'],
];
const path = (command: string) => `/api/${command === 'link' ? 'url' : command}`;

for (const quirks of [false, true]) {
  describe(`delete without a terminal (${quirks ? 'real-server quirks' : 'documented shapes'})`, () => {
    const fx = useSandbox({ quirks });

    it.each(DELETES)('`%s delete 1` refuses without --yes, sending nothing', async (command, noun) => {
      const r = await runCli([command, 'delete', '1'], { env: fx.env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`^linkctl: Delete ${noun} 1: refusing without a terminal to confirm; pass --yes$`, 'm'));
      expect(fx.sandbox.requests).toHaveLength(0);
    });

    it.each(DELETES)('`%s rm 1 --yes` deletes with one request', async (command) => {
      const r = await runCli([command, 'rm', '1', '--yes'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(fx.sandbox.requests.map((q) => `${q.method} ${q.path}`)).toEqual([`DELETE ${path(command)}/1/delete`]);
    });

    it.each(DELETES)('`%s delete 999 --yes` of an unknown id exits 4 with the server message', async (command, noun, message) => {
      const r = await runCli([command, 'delete', '999', '--yes'], { env: fx.env });
      expect(r.code).toBe(4);
      expect(r.stdout).toBe('');
      // the error names what was asked: `QR code 999: QR does not exist.`
      expect(r.stderr).toMatch(new RegExp(`^linkctl: ${noun[0]!.toUpperCase()}${noun.slice(1)} 999: ${message.replace(/\./g, '\\.')}$`, 'm'));
      expect(fx.sandbox.requests.map((q) => `${q.method} ${q.path}`)).toEqual([`DELETE ${path(command)}/999/delete`]);
    });
  });
}
