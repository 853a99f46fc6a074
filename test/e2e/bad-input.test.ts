/**
 * Bad input across commands, as the README promises it is met: exit 2, a first line
 * `linkctl: ...` that names what was given and what is allowed, a `hint:` line with a next
 * step, no stack trace, and nothing sent (the sandbox counts every request, and sees none).
 */
import { describe, expect, it } from 'vitest';
import { runMain, useSandbox } from '../helpers.js';

const fx = useSandbox();

interface Case {
  args: string[];
  /** What the message quotes of the input. */
  given: string;
  /** What it says is allowed. */
  allowed: string;
  /** What the hint says. */
  hint: string | RegExp;
}

const CASES: Case[] = [
  // ids and numbers
  { args: ['qr', 'get', 'abc'], given: 'got "abc"', allowed: 'ID must be a positive integer', hint: 'the ID column of a `list` command shows them' },
  { args: ['link', 'delete', '0'], given: 'got "0"', allowed: 'ID must be a positive integer', hint: 'ids are whole numbers from 1 up' },
  { args: ['qr', 'list', '--limit', '0'], given: 'got "0"', allowed: '--limit must be a positive integer', hint: 'e.g. --limit 10' },
  { args: ['link', 'list', '--page', '99999999999999999999'], given: 'got "99999999999999999999"', allowed: 'at most 9007199254740991', hint: 'e.g. --page 10' },
  { args: ['--timeout', 'soon', 'qr', 'list'], given: 'got "soon"', allowed: 'between 0 and 86400', hint: 'e.g. --timeout 30' },
  // enumerations
  { args: ['qr', 'add', '--type', 'lnk', '--data', 'https://example.com'], given: 'got "lnk"', allowed: 'one of link, text, ', hint: 'did you mean --type link?' },
  { args: ['link', 'list', '--order', 'popular'], given: 'got "popular"', allowed: 'one of date, clicks', hint: 'e.g. --order date (any case)' },
  { args: ['-o', 'xml', 'qr', 'list'], given: 'got "xml"', allowed: 'one of table, json, ndjson, csv, tsv', hint: 'e.g. --output table (any case)' },
  { args: ['completion', 'tcsh'], given: 'got "tcsh"', allowed: 'one of bash, zsh, fish, powershell', hint: 'e.g. bash (any case)' },
  { args: ['api', 'FETCH', '/api/urls'], given: 'got "FETCH"', allowed: 'one of GET, POST, PUT, DELETE', hint: 'e.g. GET (any case)' },
  { args: ['link', 'update', '1', '--clear', 'pixel'], given: 'got "pixel"', allowed: 'one of geo, device', hint: 'did you mean --clear pixels?' },
  // URLs
  { args: ['link', 'add', 'example.com/spring'], given: 'got "example.com/spring"', allowed: 'a URL starting with http:// or https://', hint: 'did you mean https://example.com/spring?' },
  { args: ['link', 'add', 'ftp://example.com/file'], given: 'got "ftp://example.com/file"', allowed: 'must start with http:// or https://', hint: 'a full URL with its scheme' },
  { args: ['domain', 'add', 'https://go.example.com/path'], given: 'got "https://go.example.com/path"', allowed: 'a scheme and a host only', hint: 'e.g. linkctl domain add https://go.example.com' },
  { args: ['--base-url', 'links.example.com', 'qr', 'list'], given: 'got "links.example.com"', allowed: '--base-url must be an http(s) URL', hint: 'did you mean --base-url https://links.example.com?' },
  { args: ['api', 'GET', 'https://example.com/api/urls'], given: 'got "https://example.com/api/urls"', allowed: 'a path such as /api/urls', hint: 'e.g. linkctl api GET /api/urls' },
  // dates, colours, pairs, addresses
  { args: ['link', 'add', 'https://example.com', '--expiry', 'tomorrow'], given: 'got "tomorrow"', allowed: '"YYYY-MM-DD HH:MM:SS"', hint: 'e.g. --expiry "2027-06-30 23:59:59"' },
  { args: ['link', 'add', 'https://example.com', '--expiry', '2020-01-01 00:00:00'], given: 'got "2020-01-01 00:00:00"', allowed: 'must be in the future', hint: 'give a later date and time' },
  { args: ['link', 'add', 'https://example.com', '--expiry', '2027-02-30 10:00:00'], given: 'got "2027-02-30 10:00:00"', allowed: '"YYYY-MM-DD HH:MM:SS"', hint: 'e.g. --expiry' },
  { args: ['qr', 'add', '--type', 'link', '--data', 'https://example.com', '--foreground', 'red'], given: 'got "red"', allowed: '#RRGGBB or rgb(r,g,b)', hint: "e.g. --foreground '#112233'" },
  // (any colour text is a colour to the product: issue 55; an empty one is none)
  { args: ['channel', 'add', '--name', 'Press', '--color', ' '], given: 'got " "', allowed: '--color must not be empty', hint: 'give the text after --color' },
  { args: ['link', 'add', 'https://example.com', '--geo', 'Canada'], given: 'got "Canada"', allowed: '--geo must be KEY=VALUE', hint: 'e.g. --geo Canada=https://example.ca' },
  { args: ['account', 'update', '--email', 'me-at-example.com'], given: 'got "me-at-example.com"', allowed: 'an email address such as me@example.com', hint: 'one @ and a domain' },
  { args: ['qr', 'add', '--type', 'sms', '--phone', 'call me'], given: 'got "call me"', allowed: 'a phone number (digits, optional leading +)', hint: 'e.g. --phone +15551234567' },
  { args: ['campaign', 'add', '--name', 'Spring', '--slug', 'spring sale'], given: 'got "spring sale"', allowed: 'only letters, digits, - and _', hint: 'e.g. --slug spring-2027' },
  { args: ['--profile', 'my profile', 'qr', 'list'], given: 'got "my profile"', allowed: '1 to 64 letters, digits', hint: 'choose a name such as work' },
  { args: ['sandbox', 'serve', '--rate-limit', 'fast'], given: 'got "fast"', allowed: 'N/SECONDS such as 30/60, or off', hint: 'e.g. --rate-limit 30/60' },
  { args: ['link', 'qr', '1', '--file', 'poster.gif'], given: 'got "poster.gif"', allowed: 'must end in .png or .svg', hint: 'e.g. --file poster.png' },
  // conflicting or missing flags
  { args: ['link', 'get'], given: 'got neither', allowed: 'a link (id, alias or short URL) or --short URL', hint: 'e.g. linkctl link get 42, linkctl link get spring-sale, or linkctl link get --short go.example.com/abc' },
  { args: ['link', 'get', '1', '--short', 'go.example.com/abc'], given: 'got 1 and --short go.example.com/abc', allowed: 'a link (id, alias or short URL) or --short, not both', hint: 'e.g. linkctl link get 42' },
  { args: ['link', 'qr'], given: 'got neither', allowed: 'a link (id, alias or short URL) or --short URL', hint: 'e.g. linkctl link qr 42' },
  { args: ['link', 'add', 'https://example.com', '--public', '--private'], given: '--public and --private', allowed: 'give one of them', hint: 'links are private unless --public is given' },
  { args: ['--json', '-o', 'csv', 'qr', 'list'], given: '--json and --output csv', allowed: 'give one of them', hint: 'use --json alone' },
  { args: ['qr', 'download', '1', '--dir', 'codes'], given: '--dir is for --from -', allowed: 'for one code give --file', hint: 'e.g. linkctl qr download 12 --file codes/menu.png' },
  { args: ['qr', 'add', '--type', 'wifi', '--ssid', 'Office', '--encryption', 'WPA'], given: '--encryption WPA', allowed: '--wifi-password is required', hint: '--encryption nopass for an open network' },
  { args: ['link', 'update', '1'], given: 'nothing to change', allowed: 'give --url, --clear or an option to set', hint: 'for example: linkctl link update 12 --url' },
  { args: ['api', 'GET', '/api/urls', '--paginate', '--input', 'x.json'], given: 'drop --input', allowed: 'GET sends no body', hint: 'e.g. linkctl api GET urls -F limit=5' },
  // commander's own usage errors
  { args: ['qr', 'list', '--nope'], given: "unknown option '--nope'", allowed: 'linkctl: ', hint: 'run `linkctl qr list --help` for usage' },
  { args: ['link', 'add'], given: "missing required argument 'url'", allowed: 'linkctl: ', hint: 'run `linkctl link add --help` for usage' },
  { args: ['qr', 'add', '--data', 'x'], given: "required option '--type <type>' not specified", allowed: 'linkctl: ', hint: 'run `linkctl qr add --help` for usage' },
];

describe('bad input: exit 2, what was given, what is allowed, a hint, and nothing sent', () => {
  it('covers at least 25 cases across the commands', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(25);
    expect(new Set(CASES.map((c) => c.args.find((a) => /^[a-z]/.test(a)))).size).toBeGreaterThanOrEqual(10);
  });

  it.each(CASES.map((c) => [c.args.join(' '), c] as const))('linkctl %s', async (_, { args, given, allowed, hint }) => {
    const r = await runMain(args, { env: fx.env });
    const [message = '', hintLine = '', ...rest] = r.stderr.split('\n');
    expect(r.code, r.stderr).toBe(2);
    expect(message).toMatch(/^linkctl: /);
    expect(message).toContain(given);
    expect(message).toContain(allowed);
    expect(hintLine).toMatch(/^hint: /);
    if (typeof hint === 'string') expect(hintLine).toContain(hint);
    else expect(hintLine).toMatch(hint);
    expect(rest.join('\n')).toBe('');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
    expect(fx.sandbox.requests).toEqual([]);
  });
});
