/**
 * The MCP tools, read from the commander program tree: one tool per leaf command, named by its
 * path joined with `_`, its input schema made from the command's own arguments and options
 * (names, enums from `argChoices`, required, help text). A flag added to a command appears in
 * its tool at the next start; test/e2e/mcp.test.ts checks the schemas against `--help`.
 * No SDK here: this file only describes tools and turns a call's arguments into an argv.
 */
import type { Argument, Command, Option } from 'commander';
import { agentNotes, isList, isRepeatable } from '../commands/shared/define.js';
import { thousands } from '../numbers.js';

/**
 * What a tool may do, which decides when it is listed: `read` always, `write` with
 * --allow-writes, `delete` with --allow-writes and --allow-deletes. `confirm` is a write that
 * may ask first (link update, when it would clear options). Deletes always ask first.
 */
export type Access = 'read' | 'write' | 'confirm' | 'delete';

/** The one place that classifies each leaf command (a test fails for a command missing here). */
export const ACCESS: Record<string, Access | { skip: string }> = {
  'auth login': { skip: 'keys are given to linkctl by the user, never by an agent' },
  'auth status': { skip: 'profiles are chosen when the server starts (--profile); account_get checks the key' },
  'auth logout': { skip: 'removes a profile and its key: the user\'s decision' },
  'auth switch': { skip: 'changes the default profile of every other linkctl the user runs' },
  'account get': 'read',
  'account update': 'write',
  'qr list': 'read',
  'qr get': 'read',
  'qr add': 'write',
  'qr update': 'write',
  'qr delete': 'delete',
  'link list': 'read',
  'link get': 'read',
  'link add': 'write',
  'link update': 'confirm',
  'link delete': 'delete',
  'domain list': 'read',
  'domain add': 'write',
  'domain update': 'write',
  'domain delete': 'delete',
  'campaign list': 'read',
  'campaign add': 'write',
  'campaign update': 'write',
  'campaign assign': 'write',
  'campaign delete': 'delete',
  'channel list': 'read',
  'channel items': 'read',
  'channel add': 'write',
  'channel update': 'write',
  'channel delete': 'delete',
  'channel assign': 'write',
  'pixel list': 'read',
  'pixel add': 'write',
  'pixel update': 'write',
  'pixel delete': 'delete',
  'overlay list': 'read',
  'splash list': 'read',
  // The installation's admin (issue 51): an admin's key only. No user's key is in any answer (src/model/users.ts).
  'admin users list': 'read',
  'admin users get': 'read',
  'admin users add': { skip: 'the password is read from a terminal or stdin, which a tool call has neither of (and a password should not pass through an agent\'s context)' },
  'admin users delete': 'delete',
  'admin users login': { skip: 'the sign-in URL signs whoever opens it in as the user: a secret for a person, never for an agent' },
  'admin plans list': 'read',
  'admin plans subscribe': 'write',
  // Any method on any path, deletes included: listed only when deletes are allowed.
  api: 'delete',
  completion: { skip: 'prints a shell script, nothing an agent needs' },
  __complete: { skip: 'hidden; answers the shell completion scripts' },
  'sandbox serve': { skip: 'a server in the foreground that never returns' },
  'sandbox reset': { skip: 'local emulator state; start the server with LINKCTL_SANDBOX=1 to use the sandbox' },
  mcp: { skip: 'this server' },
  listen: { skip: 'a server in the foreground that never returns; the stats tools count the events it stores' },
  // Commands other issues add (classified here so that they arrive classified).
  'auth token': { skip: 'prints the key itself' },
  help: { skip: 'help text; every tool carries its command\'s help' },
  'sandbox status': { skip: 'local emulator state' },
  'sandbox visits': { skip: 'local emulator state: simulated visits for demos and tests' },
  // Click history (issue 21): reading it is safe; a snapshot writes the history database, a report a file.
  'stats show': 'read',
  'stats top': 'read',
  'stats snapshot': 'write',
  'stats report': 'write',
  'stats export': 'write', // writes Parquet or CSV files on the machine running the server
  'stats forget': { skip: 'removes a snapshot from the history database: a person\'s repair, not an agent\'s' },
  // The ledger's chain checked: reads the history database only. (`log` itself has a sub-command, so it is no leaf and no tool.)
  'log verify': 'read',
  'stats migrate': { skip: 'changes the history database\'s tables: run by a person once after an upgrade' },
  'qr download': 'write', // saves a file on the machine running the server
  'link qr': 'read', // --file (writing a file) needs --allow-writes: OPTION_ACCESS
  export: 'read', // likewise --file
  plan: 'read',
  import: 'read', // reads a file and the account's domains and links; --file and --rejects write: OPTION_ACCESS
  apply: 'confirm', // --prune (deleting) needs --allow-deletes: OPTION_ACCESS
  // Reads the account and requests only its own destinations (no URL argument); the run is kept in the click-history database.
  check: 'read',
  // Reads the account (or a file inside --root) and the history database; sends no change.
  lint: 'read',
};

/**
 * Options that do more than their command, by `path --flag`: a tool takes them only when the
 * server allows that much (the command itself is listed by its own class in ACCESS).
 */
export const OPTION_ACCESS: Record<string, Access> = {
  'apply --prune': 'delete',
  'export --file': 'write',
  'import --file': 'write',
  'import --rejects': 'write',
  'link qr --file': 'write',
  // Only a file is forced: with the file's own class.
  'export --force': 'write',
  'import --force': 'write',
  'link qr --force': 'write',
  // What only a file has (the terminal's drawing has its own size and colours).
  'link qr --size': 'write',
  'link qr --foreground': 'write',
  'link qr --background': 'write',
};

/**
 * Options no tool takes (`--flag`, or `command --flag` for one command's). The secret ones read from a terminal or from stdin, which a tool call
 * has neither of (and a secret should not pass through an agent's context); `api --paginate`
 * has no bound, where a list tool's `all` has one. Bulk input (`--from` and its companions) reads
 * a file or stdin and streams a result per row: a tool call creates one record. `--db` would let
 * a call open any file or connect to any database server: the history database is the one the
 * user started the server with (LINKCTL_DB, or the default). `check --fail-on` only sets the exit
 * status for scripts, which would turn the results into a tool error: an agent reads each record's
 * status instead. `import --with-clicks` writes the history database: the import tool only converts.
 * `check --allow-private` would let whoever edits a link reach the networks of the machine the
 * server runs on: the check tool never requests a private address. `check --all` only shapes the
 * terminal view (a tool's result has every record, or `problemsOnly`). `plan --detailed-exitcode`
 * is an exit status for scripts too: the plan itself says whether anything would change.
 * `qr download --dir` is the folder of `--from -` (with an id it is refused).
 */
export const NOT_FOR_TOOLS = new Set(['--password', '--password-stdin', '--with-token', '--paginate', '--from', '--from-format', '--stop-on-error', '--restart', '--verify', '--db', '--fail-on', '--with-clicks', '--allow-private', 'check --all', 'plan --detailed-exitcode', 'qr download --dir']);

/** The most records `all: true` reads; the answer says when it stopped there. */
export const ALL_CAP = 1000;

/** Records a list tool asks of the server at a time when the call gives no `limit`: a few answers' worth, one request. */
export const PAGE_SIZE = 100;

/** The size an answer of a list tool is kept under unless the call's `maxBytes` asks otherwise. */
export const MAX_BYTES = 25_000;
/** The bounds of `maxBytes`: a record or two at least; at most what clients are sure to take (a message is read up to 4 MiB). */
export const MAX_BYTES_RANGE = { min: 1_000, max: 4 * 1024 * 1024 } as const;

/** Tools whose exit code 1 means "found something" with the findings on stdout (a result, not an error). */
export const FINDINGS_EXIT: ReadonlySet<string> = new Set(['lint']);

/** Parameters the MCP layer adds to tools (not flags of the command), by name. */
export const CONTROLS = ['dryRun', 'confirm', 'cursor', 'maxBytes', 'fields'] as const;

export interface Param {
  /** The property name: the argument's name or the option's long name, camelCased. */
  name: string;
  /** `--long` of an option; undefined for a positional argument. */
  flag?: string;
  /** `-f` of an option that has one: messages may name it so (`-f account.yaml: ...`). */
  short?: string;
  /** How messages name a positional argument (`ID`, `CAMPAIGN_ID`: the validators' label). */
  label?: string;
  /** Added by the MCP layer (dryRun, confirm, cursor, maxBytes, fields; limit where the command has none): no flag of the command. */
  control?: boolean;
  /** `--no-long`, when the option has a negated form (`starred: false` sends it). */
  negated?: string;
  /** A boolean flag (no value). */
  boolean: boolean;
  /** Values are whole numbers (the definition's own validator turns "1" into a number). */
  integer: boolean;
  /** Repeatable: the property is a list, one flag per item. */
  list: boolean;
  /** More than the command's class (OPTION_ACCESS): taken only when the server allows it. */
  access?: Access;
  choices?: readonly string[];
  required: boolean;
  description: string;
}

export interface Tool {
  name: string;
  /** The command path, e.g. `['qr', 'list']`. */
  path: string[];
  access: Access;
  description: string;
  params: Param[];
  /** Takes limit, page and all (the server's pages). */
  paginated: boolean;
  /** Answers with a list that can be long: paged by `limit` and `cursor`, kept under `maxBytes`. */
  lists: boolean;
}

export interface Mode {
  writes: boolean;
  deletes: boolean;
  /**
   * `linkctl mcp --allow-admin`: the installation's admin tools (users and plans) are listed too. Off by
   * default: an admin's user list names every user of the installation, which an agent gets only
   * where the person who starts the server says so (and then by the same read/write/delete rules).
   */
  admin?: boolean;
  /** `linkctl mcp --allow-override`: write tools take `override` (a reason), passed on as --override. Never without the user's flag. */
  override?: boolean;
}

export function allowed(access: Access, mode: Mode): boolean {
  if (access === 'read') return true;
  if (access === 'delete') return mode.writes && mode.deletes;
  return mode.writes;
}

/** Leaf commands of the program with their paths (hidden ones included, so each is classified). */
export function leaves(program: Command): Array<{ path: string[]; command: Command }> {
  const walk = (command: Command, path: string[]): Array<{ path: string[]; command: Command }> =>
    command.commands.length ? command.commands.flatMap((sub) => walk(sub, [...path, sub.name()])) : [{ path, command }];
  return walk(program, []);
}

/**
 * Every tool of the program, whatever the mode; `forMode()` decides what is listed. A command
 * missing from ACCESS is no tool (test/unit/mcp-tools.test.ts fails until it is classified).
 */
export function toolsOf(program: Command): Tool[] {
  const tools: Tool[] = [];
  for (const { path, command } of leaves(program)) {
    const entry = ACCESS[path.join(' ')];
    if (typeof entry === 'string') tools.push(toolOf(command, path, entry));
  }
  return tools;
}

/** Whether a tool is one of the installation's admin (`admin users ...`, `admin plans ...`): listed only with --allow-admin. */
export const isAdminTool = (tool: Pick<Tool, 'name'>): boolean => tool.name.startsWith('admin_');

/** The tools a server in `mode` lists, each without the options the mode does not allow. */
export function forMode(tools: Tool[], mode: Mode): Tool[] {
  return tools.filter((t) => allowed(t.access, mode) && (mode.admin || !isAdminTool(t))).map((t) => {
    const params = t.params.filter((p) => !p.access || allowed(p.access, mode));
    // Only where the user allowed it: an agent's argument alone never passes the policy.
    if (mode.override && t.access !== 'read') params.push(OVERRIDE);
    return { ...t, params };
  });
}

/** The `override` argument of write tools on a server started with --allow-override (see Mode.override). */
export const OVERRIDE: Param = {
  ...control('override', "let this write through although it breaks the user's policy, saying why (recorded with the write); only when the user asked for it", { boolean: false, flag: '--override' }),
};

const camel = (name: string) => name.replace(/-+([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * A value parsed by the definition's validator: "1" becoming a number means an integer, unless
 * the validator takes a name too (`--campaign <id|name>`: "Black Friday" stays text), when the
 * tool takes a string (or a number) as the command line does; so does one that takes a word
 * beside numbers (`--concurrency 8|auto`).
 */
function parsesToNumber(parse: ((raw: string, previous: unknown) => unknown) | undefined): boolean {
  if (!parse) return false;
  const parsed = (raw: string) => {
    try {
      const value = parse(raw, undefined);
      return Array.isArray(value) ? value[0] : value;
    } catch {
      return undefined;
    }
  };
  // A word the validator keeps as text (`--concurrency auto`) makes the parameter a string too.
  return typeof parsed('1') === 'number' && typeof parsed('Black Friday') !== 'string' && typeof parsed('auto') !== 'string';
}

/** A parser that appends to the previous value (a repeatable flag not built with `many`), tried on a few plain values. */
function accumulates(parse: ((raw: string, previous: unknown) => unknown) | undefined): boolean {
  if (!parse) return false;
  const before = Symbol('before');
  for (const raw of ['1', 'a=b', 'x']) {
    try {
      const value = parse(raw, [before]);
      return Array.isArray(value) && value[0] === before && value.length === 2;
    } catch {
      // not a value this parser takes: try the next one
    }
  }
  return false;
}

function argumentParam(argument: Argument): Param {
  const parse = (argument as unknown as { parseArg?: (raw: string, previous: unknown) => unknown }).parseArg;
  return {
    name: camel(argument.name()),
    // The label the validators give it (`positiveInt('CAMPAIGN_ID', v)`), which messages start with.
    label: argument.name().toUpperCase().replace(/-/g, '_'),
    boolean: false,
    integer: !argument.argChoices?.length && parsesToNumber(parse),
    list: argument.variadic,
    choices: argument.argChoices?.length ? argument.argChoices : undefined,
    required: argument.required,
    description: argument.description,
  };
}

function optionParams(command: Command, path: string[]): Param[] {
  const help = command.createHelp();
  // `--concurrency` paces the many requests of a job; where they come from `--from` (which no tool takes), a call sends one.
  const fromFile = command.options.some((o) => o.long === '--from');
  const options = help.visibleOptions(command).filter((o) => o.long && o.long !== '--help' && !NOT_FOR_TOOLS.has(o.long) && !NOT_FOR_TOOLS.has(`${path.join(' ')} ${o.long}`) && !(fromFile && o.long === '--concurrency'));
  const params = new Map<string, Param>();
  for (const option of options) {
    const name = option.attributeName();
    const existing = params.get(name);
    if (option.negate) {
      // `--no-starred` beside `--starred` (one boolean), or alone (`verify: false` sends `--no-verify`).
      if (existing) existing.negated = option.long;
      else params.set(name, { ...booleanParam(name, option), negated: option.long });
      continue;
    }
    params.set(name, valueParam(name, option, existing));
  }
  return [...params.values()];
}

function booleanParam(name: string, option: Option): Param {
  return { name, short: option.short, boolean: true, integer: false, list: false, required: false, description: agentNotes(option) ?? option.description };
}

function valueParam(name: string, option: Option, negated: Param | undefined): Param {
  if (!option.required && !option.optional) return { ...booleanParam(name, option), flag: option.long, negated: negated?.negated };
  const parse = option.parseArg as ((raw: string, previous: unknown) => unknown) | undefined;
  return {
    name,
    flag: option.long,
    short: option.short,
    boolean: false,
    integer: !option.argChoices?.length && parsesToNumber(parse),
    list: isRepeatable(option) || accumulates(parse),
    choices: option.argChoices?.length ? option.argChoices : undefined,
    required: option.mandatory,
    description: agentNotes(option) ?? option.description,
  };
}

function toolOf(command: Command, path: string[], access: Access): Tool {
  const params = [...command.registeredArguments.map(argumentParam), ...optionParams(command, path)];
  for (const p of params) {
    const access = p.flag ? OPTION_ACCESS[`${path.join(' ')} ${p.flag}`] : undefined;
    if (access) p.access = access;
  }
  const paginated = ['limit', 'page', 'all'].every((n) => params.some((p) => p.name === n));
  const lists = isList(command);
  // No description: these are in every list tool, and how paging works is said once, in the
  // server's instructions (PAGING), not in each tool's schema.
  for (const p of params) {
    if (paginated && ['all', 'limit', 'page'].includes(p.name)) p.description = '';
    if ((CONTROLS as readonly string[]).includes(p.name)) throw new Error(`internal: ${path.join(' ')} has a flag named like a tool control (${p.name})`);
  }
  if (lists) {
    if (!params.some((p) => p.name === 'limit')) params.push(control('limit', '', { integer: true }));
    params.push(control('cursor', '', { boolean: false }), control('maxBytes', '', { integer: true }), control('fields', '', { list: true, flag: '--fields' }));
  }
  if (access !== 'read') params.push(control('dryRun', 'return the request that would be sent, and send nothing', { flag: '--dry-run' }));
  if (access === 'confirm' || access === 'delete') {
    params.push(control('confirm', 'go ahead with a change that loses something; call first without it to see what would be lost', { flag: '--yes' }));
  }
  const tool: Tool = { name: path.join('_'), path, access, description: '', params, paginated, lists };
  // Written for the agent: the parameters by their names, without asides about a terminal or exit codes.
  // Asides in parentheses are a person's detail (a terminal, an exit code, "repeatable" where the
  // schema says array, the cost in requests): an agent gets the sentence, and the defaults.
  for (const p of params) p.description = inToolTerms(tool, p.description.replace(/\s*\(([^()]*)\)/g, (aside, inside: string) => (/\bdefault\b/.test(inside) || inside.length <= 12 ? aside : '')));
  const notes = forAgent(tool, agentNotes(command) ?? helpNotes(command));
  tool.description = `${inToolTerms(tool, withoutCliAsides(tool, command.description()))}${notes ? `\n\n${notes}` : ''}`;
  return tool;
}

/**
 * How list tools page, said once for every tool (the server's instructions), not in each schema.
 */
export const PAGING =
  `Tools that list (those with cursor and maxBytes) answer {summary, records, nextCursor}, kept under maxBytes bytes (default ${thousands(MAX_BYTES)}, ${thousands(MAX_BYTES_RANGE.min)} to ${thousands(MAX_BYTES_RANGE.max)}). ` +
  'When nextCursor is not null, call the same tool with {cursor: nextCursor} for the records that did not fit (the cursor keeps that call\'s other arguments; give limit or maxBytes again to change them). ' +
  `limit: at most this many records in an answer (where the tool also has page and all, it is also the page size asked of the server, default ${PAGE_SIZE}). ` +
  `page: start at this page of limit records (default 1). all: true reads every page (up to ${thousands(ALL_CAP)} records, and says so). fields: only these keys of each record (those of the CLI's --json), so that more records fit an answer.`;

/** Flags (`--json`, `-o`) in `text` that the tool takes no parameter for: a person's, not an agent's. */
function cliOnlyFlags(tool: Tool, text: string): string[] {
  const takes = (flag: string) => tool.params.some((p) => p.flag === flag || p.short === flag);
  return [...text.matchAll(/(?:^|[\s(`[,])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?=[\s`),.:;\]=|]|$)/g)].map((m) => m[1]!).filter((flag) => !takes(flag));
}

/** `text` without its parenthetical asides that name a person's flags (`(--json, -o ndjson|csv)`). */
function withoutCliAsides(tool: Tool, text: string): string {
  return text.replace(/\s*\([^()]*\)/g, (aside) => (cliOnlyFlags(tool, aside).length ? '' : aside));
}

/**
 * Help notes in the tool's terms: flags become the tool's parameters (`--alias` → `alias`); a
 * sentence that needs what a tool cannot give (a flag it does not take, such as -q or
 * --fail-on, an exit code, a terminal) is left out, as is the line naming the global options.
 */
function forAgent(tool: Tool, notes: string): string {
  const cliOnly = (sentence: string) => /\bexit(s| codes?| status)?\b|\bterminal\b|\bstdout\b|\bstderr\b|--help/i.test(sentence) || cliOnlyFlags(tool, sentence).length > 0;
  return notes
    .split('\n\n')
    .filter((paragraph) => !paragraph.startsWith('Global options, anywhere on the line') && !/^Never through linkctl mcp\.$/.test(paragraph))
    // Asides naming a person's flags go first, then each sentence or clause that still needs one.
    .map((paragraph) => {
      const kept: string[] = [];
      for (const clause of clauses(withoutCliAsides(tool, paragraph))) {
        const sentence = (kept.length === 0 || kept.at(-1)!.endsWith('.')) && !clause.startsWith('linkctl');
        if (!cliOnly(clause)) kept.push(sentence ? clause[0]!.toUpperCase() + clause.slice(1) : clause);
        // What led up to a clause left out ends there.
        else if (kept.length && /[:;,]$/.test(kept.at(-1)!)) kept[kept.length - 1] = `${kept.at(-1)!.slice(0, -1)}.`;
      }
      return kept.join(' ').replace(/[:;,]$/, '.');
    })
    .filter(Boolean)
    .map((paragraph) => inToolTerms(tool, paragraph))
    .join('\n\n');
}

/** A paragraph's sentences and clauses: split after `.`, `;` or `:` outside parentheses. */
function clauses(paragraph: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < paragraph.length; i++) {
    const c = paragraph[i]!;
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0 && /[.;:]/.test(c) && paragraph[i + 1] === ' ') {
      out.push(paragraph.slice(start, i + 1).trim());
      start = i + 1;
    }
  }
  out.push(paragraph.slice(start).trim());
  return out.filter(Boolean);
}

/** The paragraphs a command's help adds after its options (what real servers do, ...), without its CLI examples and bulk input. */
function helpNotes(command: Command): string {
  let text = '';
  const output = command.configureOutput();
  command.configureOutput({ ...output, writeOut: (s: string) => (text += s) });
  try {
    command.outputHelp();
  } finally {
    command.configureOutput(output);
  }
  return text
    .slice(command.helpInformation().length)
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim().replace(/\s*\n\s*/g, ' '))
    // Bulk input (--from) is not for tools: its columns and examples stay out too.
    .filter((paragraph) => paragraph && !paragraph.startsWith('Examples:') && !paragraph.startsWith('Bulk '))
    .join('\n\n');
}

/** A parameter of the MCP layer: a boolean unless `shape` says otherwise; `flag` is the CLI's, for messages that name it. */
function control(name: string, description: string, shape: Partial<Pick<Param, 'boolean' | 'integer' | 'list' | 'flag'>> = {}): Param {
  const boolean = shape.boolean ?? !(shape.integer || shape.list);
  return { name, boolean, integer: false, list: false, ...shape, required: false, description, control: true };
}

/**
 * A note written for the command line (`page 1 of 4 ...; --all for every record`, `--page 2 for
 * more`) in the tool's own terms (`all: true`, `page: 2`): the agent calls the tool, not the CLI.
 * Flags that are no argument of the tool stay as they are.
 */
export function inToolTerms(tool: Tool, text: string): string {
  const named = (p: Param, value: string | undefined) => {
    if (p.boolean) return `\`${p.name}: true\`${value === undefined ? '' : ` ${value}`}`;
    return value === undefined ? `\`${p.name}\`` : `\`${p.name}: ${value}\``;
  };
  return (
    text
      .replace(/--([a-z][a-z0-9-]*)(?: (\d+))?/g, (whole, flag: string, value: string | undefined) => {
        const p = tool.params.find((q) => q.flag === `--${flag}`);
        return p ? named(p, value) : whole;
      })
      // `-f account.yaml: ...`: a short flag, where it stands as one (not inside a word or a range).
      .replace(/(^|[\s(`])-([a-zA-Z])(?=[\s`),:]|$)/gm, (whole, before: string, letter: string) => {
        const p = tool.params.find((q) => q.short === `-${letter}`);
        return p ? `${before}${named(p, undefined)}` : whole;
      })
      // A message about a positional argument starts with its label: `linkctl: ID must be ...`.
      .replace(/^(linkctl: )?([A-Z][A-Z_]*)\b(?= )/gm, (whole, prefix: string | undefined, label: string) => {
        const p = tool.params.find((q) => q.label === label);
        return p ? `${prefix ?? ''}\`${p.name}\`` : whole;
      })
  );
}

/** The tool's input schema, as JSON Schema. */
export function inputSchema(tool: Tool): { type: 'object'; properties: Record<string, object>; required?: string[] } {
  const properties: Record<string, object> = {};
  for (const p of tool.params) {
    const value = p.boolean ? { type: 'boolean' } : p.choices ? { type: 'string', enum: [...p.choices] } : { type: p.integer ? 'integer' : 'string' };
    // An empty description is left out (the paging controls: the server's instructions explain them).
    const described = p.description ? { description: p.description } : {};
    properties[p.name] = p.list ? { type: 'array', items: value, ...described } : { ...value, ...described };
  }
  const required = tool.params.filter((p) => p.required).map((p) => p.name);
  // No additionalProperties: false, to keep tools/list small: checkArguments refuses an unknown property, naming those the tool takes.
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/** A call's arguments that do not fit the schema: a message naming the property, or undefined. */
export function checkArguments(tool: Tool, args: Record<string, unknown>): string | undefined {
  for (const [name, value] of Object.entries(args)) {
    const p = tool.params.find((q) => q.name === name);
    if (!p) return `unknown property "${name}"; ${tool.name} takes ${tool.params.map((q) => q.name).join(', ') || 'nothing'}`;
    if (value === undefined || value === null) continue;
    // A single value where a list is taken is a list of one (`id: 3` for the ids of a delete).
    const items = Array.isArray(value) ? value : [value];
    if (Array.isArray(value) && !p.list) return `${name} takes one value, not a list`;
    for (const item of items) {
      if (p.boolean ? typeof item !== 'boolean' : typeof item !== 'string' && !(typeof item === 'number' && Number.isFinite(item))) {
        return `${name} must be ${p.boolean ? 'true or false' : p.integer ? 'a whole number' : 'a string'}, got ${JSON.stringify(item)}`;
      }
    }
  }
  for (const p of tool.params) if (p.required && (args[p.name] === undefined || args[p.name] === null)) return `${p.name} is required`;
  return undefined;
}

/**
 * The argv of linkctl for a call: the command path, its options as `--flag=value` (a value
 * starting with "-" stays a value), `--json`, then `--` and the positional arguments.
 * `dryRun` and `confirm` become `--dry-run` and `--yes`, `fields` `--fields`; the other controls
 * (cursor, maxBytes) are the server's. Call `checkArguments` first.
 */
export function argvOf(tool: Tool, args: Record<string, unknown>, extra: { page?: number; limit?: number; all?: boolean } = {}): string[] {
  const options: string[] = [];
  const positional: string[] = [];
  let missing = false;
  for (const p of tool.params) {
    let value = args[p.name];
    if (tool.paginated && p.name in extra) value = extra[p.name as keyof typeof extra];
    if (p.name === 'dryRun') {
      if (value === true) options.push('--dry-run');
      continue;
    }
    if (p.name === 'confirm') {
      if (value === true) options.push('--yes');
      continue;
    }
    if (p.name === 'override') {
      if (typeof value === 'string' && value) options.push(`--override=${value}`);
      continue;
    }
    if (p.name === 'fields') {
      if (Array.isArray(value) && value.length) options.push(`--fields=${value.join(',')}`);
      else if (typeof value === 'string' && value) options.push(`--fields=${value}`);
      continue;
    }
    if (p.control) continue; // cursor, maxBytes, and a limit the command does not have: the server's own
    const isArgument = !p.flag && !p.boolean;
    if (value === undefined || value === null) {
      if (isArgument) missing = true;
      continue;
    }
    if (p.boolean) {
      if (value === true && p.flag) options.push(p.flag);
      else if (value === false && p.negated) options.push(p.negated);
    } else if (isArgument) {
      // A positional argument after a missing optional one cannot be placed.
      if (missing) throw new Error(`${p.name} needs the argument before it`);
      positional.push(...(Array.isArray(value) ? value : [value]).map(String));
    } else {
      for (const item of Array.isArray(value) ? value : [value]) options.push(`${p.flag}=${String(item)}`);
    }
  }
  return [...tool.path, ...options, '--json', '--', ...positional];
}
