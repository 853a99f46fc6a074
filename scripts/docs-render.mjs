// The command reference (docs/commands/*.md) and the man pages (man/*.1) as text, from the
// command tree (src/help-templates.ts, commandPages). Pure: no file is read or written here, so
// that scripts/docs.mjs writes them and test/unit/docs-generated.test.ts compares them with
// what is committed, from the same function.

/** `linkctl-link-add`: the page's name, for both the Markdown file and the man page. */
export const pageName = (path) => ['linkctl', ...path].join('-');

/**
 * Every generated file: { 'docs/commands/linkctl-link-add.md': text, 'man/linkctl-link-add.1': text, ... }.
 * `pages` from commandPages(), `exitCodes` the EXIT_CODE_HELP text, `version` the package's.
 */
export function renderReference(pages, exitCodes, version) {
  const files = {};
  const program = pages.find((p) => p.path.length === 0);
  const exitRows = exitCodes.split('\n').slice(1).map((line) => /^\s*(\d+)\s+(.*)$/.exec(line)).filter(Boolean).map((m) => [m[1], m[2]]);
  for (const page of pages) {
    files[`docs/commands/${page.path.length ? pageName(page.path) : 'README'}.md`] = markdown(page, pages, program, exitRows);
    files[`man/${pageName(page.path)}.1`] = man(page, program, exitRows, version);
  }
  return files;
}

/** The man field of package.json: every man page, in the order of the command tree. */
export function manField(pages) {
  return pages.map((p) => `man/${pageName(p.path)}.1`);
}

const GENERATED = 'Generated from the program by `npm run docs` (scripts/docs.mjs); do not edit.';

function markdown(page, pages, program, exitRows) {
  const name = ['linkctl', ...page.path].join(' ');
  const link = (path) => (path.length ? `${pageName(path)}.md` : 'README.md');
  const out = [`# ${name}`, '', `<!-- ${GENERATED} -->`, '', page.description, ''];
  if (page.path.length === 0) out.push('With this reference you will be able to look up every command of linkctl: its usage, options, examples and exit codes. The [guides](../README.md) explain the jobs they do together.', '');
  out.push('```', `${name} ${page.usage}`, '```', '');
  if (page.aliases.length) out.push(`Also: ${page.aliases.map((a) => `\`${['linkctl', ...page.path.slice(0, -1), a].join(' ')}\``).join(', ')}.`, '');
  if (page.path.length) {
    const parents = page.path.slice(0, -1).map((_, i) => page.path.slice(0, i + 1));
    out.push(`Part of [linkctl](${link([])})${parents.map((p) => ` › [${p.at(-1)}](${link(p)})`).join('')}.`, '');
  }
  if (page.arguments.length) {
    out.push('## Arguments', '');
    for (const a of page.arguments) out.push(`- \`${a.required ? `<${a.name}${a.variadic ? '...' : ''}>` : `[${a.name}${a.variadic ? '...' : ''}]`}\`: ${inline(a.description)}`);
    out.push('');
  }
  if (page.options.length) {
    out.push(page.path.length ? '## Options' : '## Global options', '');
    if (page.path.length === 0) out.push('These work anywhere on the command line, with every command.', '');
    for (const o of page.options) out.push(`- \`${o.flags}\`: ${inline(o.description)}`);
    out.push('');
  }
  if (page.path.length) out.push(`With the [global options](${link([])}#global-options).`, '');
  if (page.commands.length) {
    out.push('## Commands', '');
    for (const c of page.commands) out.push(`- [\`${name} ${c.name}\`](${link([...page.path, c.name])}): ${inline(c.description)}`);
    out.push('');
  }
  if (page.examples.length) out.push('## Examples', '', '```sh', ...page.examples, '```', '');
  if (page.more) out.push('## More from its help', '', '```text', page.more, '```', '');
  out.push('## Exit codes', '', '| code | meaning |', '|---|---|', ...exitRows.map(([code, text]) => `| ${code} | ${inline(text).replace(/\|/g, '\\|')} |`), '');
  out.push(`See also: ${seeAlso(page, pages).map((p) => `[${['linkctl', ...p].join(' ')}](${link(p)})`).join(', ')}; \`man ${pageName(page.path)}\`.`, '');
  return out.join('\n');
}

/** Its parent and its subcommands. */
function seeAlso(page, pages) {
  const parent = page.path.length ? [page.path.slice(0, -1)] : [];
  const children = pages.filter((p) => p.path.length === page.path.length + 1 && page.path.every((n, i) => p.path[i] === n)).map((p) => p.path);
  return [...parent, ...children];
}

/** Help text in Markdown prose: backticks kept, nothing else has meaning there but `<`, `*`, `_`. */
function inline(text) {
  // Inside `code` nothing is escaped (a backslash would show); outside, the characters Markdown reads.
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 ? part : part.replace(/[<>*_[\]]/g, (c) => `\\${c}`)))
    .join('')
    .replace(/\n/g, ' ');
}

function man(page, program, exitRows, version) {
  const name = pageName(page.path);
  const out = [
    `.\\" ${GENERATED}`,
    `.TH "${name.toUpperCase()}" "1" "" "linkctl ${version}" "linkctl manual"`,
    '.SH NAME',
    `${name} \\- ${roff(page.description)}`,
    '.SH SYNOPSIS',
    `.B ${roff(['linkctl', ...page.path].join(' '))}`,
    roff(page.usage),
  ];
  if (page.aliases.length) out.push('.PP', `Also: ${page.aliases.map((a) => `\\fB${roff(['linkctl', ...page.path.slice(0, -1), a].join(' '))}\\fR`).join(', ')}.`);
  out.push('.SH DESCRIPTION', roff(page.description));
  if (page.arguments.length) {
    out.push('.SH ARGUMENTS');
    for (const a of page.arguments) out.push('.TP', `.I ${roff(a.name)}${a.variadic ? '...' : ''}`, roff(a.description));
  }
  const section = (title, options) => {
    out.push(`.SH ${title}`);
    for (const o of options) out.push('.TP', `.B ${roff(o.flags)}`, roff(o.description));
  };
  if (page.path.length && page.options.length) section('OPTIONS', page.options);
  if (page.path.length) out.push('.SH GLOBAL OPTIONS', 'The options of \\fBlinkctl\\fR(1) work with this command too, anywhere on the line.');
  else section('OPTIONS', program.options);
  if (page.commands.length) {
    out.push('.SH COMMANDS');
    for (const c of page.commands) out.push('.TP', `.B ${roff(c.name)}`, `${roff(c.description)} See \\fB${name}-${roff(c.name)}\\fR(1).`);
  }
  if (page.moreForMan) out.push('.SH NOTES AND EXAMPLES', '.nf', ...page.moreForMan.split('\n').map(roffLine), '.fi');
  out.push('.SH EXIT STATUS');
  for (const [code, text] of exitRows) out.push('.TP', `.B ${code}`, roff(text));
  const also = [...(page.path.length ? [pageName(page.path.slice(0, -1))] : []), ...page.commands.map((c) => `${name}-${c.name}`)];
  if (also.length) out.push('.SH SEE ALSO', also.map((n) => `\\fB${roff(n)}\\fR(1)`).join(', '));
  return `${out.join('\n')}\n`;
}

/** Text safe in a troff line: backslashes escaped, hyphens as hyphens, no line starting a request. */
function roff(text) {
  return text.replace(/\\/g, '\\e').replace(/-/g, '\\-').replace(/\n/g, ' ').replace(/^([.'])/, '\\&$1');
}
/** One line of a no-fill block, as it is. */
function roffLine(line) {
  return roff(line) || '';
}
