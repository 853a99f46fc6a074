/**
 * Local files under the rule of src/files/access.ts (issue 19, "files are data"): a `--from` row
 * never names a file to read; `--dry-run` writes nothing; an existing file is replaced only with
 * --force (or a yes at a terminal); an image of another kind than the file's name is an error;
 * temporary files cannot be planted in advance. In-process against the sandbox.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain, tempDir, useSandbox } from '../helpers.js';

const fx = useSandbox();
const root = tempDir('linkctl-files-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const folder = () => {
  const dir = join(root, String(++n));
  mkdirSync(dir);
  return dir;
};

describe('a --from row is data', () => {
  it('@file in a cell is not read (here: the config file with the key), for CSV and NDJSON: exit 2, nothing sent', async () => {
    const dir = folder();
    const config = join(fx.configDir, 'config.json');
    writeFileSync(config, JSON.stringify({ profiles: { default: { apiKey: 'sk_live_NEVER_UPLOADED_1234' } } }));
    const csv = join(dir, 'q.csv');
    writeFileSync(csv, `type,name,data-json\ntext,leak,@${config}\n`);
    const r = await runMain(['qr', 'add', '--from', csv], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`q.csv:2: --data-json @${config}: the cells of a --from file are data, not file names: linkctl reads no file a row names`);
    const ndjson = join(dir, 'q.ndjson');
    writeFileSync(ndjson, `${JSON.stringify({ type: 'text', name: 'leak', 'data-json': `@${config}` })}\n`);
    const j = await runMain(['qr', 'add', '--from', ndjson], { env: fx.env });
    expect(j.code).toBe(2);
    expect(j.stderr).toContain('q.ndjson:1: --data-json @');
    expect(fx.sandbox.requests).toEqual([]);
    // The same flag typed by a person still reads the file.
    const data = join(dir, 'data.json');
    writeFileSync(data, '"hello from a file"');
    const own = await runMain(['qr', 'add', '--type', 'text', '--name', 'typed', '--data-json', `@${data}`, '--json'], { env: fx.env });
    expect(own.code, own.stderr).toBe(0);
    expect(fx.sandbox.requests.find((q) => q.method === 'POST')!.body).toMatchObject({ data: 'hello from a file' });
    rmSync(config);
  });
});

describe('--dry-run writes no file', () => {
  it('qr download --file, link qr --file and export --file say what they would write, and write nothing', async () => {
    const dir = folder();
    const download = await runMain(['qr', 'download', '1', '--file', join(dir, 'menu.png'), '--dry-run'], { env: fx.env });
    expect(download.code, download.stderr).toBe(0);
    // the sandbox serves the product's SVG: a .png file name makes a PNG of it
    expect(download.stdout).toMatch(/^dry run: would save .*menu\.png \(PNG, \d+ bytes, drawn from the server's SVG at \d+×\d+ px\); nothing was written\n$/);
    const drawn = await runMain(['link', 'qr', '1', '--file', join(dir, 'code.svg'), '--dry-run'], { env: fx.env });
    expect(drawn.code, drawn.stderr).toBe(0);
    expect(drawn.stdout).toMatch(/^dry run: would save .*code\.svg \(SVG/);
    const exported = await runMain(['export', '--file', join(dir, 'account.yaml'), '--dry-run', '--json'], { env: fx.env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ dryRun: true, file: join(dir, 'account.yaml') });
    const many = await runMain(['qr', 'download', '--from', '-', '--dir', join(dir, 'codes'), '--dry-run'], { env: fx.env, stdin: '1\n2\n' });
    expect(many.code, many.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual([]); // not even the --dir folder
  });
});

describe('an existing file is replaced only when asked', () => {
  it('without --force: exit 2 and the file untouched (for each command); with --force: replaced; on a terminal: asked', async () => {
    const dir = folder();
    const cases: Array<[string[], string]> = [
      [['qr', 'download', '1', '--file'], 'menu.png'],
      [['link', 'qr', '1', '--file'], 'code.png'],
      [['export', '--file'], 'account.yaml'],
    ];
    for (const [args, name] of cases) {
      const file = join(dir, name);
      writeFileSync(file, 'precious');
      const before = fx.sandbox.requests.length;
      const r = await runMain([...args, file], { env: fx.env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`linkctl: --file ${file} exists; linkctl does not replace a file unless told to`);
      expect(r.stderr).toContain('hint: add --force to replace it');
      expect(readFileSync(file, 'utf8')).toBe('precious');
      expect(fx.sandbox.requests.length).toBe(before); // refused before anything was read
      const declined = await runMain([...args, file], { env: fx.env, tty: true, confirm: false });
      expect(declined.code).toBe(2);
      expect(declined.prompts).toEqual([`${file} exists. Replace it?`]);
      expect(readFileSync(file, 'utf8')).toBe('precious');
      const asked = await runMain([...args, file], { env: fx.env, tty: true, confirm: true });
      expect(asked.code, asked.stderr).toBe(0);
      expect(readFileSync(file, 'utf8')).not.toBe('precious');
      writeFileSync(file, 'precious');
      const forced = await runMain([...args, file, '--force'], { env: fx.env });
      expect(forced.code, forced.stderr).toBe(0);
      expect(readFileSync(file, 'utf8')).not.toBe('precious');
    }
    expect(readdirSync(dir).sort()).toEqual(['account.yaml', 'code.png', 'menu.png']); // no temporary file left behind
  });

  it('qr download --from - skips the codes whose file exists (a failure each), unless --force', async () => {
    const dir = folder();
    // the name follows the image: the sandbox serves the product's SVG
    writeFileSync(join(dir, 'qr-1-restaurant-menu.svg'), 'precious');
    const r = await runMain(['qr', 'download', '--from', '-', '--dir', dir], { env: fx.env, stdin: '1\n2\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('saved 1 of 2 QR codes; failed: 1');
    expect(readFileSync(join(dir, 'qr-1-restaurant-menu.svg'), 'utf8')).toBe('precious');
    expect(existsSync(join(dir, 'qr-2-greeting.svg'))).toBe(true);
    const forced = await runMain(['qr', 'download', '--from', '-', '--dir', dir, '--force'], { env: fx.env, stdin: '1\n2\n' });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(dir, 'qr-1-restaurant-menu.svg'), 'utf8')).toMatch(/^<\?xml[^>]*>\n<svg /);
  });
});

describe('an image of another kind than the file name says', () => {
  it('qr download --file x.jpg receiving an SVG: exit 2, nothing written (a .png or .svg name is made from any PNG or SVG)', async () => {
    const dir = folder();
    const r = await runMain(['qr', 'download', '1', '--file', join(dir, 'x.jpg')], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`linkctl: --file ${join(dir, 'x.jpg')} names a JPG file, but QR code 1's image is an SVG; nothing was saved`);
    expect(r.stderr).toContain('hint: name the file .png or .svg');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('temporary files', () => {
  it('cannot be planted in advance: the predictable names of before lead nowhere, and a symlink there is not written through', async () => {
    const dir = folder();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious');
    // The name export used to write through (pid only, no O_EXCL); this process is the one that runs main().
    symlinkSync(victim, join(dir, `.account.yaml.${process.pid}.tmp`));
    const r = await runMain(['export', '--file', join(dir, 'account.yaml')], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(readFileSync(join(dir, 'account.yaml'), 'utf8')).toMatch(/^version: 1$/m);
    expect(readdirSync(dir).sort()).toEqual([`.account.yaml.${process.pid}.tmp`, 'account.yaml', 'victim.txt']);
  });
});
