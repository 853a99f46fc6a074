/** `api`: any request, for endpoints linkctl does not wrap. Flags and help only; the work is in ./actions.ts. */
import type { Command } from 'commander';
import { enumArgument, pathOption, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { keyValue } from '../../validate.js';
import { METHODS } from './types.js';

type Field = { key: string; value: string; raw?: boolean };

const HELP = `
PATH is taken under the API root: /api/urls, api/urls and urls all mean api/urls.
A query string in PATH is kept: 'urls?limit=5&page=2'.

Fields, as in gh api: -f key=value adds a string field to the JSON body, exactly as
given. -F key=value types it: numbers, true, false and null are sent as JSON values
(numbers with a leading zero, or too large to be exact, stay strings); -F key=@file
sends the text of a file and -F key=@- the text of stdin. With GET, the fields go into
the query string instead. For a body that needs nesting, use --input.

The whole JSON answer is printed, its error flag included; a failure exits with the
code of the table in \`linkctl --help\` (1 API error, 3 key rejected, 4 not found, ...).
With --dry-run, a POST, PUT or DELETE is printed and not sent.`;

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const command = program
    .command('api')
    .description('Send any API request and print the JSON answer')
    .addArgument(enumArgument('<method>', 'HTTP method: GET, POST, PUT or DELETE (any case)', METHODS))
    .argument('<path>', 'API path, e.g. /api/urls or urls?limit=5')
    .option('-F, --field <key=value>', 'a typed body field (a query parameter with GET); @file or @- reads a file or stdin; repeatable', (v: string, previous: Field[] = []) => [
      ...previous,
      keyValue('--field', v, 'limit=5'),
    ])
    .option('-f, --raw-field <key=value>', 'a string body field, sent as given (a query parameter with GET); repeatable', (v: string, previous: Field[] = []) => [
      ...previous,
      { ...keyValue('--raw-field', v, 'alias=spring'), raw: true },
    ])
    .addOption(pathOption('--input <file>', 'the request body: a file of JSON, or - to read it from stdin'))
    .option('--paginate', 'GET a list from its first page (or page=N in PATH) to the last; print one array of every record')
    .addHelpText('after', wrapped(HELP))
    .action(bind(load, 'request'));
  withExamples(command, [
    'linkctl api GET /api/account',
    'linkctl api GET urls --paginate',
    "linkctl api GET 'urls?limit=50&order=click' --paginate",
    'linkctl api POST /api/pixel/add -f type=gapixel -f name=GA -f tag=G-12345',
    'linkctl api POST /api/campaign/add -f name=Spring -F public=true',
    'linkctl api PUT /api/qr/2/update -F data=@message.txt',
    `echo '{"name":"Sales"}' | linkctl api PUT /api/channel/1/update --input -`,
    'linkctl api DELETE /api/pixel/4/delete --dry-run',
  ]);
}
