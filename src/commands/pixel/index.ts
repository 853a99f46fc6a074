/** `pixel`: tracking pixels. Flags and help only; the work is in ./actions.ts, loaded when a command runs. */
import type { Command } from 'commander';
import { bulkOptions, deleteCommand, enumOption, listCommand, withExamples, type Bind } from '../shared/define.js';
import { nonEmpty, positiveInt } from '../../validate.js';
import { PIXEL_TYPES } from '../../model/pixel-types.js';

const tag = (v: string) => nonEmpty('--tag', v, 3);
const name = (v: string) => nonEmpty('--name', v);

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const pixel = program.command('pixel').description('Manage tracking pixels');

  listCommand(pixel, bind, load, 'tracking pixels');

  withExamples(
    bulkOptions(pixel
      .command('add')
      .description('Create a tracking pixel')
      .addOption(enumOption('--type <type>', 'pixel type', PIXEL_TYPES).makeOptionMandatory())
      .requiredOption('--name <name>', 'a name for the pixel', name)
      .requiredOption('--tag <tag>', 'the pixel tag or id from the ad platform, at least 3 characters', tag)
      .action(bind(load, 'add')), ['linkctl pixel add --from pixels.csv   # type,name,tag']),
    ['linkctl pixel add --type gapixel --name Analytics --tag G-DEF456UVW', 'linkctl pixel add --type fbpixel --name Facebook --tag 123456789012345 --json'],
  );

  withExamples(
    pixel
      .command('update')
      .description('Change a pixel; the API needs its tag with every update, so without --tag linkctl reads it from the pixel list (one more request a page)')
      .argument('<id>', 'pixel id', (v) => positiveInt('ID', v))
      .option('--tag <tag>', 'new tag, at least 3 characters', tag)
      .option('--name <name>', 'new name', name)
      .action(bind(load, 'update')),
    ['linkctl pixel update 1 --tag G-NEW456', 'linkctl pixel update 1 --name "Main analytics"', 'linkctl pixel update 1 --tag G-NEW456 --name "Main analytics"'],
  );

  deleteCommand(pixel, bind, load, 'pixel', ' (links that use it lose it)');
}
