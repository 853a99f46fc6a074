/** `api`: any request, for endpoints linkctl does not wrap. Flags and help only; the work is in ./actions.ts. */
import type { Command } from 'commander';
import { enumArgument, withExamples, type Bind } from '../shared/define.js';
import { keyValue } from '../../validate.js';
import { METHODS } from './types.js';

const HELP = `
PATH is taken under the API root: /api/urls, api/urls and urls all mean api/urls.
A query string in PATH is kept: 'urls?limit=5&page=2'.

Each -f key=value adds a field to a JSON body. Numbers, true, false and null are sent
as JSON values (numbers with a leading zero, or too large to be exact, stay strings);
key=@file sends the text of a file. With GET, the fields go into the query string
instead, as given. For a body that needs nesting or exact types, use --input.

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
    .option('-f, --field <key=value>', 'a body field (a query parameter with GET); repeatable', (v: string, previous: Array<{ key: string; value: string }> = []) => [
      ...previous,
      keyValue('--field', v),
    ])
    .option('--input <file>', 'the request body: a file of JSON, or - to read it from stdin')
    .option('--paginate', 'GET a list from its first page (or page=N in PATH) to the last; print one array of every record')
    .addHelpText('after', HELP)
    .action(bind(load, 'request'));
  withExamples(command, [
    'linkctl api GET /api/account',
    'linkctl api GET urls --paginate',
    "linkctl api GET 'urls?limit=50&order=click' --paginate",
    'linkctl api POST /api/pixel/add -f type=gapixel -f name=GA -f tag=G-12345',
    'linkctl api PUT /api/qr/1/update -f type=text -f data=@message.txt',
    `echo '{"name":"Sales"}' | linkctl api PUT /api/channel/1/update --input -`,
    'linkctl api DELETE /api/pixel/4/delete --dry-run',
  ]);
}
