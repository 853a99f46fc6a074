/**
 * Links as code in a pipeline: `plan -o markdown` (a pull-request comment whose server text cannot
 * become markup) and `apply --max-deletes` (refuses before sending anything). In-process against
 * the sandbox.
 */
import { describe, expect, it } from 'vitest';
import { codeSpan } from '../../src/ascode/markdown.js';
import { cleanedText } from '../../src/model/rewrites.js';
import { runMain, sent, useSandbox } from '../helpers.js';

const sb = useSandbox();
const writes = () => sent(sb.sandbox).filter((r) => r.method !== 'GET');

/**
 * The text of `markdown` outside its code spans, by CommonMark's rule: a run of N backticks opens
 * a span that the next run of exactly N backticks closes (an unmatched run is literal text).
 */
function outsideCodeSpans(markdown: string): string {
  let out = '';
  let i = 0;
  while (i < markdown.length) {
    const run = /^`+/.exec(markdown.slice(i));
    if (!run) {
      out += markdown[i++];
      continue;
    }
    const fence = run[0];
    const close = new RegExp(`(?<!\`)${fence}(?!\`)`, 'g');
    close.lastIndex = i + fence.length;
    const end = close.exec(markdown);
    if (!end) {
      out += fence;
      i += fence.length;
      continue;
    }
    out += '<code/>';
    i = end.index + fence.length;
  }
  return out;
}

describe('plan -o markdown', () => {
  it('is a summary line and a <details> list of the changes, with the exit code of --detailed-exitcode', async () => {
    const file = ['version: 1', 'links:', '  - alias: docs', '    url: https://sandbox.localhost/docs/v2', '  - alias: new-one', '    url: https://example.com/new', 'campaigns:', '  - name: Autumn'].join('\n');
    const r = await runMain(['plan', '-f', '-', '--prune', '-o', 'markdown', '--detailed-exitcode'], { env: sb.env, stdin: file });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe(
      [
        '**linkctl plan**: 2 to add, 1 to change, 2 to delete. 1 update would **clear** settings the file does not state (apply needs `--allow-clear`).',
        '',
        '<details>',
        '<summary>5 changes</summary>',
        '',
        '- **delete** link `spring-sale`',
        '- **delete** campaign `Spring launch`',
        '- **add** campaign `Autumn`',
        '- **change** link `docs`: url `"https://sandbox.localhost/docs"` → `"https://sandbox.localhost/docs/v2"`; **clears** what the file does not state: device targeting (7.x servers never answer it); password; pixels; parameters; deep links; redirect type, splash or overlay; language targeting; meta image; public status (real servers make every updated link private); of which no one can know: device targeting; password; pixels; parameters; deep links; redirect type, splash or overlay; language targeting; meta image',
        '- **add** link `new-one`',
        '',
        '</details>',
        '',
        // One campaign added and one deleted: perhaps a rename, which the slug makes one.
        '> **Note:** ``campaign "Autumn" is new to the server while campaign "Spring launch" is not in the file (apply deletes it; its links keep its id): if the file renames it, give it `slug: spring-launch`, and apply renames it in place, keeping its links``',
        '',
      ].join('\n'),
    );
    expect(writes()).toEqual([]);
  });

  it('says so when nothing would change (exit 0)', async () => {
    const r = await runMain(['plan', '-f', '-', '-o', 'markdown', '--detailed-exitcode'], { env: sb.env, stdin: 'version: 1\nlinks:\n  - alias: docs\n    url: https://sandbox.localhost/docs\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('**linkctl plan**: no changes, the account matches the file.\n');
  });

  it('shows text from the file and the server only inside code spans: no HTML, links, mentions or references', async () => {
    const hostile = 'x` <img src=x onerror=alert(1)> [click](https://evil.example) @octocat #1 </details>\n\n# heading ``y';
    const created = await runMain(['link', 'add', 'https://example.com/h', '--alias', 'hostile', '--meta-title', hostile], { env: sb.env });
    expect(created.code, created.stderr).toBe(0);
    const file = `version: 1\nlinks:\n  - alias: hostile\n    url: https://example.com/h\n    title: ${JSON.stringify(`${hostile} (renamed)`)}\n`;
    const r = await runMain(['plan', '-f', '-', '-o', 'markdown'], { env: sb.env, stdin: file });
    expect(r.code, r.stderr).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith('- **change** link `hostile`: title '))!;
    expect(line).toBeDefined();
    const outside = outsideCodeSpans(line);
    // linkctl's own words (what the update would clear) stand outside the spans; nothing of the server's or the file's does.
    expect(outside).toBe('- **change** link <code/>: title <code/> → <code/>; stored as title <code/>; **clears** what the file does not state: device targeting (7.x servers never answer it); password; pixels; parameters; deep links; redirect type, splash or overlay; language targeting; meta image; public status (real servers make every updated link private); of which linkctl set none, which another writer may have set since: device; password; pixels; params; deeplinks; redirect; language; meta-image');
    // The spans hold the text as it is, a line break aside (shown as an escape, so the span stays on its line):
    // the server's as it stored it (cleaned of HTML, as 7.7 does), the file's as written, and what the product will make of it.
    expect(line).toContain(codeSpan(JSON.stringify(cleanedText(hostile))));
    expect(line).toContain(codeSpan(JSON.stringify(`${hostile} (renamed)`)));
    expect(line).toContain(codeSpan(JSON.stringify(cleanedText(`${hostile} (renamed)`))));
    // In the whole comment, only linkctl's own markup is outside a span.
    const all = outsideCodeSpans(r.stdout);
    expect(all.match(/<\/details>/g)).toHaveLength(1);
    expect(all).not.toMatch(/<img|\]\(|@octocat|#1|# heading/);
  });

  it('is refused by every other command, before anything is sent', async () => {
    const r = await runMain(['link', 'list', '-o', 'markdown'], { env: sb.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('-o markdown is only for `linkctl plan`');
    expect(sent(sb.sandbox)).toEqual([]);
  });
});

describe('apply --max-deletes', () => {
  // The file has one of the account's two links: --prune deletes the other, and the campaign and channel lists empty theirs.
  const file = 'version: 1\nlinks:\n  - alias: docs\n    url: https://sandbox.localhost/docs\ncampaigns: []\nchannels: []\n';

  it('refuses a plan that deletes more, even with --prune --yes: exit 2, nothing sent', async () => {
    const r = await runMain(['apply', '-f', '-', '--prune', '--yes', '--max-deletes', '2'], { env: sb.env, stdin: file });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('linkctl: the plan deletes 3 records, more than --max-deletes 2; nothing was changed');
    expect(r.stderr).toContain('hint: look at the deletions with `linkctl plan -f - --prune`');
    expect(writes()).toEqual([]);
    const zero = await runMain(['apply', '-f', '-', '--prune', '--yes', '--max-deletes', '0'], { env: sb.env, stdin: file });
    expect(zero.code).toBe(2);
    expect(writes()).toEqual([]);
  });

  it('applies a plan within the limit', async () => {
    const r = await runMain(['apply', '-f', '-', '--prune', '--yes', '--max-deletes', '3'], { env: sb.env, stdin: file });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Applied: 0 added, 0 changed, 3 deleted.\n');
    expect(writes().map((w) => w.method)).toEqual(['DELETE', 'DELETE', 'DELETE']);
  });

  it('takes a count: not a word, not negative', async () => {
    for (const bad of ['ten', '-1', '1.5']) {
      const r = await runMain(['apply', '-f', '-', '--max-deletes', bad], { env: sb.env, stdin: file });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--max-deletes');
    }
    expect(sent(sb.sandbox)).toEqual([]);
  });
});
