/**
 * `plan -o markdown`: the plan as a pull-request comment, a summary line and then the changes in
 * a collapsible `<details>` list. Names and values come from the file and the server, so each is
 * shown as a code span of its own (made one line and terminal-safe first): in a code span,
 * markdown, HTML, @mentions, #references and bare URLs are shown as text, never acted on.
 */
import { safeText } from '../output/safe-text.js';
import { specs } from './model.js';
import type { Change, Plan } from './engine.js';

/** GitHub refuses comments over 65,536 characters: the list stops well before, and says how many are left. */
const MAX_LENGTH = 60_000;
const VERB = { create: 'add', update: 'change', delete: 'delete' } as const;

/** `text` as a code span that nothing in it can close or break out of. */
export function codeSpan(text: string): string {
  const line = safeText(text); // control characters and line breaks as visible escapes: the span stays on one line
  const longest = Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = line.startsWith('`') || line.endsWith('`') || line.startsWith(' ') || line === '' ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

const value = (v: unknown) => codeSpan(v === undefined || v === null ? '(none)' : JSON.stringify(v));

function item(change: Change): string {
  const head = `- **${VERB[change.action]}** ${specs()[change.kind].noun} ${codeSpan(change.key)}`;
  const parts: string[] = [];
  if (change.action === 'update') parts.push([...change.fields!.map((f) => `${f.field} ${value(f.from)} → ${value(f.to)}`), ...(change.sends?.length ? [`sends ${change.sends.join(', ')} (cannot be compared${change.sendsWhy ? `: ${change.sendsWhy}` : ''})`] : [])].join(', '));
  if (change.storedAs?.length) parts.push(`stored as ${change.storedAs.map((s) => `${s.field} ${s.as === null ? '(as the server romanises it)' : value(s.as)}`).join(', ')}`);
  if (change.unreadable?.length && change.action !== 'delete') parts.push(`also sent, cannot be read back: ${change.unreadable.join(', ')}`);
  for (const v of change.violations ?? []) parts.push(`**breaks the policy**: ${codeSpan(v)}`);
  if (change.clears?.length) parts.push(`**clears** what the file does not state: ${change.clears.join('; ')}`);
  if (change.clearsKnown?.length) parts.push(`of which linkctl set: ${change.clearsKnown.map(codeSpan).join(', ')}`);
  if (change.clearsUnset?.length) parts.push(`of which linkctl set none, which another writer may have set since: ${change.clearsUnset.join('; ')}`);
  if (change.clearsKnown && change.clearsUnknowable?.length) parts.push(`of which no one can know: ${change.clearsUnknowable.join('; ')}`);
  return parts.length ? `${head}: ${parts.join('; ')}` : head;
}

export function planMarkdown(plan: Plan): string {
  const count = (action: Change['action']) => plan.changes.filter((c) => c.action === action).length;
  if (!plan.changes.length) return `**linkctl plan**: no changes, the account matches the file.\n${notes(plan)}`;
  const clearing = plan.changes.filter((c) => c.clears?.length).length;
  const breaking = plan.changes.filter((c) => c.violations?.length).length;
  const lines = [
    `**linkctl plan**: ${count('create')} to add, ${count('update')} to change, ${count('delete')} to delete.${clearing ? ` ${clearing} update${clearing === 1 ? '' : 's'} would **clear** settings the file does not state (apply needs \`--allow-clear\`).` : ''}${breaking ? ` :x: ${breaking} change${breaking === 1 ? '' : 's'} **break the policy** (apply refuses them without \`--override\`).` : ''}`,
    '',
    '<details>',
    `<summary>${plan.changes.length} change${plan.changes.length === 1 ? '' : 's'}</summary>`,
    '',
  ];
  let length = lines.join('\n').length;
  let shown = 0;
  for (const change of plan.changes) {
    const line = item(change);
    if (length + line.length > MAX_LENGTH) break;
    lines.push(line);
    length += line.length + 1;
    shown++;
  }
  if (shown < plan.changes.length) lines.push(`- … and ${plan.changes.length - shown} more: \`linkctl plan\` lists them all`);
  lines.push('', '</details>');
  return `${lines.join('\n')}\n${notes(plan)}`;
}

function notes(plan: Plan): string {
  if (!plan.notes.length) return '';
  const cut = (note: string) => (note.length > 1_000 ? `${note.slice(0, 999)}…` : note);
  return `\n${plan.notes.map((n) => `> **Note:** ${codeSpan(cut(n))}`).join('\n>\n')}\n`;
}
