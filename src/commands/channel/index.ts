/** `channel`: channels and their items. Flags and help only; the work is in ./actions.ts, loaded when a command runs. */
import type { Command } from 'commander';
import { bulkOptions, deleteCommand, enumArgument, listCommand, paginationOptions, withExamples, type Bind } from '../shared/define.js';
import { idOrName, nonEmpty, positiveInt } from '../../validate.js';
import { UsageError } from '../../errors.js'; // already loaded by validate.js: no start-up cost
import { ignoredOnUpdate, MIN_UPDATE_TEXT } from '../../model/channels.js';
import { CHANNEL_ITEM_TYPES } from './types.js';

/** A channel by id or by name (as `link add --channel` takes it): a name is looked up in the account's channels. */
const channelRef = (v: string) => idOrName('CHANNEL', v);
const name = (v: string) => nonEmpty('--name', v, 2);
/** On update, what real servers would store: shorter text is ignored with a success answer. */
const updated = (flag: string, field: 'name' | 'description') => (v: string) => {
  const ignored = ignoredOnUpdate(field, v);
  if (ignored) throw new UsageError(`${flag} must have at least ${MIN_UPDATE_TEXT} characters on update: ${ignored}`, field === 'name' ? 'give a longer name' : 'give a description of 3 characters or more; to empty it, use the web interface');
  return v;
};
/** Any colour text: the product keeps it, cleaned and cut to 7 bytes (the action says what it will store). */
const color = (v: string) => nonEmpty('--color', v);

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const channel = program.command('channel').description('Manage channels, which group short links, bio pages and QR codes');

  listCommand(channel, bind, load, 'channels');

  withExamples(
    paginationOptions(
      channel.command('items').description('List the items (links, bio pages, QR codes) of a channel').argument('<id>', 'channel id', (v) => positiveInt('ID', v)),
    ).action(bind(load, 'items')),
    ['linkctl channel items 1', 'linkctl channel items 1 --limit 50 --page 2', 'linkctl channel items 1 --all --json'],
  );

  withExamples(
    bulkOptions(channel
      .command('add')
      .description('Create a channel')
      .requiredOption('--name <name>', 'channel name, at least 2 characters', name)
      .option('--description <text>', 'a description')
      .option('--color <colour>', 'badge colour: #RRGGBB, or any text up to 7 characters (servers cut longer ones)', color)
      .option('--starred', 'star the channel')
      .action(bind(load, 'add')), ['linkctl channel add --from channels.ndjson']),
    ['linkctl channel add --name Sales', "linkctl channel add --name Press --description 'Press kit links' --color '#1e88e5' --starred", 'linkctl channel add --name Urgent --color red'],
  );

  withExamples(
    channel
      .command('update')
      .description('Change a channel (give at least one change)')
      .argument('<id>', 'channel id', (v) => positiveInt('ID', v))
      .option('--name <name>', `new name, at least ${MIN_UPDATE_TEXT} characters (servers ignore shorter ones on update)`, updated('--name', 'name'))
      .option('--description <text>', `new description, at least ${MIN_UPDATE_TEXT} characters (servers ignore shorter ones on update: it cannot be cleared)`, updated('--description', 'description'))
      .option('--color <colour>', 'new badge colour: #RRGGBB, or any text up to 7 characters (servers cut longer ones)', color)
      .option('--starred', 'star the channel')
      .option('--no-starred', 'unstar the channel')
      .action(bind(load, 'update')),
    ['linkctl channel update 1 --name Sales', "linkctl channel update 1 --color '#ff8800' --no-starred"],
  );

  deleteCommand(channel, bind, load, 'channel', ' (its items are unassigned, not deleted)');

  withExamples(
    channel
      .command('assign')
      .description('Add short links, bio pages or QR codes to a channel')
      .argument('<channel>', 'channel id or name', channelRef)
      .addArgument(enumArgument('<type>', 'item type (link is the same as links)', CHANNEL_ITEM_TYPES))
      .argument('<item-id...>', 'ids of the links, bio pages or QR codes', (v, previous: number[] = []) => [...previous, positiveInt('ITEM_ID', v)])
      .action(bind(load, 'assign')),
    ['linkctl channel assign 1 link 2', 'linkctl channel assign 1 link 1 2', 'linkctl channel assign Marketing link 2', 'linkctl channel assign 1 qr 1', 'linkctl channel assign 1 bio 1'],
  );
}
