/** `campaign`: campaigns (groups of short links with an optional rotator). Flags and help only; the work is in ./actions.ts. */
import { Option, type Command } from 'commander';
import { bulkOptions, deleteCommand, listCommand, withExamples, type Bind } from '../shared/define.js';
import { UsageError } from '../../errors.js';
import { nonEmpty, positiveInt } from '../../validate.js';
import { campaignNameIgnoredOnUpdate } from '../../model/campaigns.js';

/** Servers silently rewrite other characters (`my slug!` becomes `my-slug`), so the client refuses them. */
function slug(raw: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw new UsageError(`--slug may contain only letters, digits, - and _; got "${raw}"`, 'e.g. --slug spring-2027');
  return raw;
}

/** Slug and access flags, shared by `campaign add` and `campaign update`. */
function campaignOptions(command: Command): Command {
  return command
    .option('--slug <slug>', 'rotator slug: letters, digits, - and _', (v) => slug(v))
    .addOption(new Option('--public', 'anyone with the list URL can see the campaign').conflicts('private'))
    .addOption(new Option('--private', 'only you can see the campaign').conflicts('public'));
}

const name = (v: string) => nonEmpty('--name', v, 2);
/** An update's name: one the product would ignore in silence (2 bytes or less) is refused. */
const newName = (v: string) => {
  name(v);
  const ignored = campaignNameIgnoredOnUpdate(v);
  if (ignored) throw new UsageError(`--name: ${ignored}`, 'give a name of 3 characters or more');
  return v;
};

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const campaign = program.command('campaign').description('Manage campaigns and assign short links to them');

  listCommand(campaign, bind, load, 'campaigns');

  withExamples(
    // The document marks every field optional, but servers refuse a name under 2 characters,
    // a missing one included, so --name is required here rather than failing on the server.
    bulkOptions(campaignOptions(campaign.command('add').description('Create a campaign').requiredOption('--name <name>', 'campaign name, at least 2 characters', name)).action(bind(load, 'add')), ['linkctl campaign add --from campaigns.csv   # name,slug,public']),
    ['linkctl campaign add --name "Summer launch"', 'linkctl campaign add --name "Autumn launch" --slug autumn --public --json'],
  );

  withExamples(
    campaignOptions(
      campaign
        .command('update')
        .description('Change a campaign; the API needs its name with every update, so without --name linkctl reads it from the campaign list (one more request a page)')
        .argument('<id>', 'id of the campaign', (v) => positiveInt('ID', v))
        .option('--name <name>', 'new name, at least 3 characters (servers ignore a shorter one on update)', newName),
    ).action(bind(load, 'update')),
    ['linkctl campaign update 1 --name "Summer launch"', 'linkctl campaign update 1 --private', 'linkctl campaign update 1 --name "Summer launch" --slug summer --private'],
  );

  withExamples(
    campaign
      .command('assign')
      .description('Put one or more short links into a campaign')
      .argument('<campaign-id>', 'id of the campaign', (v) => positiveInt('CAMPAIGN_ID', v))
      .argument('<link-id...>', 'ids of the short links (see `linkctl link list`)', (v, previous: number[] = []) => [...previous, positiveInt('LINK_ID', v)])
      .action(bind(load, 'assign')),
    ['linkctl campaign assign 1 2', 'linkctl campaign assign 1 1 2'],
  );

  deleteCommand(campaign, bind, load, 'campaign', ' (its links stay, without a campaign)');
}
