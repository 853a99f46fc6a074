/**
 * Shell completion: the committed scripts match the command tree, the bash script completes
 * in a real bash (words, values, profile names from the config file) fast enough for a TAB,
 * and the generator reads any commander tree rather than a list of its own.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, runMain, tempDir } from './helpers.js';
import { script } from '../src/completion/index.js';
import { SHELLS, type Shell } from '../src/completion/shells.js';
import { enumArgument, enumOption } from '../src/commands/shared/define.js';
import { QR_TYPES } from '../src/model/qr-types.js';
import { CHANNEL_ITEM_TYPES } from '../src/commands/channel/types.js';
import { PIXEL_TYPES } from '../src/model/pixel-types.js';
import { DOCUMENT_FORMATS, FORMATS } from '../src/output/types.js';
import { FAIL_ON_NAMES } from '../src/check/statuses.js';

const FILES: Record<Shell, string> = { bash: 'linkctl.bash', zsh: '_linkctl', fish: 'linkctl.fish', powershell: 'linkctl.ps1' };
const committed = (shell: Shell) => readFileSync(new URL(`../completions/${FILES[shell]}`, import.meta.url), 'utf8');
const TOP_LEVEL = ['auth', 'account', 'qr', 'link', 'domain', 'campaign', 'channel', 'pixel', 'overlay', 'splash', 'export', 'plan', 'apply', 'import', 'stats', 'listen', 'check', 'lint', 'log', 'admin', 'api', 'completion', 'sandbox', 'mcp'];

const has = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;

async function generated(shell: Shell): Promise<string> {
  const r = await runMain(['completion', shell]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

interface Tab {
  reply: string[];
  ms: number;
}

/**
 * Sources `scriptText` in a real bash, sets COMP_WORDS/COMP_CWORD for `words` (the last one is
 * the word under the cursor), calls the function `complete -p linkctl` names, and returns
 * COMPREPLY and how long the call took (measured inside bash, start-up excluded).
 */
function tab(scriptText: string, words: string[], env: Record<string, string>, cwd?: string): Tab {
  const driver = [
    'source "$SCRIPT_FILE" || exit 9',
    'fn=$(complete -p linkctl | sed -n "s/.*-F \\([^ ]*\\) .*/\\1/p")',
    'COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}',
    'start=$EPOCHREALTIME; "$fn"; end=$EPOCHREALTIME',
    'echo $(( (${end/./} - ${start/./}) / 1000 ))',
    '((${#COMPREPLY[@]})) && printf "%s\\n" "${COMPREPLY[@]}"; exit 0',
  ].join('\n');
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', driver, 'bash', ...words], { env: { ...env, SCRIPT_FILE: scriptFile(scriptText) }, cwd, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const [ms, ...reply] = r.stdout.split('\n').slice(0, -1);
  return { reply, ms: Number(ms) };
}

const scripts = new Map<string, string>();
let workDir = '';
function scriptFile(text: string): string {
  let file = scripts.get(text);
  if (!file) {
    file = join(workDir, `script-${scripts.size}.bash`);
    writeFileSync(file, text);
    scripts.set(text, file);
  }
  return file;
}

beforeAll(() => {
  workDir = tempDir('linkctl-completion-');
});

/**
 * A folder to complete in: files and a folder whose names start alike, so that what is offered
 * shows whether files, folders or both were asked for.
 */
function filesDir(): string {
  const cwd = join(workDir, 'files');
  if (existsSync(cwd)) return cwd;
  mkdirSync(join(cwd, 'codes'), { recursive: true });
  for (const name of ['account.yaml', 'codes.csv', 'poster.png', 'state.json', 'links.csv', 'body.json']) writeFileSync(join(cwd, name), '');
  return cwd;
}

/** The words typed (the last under the cursor) and the names every shell must offer there. */
const FILE_CASES: Array<[string[], string[]]> = [
  [['plan', '-f', 'ac'], ['account.yaml']],
  [['apply', '--file', 'ac'], ['account.yaml']],
  [['--dry-run', 'apply', '-f', 'acc'], ['account.yaml']],
  [['export', '--file', 'ac'], ['account.yaml']],
  [['link', 'qr', '1', '--file', 'po'], ['poster.png']],
  [['qr', 'download', '1', '--file', 'po'], ['poster.png']],
  [['qr', 'download', '--from', '-', '--dir', 'co'], ['codes']],
  [['link', 'add', '--from', 'li'], ['links.csv']],
  [['sandbox', 'serve', '--state', 'st'], ['state.json']],
  [['api', 'POST', 'urls', '--input', 'bo'], ['body.json']],
];

/**
 * Which options take a path is marked once, where they are defined (pathOption): the model reads
 * the mark, and each option of FILE_CASES carries it.
 */
it('the options that take a path are those marked in their definitions', async () => {
  const { describe: describeTree, all } = await import('../src/completion/model.js');
  const { buildProgram } = await import('../src/cli.js');
  const model = describeTree(buildProgram({ stdout: { write: () => true }, stderr: { write: () => true }, stdin: [] as never, env: {} }, () => async () => undefined));
  const marked = all(model.root).flatMap((cmd) => cmd.flags.filter((f) => f.values?.kind === 'files' || f.values?.kind === 'dirs').map((f) => `${cmd.path.slice(1).join(' ')} ${f.names.at(-1)} ${f.values!.kind}`));
  for (const expected of ['plan --file files', 'apply --file files', 'export --file files', 'link qr --file files', 'qr download --file files', 'qr download --dir dirs', 'link add --from files', 'sandbox serve --state files', 'api --input files']) {
    expect(marked).toContain(expected);
  }
  expect(marked).not.toContain('api --path files');
  expect(marked.filter((m) => m.startsWith('qr download --from'))).toEqual([]); // ids on stdin, not a file
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('linkctl completion <shell>', () => {
  it.each(SHELLS)('the committed %s script is what the current command tree generates', async (shell) => {
    // If this fails after a command changed: node scripts/build.mjs && node scripts/completions.mjs
    expect(committed(shell), `completions/${FILES[shell]} is stale: run node scripts/build.mjs && node scripts/completions.mjs`).toBe(await generated(shell));
  });

  it('the built CLI prints the same script and writes no file', async () => {
    const config = tempDir();
    try {
      const r = await runCli(['completion', 'bash'], { env: { LINKCTL_CONFIG_DIR: config, HOME: config } });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(committed('bash'));
      expect(readdirSync(config)).toEqual([]);
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });

  it('refuses an unknown shell with exit 2, naming the four', async () => {
    const r = await runMain(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('linkctl: SHELL must be one of bash, zsh, fish, powershell; got "tcsh"\nhint: e.g. bash (any case)\n');
    const missing = await runMain(['completion']);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/missing required argument 'shell'/);
  });

  it('shows install examples in its help', async () => {
    const r = await runMain(['completion', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/source <\(linkctl completion bash\)/);
    expect(r.stdout).toMatch(/linkctl completion fish > ~\/.config\/fish\/completions\/linkctl.fish/);
  });

  it('bash accepts the script (bash -n)', () => {
    const r = spawnSync('bash', ['-n', join('completions', FILES.bash)], { cwd: new URL('..', import.meta.url).pathname, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.each(['zsh', 'fish', 'powershell'] as const)('the %s script names every command, sub-command, enum value and the profile call', async (shell) => {
    const text = committed(shell);
    for (const word of [...TOP_LEVEL, 'ls=list', 'rm=delete', ...QR_TYPES, ...FORMATS, ...DOCUMENT_FORMATS, ...CHANNEL_ITEM_TYPES, ...PIXEL_TYPES, '--type', '--output', '--profile']) {
      expect(text).toContain(`'${word}'`);
    }
    expect(text).toContain('linkctl __complete profiles');
    expect(text).not.toMatch(/'__complete/); // the hidden command is not offered
  });

  it.each(['zsh', 'fish', 'powershell'] as const)('the %s script is balanced (a cheap syntax check, the shell not being installed)', (shell) => {
    const quoted = { zsh: /'[^']*'|\\./g, fish: /'(?:[^'\\]|\\.)*'/g, powershell: /"(?:[^"`]|`.)*"|'(?:[^']|'')*'/g }[shell];
    const code = committed(shell).replace(/^\s*#.*$/gm, '').replace(quoted, "''");
    const count = (re: RegExp) => code.match(re)?.length ?? 0;
    const balanced = (open: RegExp, close: RegExp) => expect([open.source, count(open)]).toEqual([open.source, count(close)]);
    balanced(/\{/g, /\}/g);
    if (shell === 'zsh') {
      balanced(/\bcase\b/g, /\besac\b/g);
      balanced(/\bif\b/g, /\bfi\b/g);
      balanced(/\b(for|while)\b/g, /\bdone\b/g);
      expect(committed(shell).split('\n')[0]).toBe('#compdef linkctl');
    } else {
      balanced(/\(/g, /\)/g);
    }
    if (shell === 'fish') balanced(/^\s*(function|switch|if|for|while|begin)\b/gm, /^\s*end\b/gm);
    if (shell === 'powershell') expect(code).toContain('Register-ArgumentCompleter -Native -CommandName linkctl');
  });

  it.skipIf(!has('zsh'))('zsh accepts the script (zsh -n)', () => {
    expect(spawnSync('zsh', ['-n', join('completions', FILES.zsh)], { cwd: new URL('..', import.meta.url).pathname }).status).toBe(0);
  });

  it.skipIf(!has('fish'))('fish accepts the script (fish -n)', () => {
    expect(spawnSync('fish', ['-n', join('completions', FILES.fish)], { cwd: new URL('..', import.meta.url).pathname }).status).toBe(0);
  });
});

describe('the bash script in a real bash', () => {
  let env: Record<string, string>;
  let config: string;
  let bashScript: string;

  beforeAll(async () => {
    // `linkctl` on PATH is the built bin/linkctl.js, as after `npm install -g`.
    const bin = join(workDir, 'bin');
    mkdirSync(bin);
    symlinkSync(BIN, join(bin, 'linkctl'));
    config = join(workDir, 'config');
    mkdirSync(config);
    writeFileSync(join(config, 'config.json'), JSON.stringify({ defaultProfile: 'work', profiles: { work: { baseUrl: 'https://a.example', apiKey: 'k1' }, personal: { baseUrl: 'https://b.example', apiKey: 'k2' }, staging: {} } }));
    env = cleanEnv({ PATH: `${bin}:${process.env.PATH}`, LINKCTL_CONFIG_DIR: config });
    bashScript = committed('bash');
  });

  const complete = (...words: string[]) => tab(bashScript, ['linkctl', ...words], env).reply;

  it('registers itself for linkctl', () => {
    const r = spawnSync('bash', ['--norc', '-c', 'source "$1" && complete -p linkctl', 'bash', scriptFile(bashScript)], { encoding: 'utf8' });
    expect(r.stdout).toBe('complete -F _linkctl linkctl\n');
  });

  it('completes commands and sub-commands, aliases included', () => {
    expect(complete('q')).toEqual(['qr']);
    expect(complete('qr', 'a')).toEqual(['add']);
    expect(complete('qr', 'l')).toEqual(['list', 'ls']);
    expect(complete('qr', 'r')).toEqual(['rm']);
    expect(complete('')).toEqual([...TOP_LEVEL, 'help']);
    expect(complete('__')).toEqual([]);
    // Past a sub-command's arguments there is nothing more to offer.
    expect(complete('qr', 'get', '12', '')).toEqual([]);
  });

  it('completes enum values of flags and arguments, whatever came before', () => {
    expect(complete('qr', 'add', '--type', '')).toEqual([...QR_TYPES]);
    expect(complete('qr', 'add', '--type', 'v')).toEqual(['vcard']);
    expect(complete('qr', 'update', '3', '--encryption', '')).toEqual(['WPA', 'WEP', 'nopass']);
    // COMP_WORDBREAKS splits --type=v into three words; without it, one word.
    expect(complete('qr', 'add', '--type', '=', '')).toEqual([...QR_TYPES]);
    expect(complete('qr', 'add', '--type', '=', 'w')).toEqual(['wifi']);
    expect(complete('qr', 'add', '--type=w')).toEqual(['--type=wifi']);
    expect(complete('--output', '')).toEqual([...FORMATS, ...DOCUMENT_FORMATS]);
    expect(complete('qr', 'ls', '-o', 't')).toEqual(['table', 'tsv']);
    expect(complete('channel', 'assign', '3', '')).toEqual([...CHANNEL_ITEM_TYPES]);
    expect(complete('channel', 'assign', '3', 'qr', '')).toEqual([]);
    expect(complete('pixel', 'add', '--type', '')).toEqual([...PIXEL_TYPES]);
    expect(complete('completion', '')).toEqual([...SHELLS]);
    // check --fail-on: the one list of statuses, flags and findings
    expect(complete('check', '--fail-on', '')).toEqual([...FAIL_ON_NAMES]);
    expect(complete('check', '--fail-on', 'in')).toEqual(['insecure']);
    // Flag values are skipped while walking: `json` and `work` are not commands or arguments.
    expect(complete('-o', 'json', '--profile', 'work', 'qr', 'a')).toEqual(['add']);
    expect(complete('--timeout', '5', 'channel', 'assign', '--json', '3', 'b')).toEqual(['bio']);
  });

  it('completes flags: the command’s own and the global ones', () => {
    expect(complete('qr', 'add', '--ty')).toEqual(['--type']);
    expect(complete('qr', 'list', '--j')).toEqual(['--json']);
    expect(complete('qr', 'list', '--')).toEqual(expect.arrayContaining(['--limit', '--page', '--all', '--help', '--profile', '--output', '--dry-run']));
    expect(complete('qr', 'list', '--')).not.toContain('--type');
    expect(complete('--ver')).toEqual(['--version']);
    expect(complete('qr', 'list', '--ver')).toEqual(['--version']); // commander takes it there too
    expect(complete('qr', '--he')).toEqual(['--help']);
  });

  it('completes file names for file values, and folder names only for folders', () => {
    const cwd = filesDir();
    for (const [words, reply] of FILE_CASES) expect(tab(bashScript, ['linkctl', ...words], env, cwd).reply, words.join(' ')).toEqual(reply);
  });

  // How long a TAB takes is the benchmark's to measure: a time limit here failed on a loaded
  // machine (1 s was not enough with both cores busy). That a TAB never waits on the network is
  // structural: the fast entry (dist/complete.cjs) reads the config file and nothing else (below,
  // "is answered by the small dist/complete.cjs entry").
  it('completes profile names from the config file', () => {
    for (const [words, reply] of [
      [['--profile', ''], ['work', 'personal', 'staging']],
      [['-p', 'p'], ['personal']],
      [['auth', 'switch', ''], ['work', 'personal', 'staging']],
      [['auth', 'switch', 's'], ['staging']],
      [['qr', 'list', '--profile', 'w'], ['work']],
      [['qr', 'add', '--type', ''], [...QR_TYPES]],
      [['q'], ['qr']],
    ] as Array<[string[], string[]]>) {
      expect(tab(bashScript, ['linkctl', ...words], env).reply, words.join(' ')).toEqual(reply);
    }
  });

  it('offers no profile names, and prints nothing, when the config is missing or corrupt', () => {
    const other = join(workDir, 'corrupt');
    mkdirSync(other);
    expect(tab(bashScript, ['linkctl', '--profile', ''], { ...env, LINKCTL_CONFIG_DIR: other }).reply).toEqual([]);
    writeFileSync(join(other, 'config.json'), '{"profiles": {"work": ');
    expect(tab(bashScript, ['linkctl', '--profile', ''], { ...env, LINKCTL_CONFIG_DIR: other }).reply).toEqual([]);
  });
});

describe.skipIf(!has('zsh'))(`the zsh script in a real zsh${has('zsh') ? '' : ' (skipped: zsh is not installed)'}`, () => {
  /**
   * Runs the script's _linkctl in zsh for `words`, with compsys's own functions (_files,
   * compadd, _describe) standing in as recorders: what the script asks zsh to offer.
   */
  function zshTab(words: string[]): string[] {
    const driver = [
      'compdef() { :; }',
      '_files() { print -r -- "_files $*"; }',
      'compadd() { print -r -- "compadd $*"; }',
      '_describe() { :; }',
      'compset() { :; }',
      'source "$SCRIPT_FILE" || exit 9',
      'words=(linkctl "$@"); CURRENT=${#words}',
      '_linkctl',
    ].join('\n');
    const r = spawnSync('zsh', ['-f', '-c', driver, 'zsh', ...words], { env: { ...cleanEnv(), SCRIPT_FILE: join('completions', FILES.zsh) }, cwd: new URL('..', import.meta.url).pathname, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout.split('\n').filter(Boolean);
  }

  it('asks for files after the file options, for folders after --dir', () => {
    for (const [words, reply] of FILE_CASES) expect(zshTab(words), words.join(' ')).toEqual([reply[0] === 'codes' ? '_files -/' : '_files ']);
    // and not where a value is no file
    expect(zshTab(['qr', 'add', '--type', ''])).toEqual([`compadd -- ${QR_TYPES.join(' ')}`]);
  });
});

describe.skipIf(!has('fish'))(`the fish script in a real fish${has('fish') ? '' : ' (skipped: fish is not installed)'}`, () => {
  /** What fish offers for the command line `linkctl WORDS` (`complete -C`), in `cwd`. */
  function fishTab(words: string[], cwd: string): string[] {
    const line = ['linkctl', ...words].join(' ');
    const r = spawnSync('fish', ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', join(new URL('..', import.meta.url).pathname, 'completions', FILES.fish), line], { env: cleanEnv(), cwd, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!.replace(/\/$/, ''));
  }

  it('offers files after the file options, folders after --dir', () => {
    const cwd = filesDir();
    for (const [words, reply] of FILE_CASES) expect(fishTab(words, cwd), words.join(' ')).toEqual(reply);
    expect(fishTab(['qr', 'add', '--type', 'w'], cwd)).toEqual(['wifi']);
  });
});

describe.skipIf(!has('pwsh'))(`the PowerShell script in a real pwsh${has('pwsh') ? '' : ' (skipped: pwsh is not installed)'}`, () => {
  it('offers files after the file options (its own path completion), folders after --dir', () => {
    const cwd = filesDir();
    for (const [words, reply] of FILE_CASES) {
      const line = ['linkctl', ...words].join(' ');
      const script = `. $args[0]; (TabExpansion2 -inputScript $args[1] -cursorColumn $args[1].Length).CompletionMatches | ForEach-Object { $_.CompletionText }`;
      const r = spawnSync('pwsh', ['-NoProfile', '-NonInteractive', '-Command', script, join(new URL('..', import.meta.url).pathname, 'completions', FILES.powershell), line], { env: cleanEnv(), cwd, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const offered = r.stdout.split(/\r?\n/).filter(Boolean).map((l) => l.replace(/^\.[\\/]/, '').replace(/[\\/]$/, ''));
      expect(offered, line).toEqual(reply);
    }
  });
});

describe('linkctl __complete profiles', () => {
  const config = tempDir();
  afterAll(() => rmSync(config, { recursive: true, force: true }));
  beforeAll(() => writeFileSync(join(config, 'config.json'), JSON.stringify({ defaultProfile: 'b', profiles: { b: {}, 'a-1': { apiKey: 'secret' } } })));

  it('prints the profile names, one a line, from the fast entry and from the CLI alike', async () => {
    const built = await runCli(['__complete', 'profiles'], { env: { LINKCTL_CONFIG_DIR: config } });
    expect(built).toEqual({ code: 0, stdout: 'b\na-1\n', stderr: '' });
    const inProcess = await runMain(['__complete', 'profiles'], { env: { LINKCTL_CONFIG_DIR: config } });
    expect({ code: inProcess.code, stdout: inProcess.stdout, stderr: inProcess.stderr }).toEqual({ code: 0, stdout: 'b\na-1\n', stderr: '' });
  });

  it('finds the config in the default folder without LINKCTL_CONFIG_DIR', async () => {
    const xdg = tempDir();
    try {
      mkdirSync(join(xdg, 'linkctl'));
      writeFileSync(join(xdg, 'linkctl', 'config.json'), JSON.stringify({ profiles: { home: {} } }));
      expect((await runCli(['__complete', 'profiles'], { env: { XDG_CONFIG_HOME: xdg } })).stdout).toBe('home\n');
    } finally {
      rmSync(xdg, { recursive: true, force: true });
    }
  });

  it('prints nothing for a corrupt config or an unknown question', async () => {
    const bad = tempDir();
    try {
      writeFileSync(join(bad, 'config.json'), 'not json');
      expect(await runCli(['__complete', 'profiles'], { env: { LINKCTL_CONFIG_DIR: bad } })).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(await runCli(['__complete', 'commands'], { env: { LINKCTL_CONFIG_DIR: config } })).toEqual({ code: 0, stdout: '', stderr: '' });
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  it('is answered by the small dist/complete.cjs entry, not the whole CLI', () => {
    // scripts/build.mjs builds src/completion/complete.ts into this one CommonJS file.
    const entry = new URL('../dist/complete.cjs', import.meta.url);
    expect(existsSync(entry), 'dist/complete.cjs is missing: scripts/build.mjs builds it from src/completion/complete.ts').toBe(true);
    expect(readFileSync(entry, 'utf8')).toMatch(/__export\(\w+,\s*\{[^}]*\bcomplete:/);
    // Everything it loads, chunk by chunk: a few kilobytes, without commander, conf or ky.
    const loaded = new Map<string, string>();
    const visit = (url: URL) => {
      if (loaded.has(url.href)) return;
      const text = readFileSync(url, 'utf8');
      loaded.set(url.href, text);
      for (const [, spec] of text.matchAll(/(?:from|import)\s*["'](\.[^"']+)["']/g)) visit(new URL(spec!, url));
    };
    visit(entry);
    const code = [...loaded.values()].join('\n');
    expect(code).not.toMatch(/CommanderError|var Ajv|var HTTPError/);
    expect(code.length).toBeLessThan(20_000);
  });

  it('is not offered as a command', async () => {
    expect((await runMain(['--help'])).stdout).not.toContain('__complete');
  });
});

describe('the generator reads any command tree', () => {
  /** A made-up program: nothing about it is known to the generator beforehand. */
  function program(): Command {
    const root = new Command('linkctl').option('-p, --profile <name>', 'profile').addOption(enumOption('-o, --output <format>', 'format', ['table', 'json']));
    const widget = root.command('widget').alias('wd').description("Widgets, it's said");
    widget
      .command('paint')
      .addOption(enumOption('--color <color>', 'colour', ['red', 'green']))
      .option('--out-file <file>', 'where to write')
      .option('-o, --opacity <n>', 'shadows the global -o')
      .addArgument(enumArgument('<size>', 'size', ['small', 'large']))
      .action(() => undefined);
    root.command('hidden-thing', { hidden: true }).action(() => undefined);
    return root;
  }

  const complete = (...words: string[]) => tab(script('bash', program()), ['linkctl', ...words], cleanEnv()).reply;

  it('offers its commands, aliases, enum values and arguments, and leaves hidden commands out', () => {
    expect(complete('')).toEqual(['widget', 'wd', 'help']);
    expect(complete('wd', 'p')).toEqual(['paint']);
    expect(complete('wd', 'paint', '--color', '')).toEqual(['red', 'green']);
    expect(complete('widget', 'paint', '')).toEqual(['small', 'large']);
    expect(complete('widget', 'paint', '--color', 'red', 'l')).toEqual(['large']);
    expect(complete('-o', '')).toEqual(['table', 'json']);
    // The sub-command's own -o takes a number: the global formats are not offered there.
    expect(complete('widget', 'paint', '-o', '')).toEqual([]);
    expect(complete('widget', 'paint', '--')).toEqual(['--color', '--out-file', '--opacity', '--help', '--profile', '--output']);
  });

  it('quotes descriptions for each shell', () => {
    const text = (shell: Shell) => script(shell, program());
    expect(text('zsh')).toContain(`'wd:Widgets, it'\\''s said'`);
    expect(text('fish')).toContain(`'Widgets, it\\'s said'`);
    expect(text('powershell')).toContain(`'wd Widgets, it''s said'`);
  });

  it('refuses a value it could not carry unquoted', () => {
    const root = new Command('linkctl').addOption(enumOption('--mode <m>', 'mode', ['a b']));
    expect(() => script('bash', root)).toThrow(/cannot carry the word "a b"/);
  });
});
