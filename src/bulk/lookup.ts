/**
 * Looking a row's record up after a create whose answer was lost ("may or may not have been
 * created"): the row names the record by its natural key (src/model/: a link by its alias, or else
 * its destination; a QR code, pixel, campaign or channel by its name; a domain by its URL), and the
 * reader asks the server now. Found: the row is done. Provably absent: it may be sent again.
 */
import type { Rec } from '../output/types.js';
import type { ActionInput } from '../commands/shared/define.js';
import type { Kind } from '../model/index.js';
import type { AccountReader } from '../model/reader.js';
import { keyMatch, noSlash } from '../model/values.js';
import { destinationKey } from '../model/links.js';

type Wanted = { kind: Kind; wanted: { key: string } | { destination: string } };

const byName = (kind: Kind) => ({ opts }: ActionInput): Wanted | undefined => (typeof opts.name === 'string' ? { kind, wanted: { key: opts.name } } : undefined);

/** What identifies the record a row of each creating command makes. */
const IDENTITY: Record<string, (input: ActionInput) => Wanted | undefined> = {
  'link add': ({ args, opts }) => ({ kind: 'links', wanted: typeof opts.alias === 'string' ? { key: opts.alias } : { destination: String(args[0]) } }),
  'qr add': byName('qr'),
  'pixel add': byName('pixels'),
  'campaign add': byName('campaigns'),
  'channel add': byName('channels'),
  'domain add': ({ args }) => ({ kind: 'domains', wanted: { key: noSlash(String(args[0])) } }),
};

/** Whether the command has a way to look a row's record up. */
export function canLookUp(command: string): boolean {
  return command in IDENTITY;
}

/** The record the row created, null when provably absent, undefined when the row names nothing to look for. */
export async function lookUp(reader: AccountReader, command: string, input: ActionInput): Promise<Rec | null | undefined> {
  const identity = IDENTITY[command]?.(input);
  if (!identity) return undefined;
  const [found] = await reader.fresh(identity.kind, identity.wanted);
  return found ?? null;
}

/**
 * What a row touches in the account, as keys: rows that share a key run one after the other in
 * the file's order (a link's create before its update, one id's update before its delete); rows
 * that share none may run at the same time. A create touches its natural key (a link also its
 * destination, by which a row without an alias finds it), an update or delete its ids.
 */
export function rowKeys(command: string, input: ActionInput): string[] {
  const keys: string[] = [];
  const identity = IDENTITY[command]?.(input);
  if (identity) keys.push('key' in identity.wanted ? `${identity.kind}:key:${keyMatch(identity.wanted.key)}` : `${identity.kind}:destination:${destinationKey(identity.wanted.destination)}`);
  if (command === 'link add' && typeof input.args[0] === 'string') keys.push(`links:destination:${destinationKey(input.args[0])}`);
  if (!identity) for (const id of [input.args[0]].flat()) if (id !== undefined) keys.push(`${command.split(' ')[0]}:id:${String(id)}`);
  return [...new Set(keys)];
}
