/** `qr`: QR codes. Flags and help only; the work is in ./actions.ts, loaded when a command runs. */
import type { Command } from 'commander';
import { bulkOptions, concurrencyOption, deleteCommand, enumOption, forceOption, listCommand, pathOption, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { positiveInt } from '../../validate.js';
import { UsageError } from '../../errors.js';
import { MAX_PRINT_PIXELS, PRINT_FORMATS, QR_TYPES, WIFI_ENCRYPTIONS } from '../../model/qr-types.js';

function boundedInt(flag: string, raw: string, min: number, max: number): number {
  const n = positiveInt(flag, raw);
  if (n < min || n > max) throw new UsageError(`${flag} must be from ${min} to ${max}, got ${n}`, `e.g. ${flag} ${flag === '--dpi' ? 300 : 1200}`);
  return n;
}

/** `30mm`, `3cm`, `1.2in`: a printed length. */
function printLength(raw: string): { value: number; unit: 'mm' | 'cm' | 'in'; text: string } {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(mm|cm|in)\s*$/i.exec(raw);
  if (!m || !(Number(m[1]) > 0)) throw new UsageError(`--print-size must be a length in mm, cm or in, such as 30mm, got "${raw}"`, 'e.g. --dpi 300 --print-size 30mm');
  return { value: Number(m[1]), unit: m[2]!.toLowerCase() as 'mm' | 'cm' | 'in', text: raw.trim() };
}

/** Data and style flags, shared by `qr add` and `qr update`. */
function dataOptions(command: Command): Command {
  return command
    .option('--data <value>', 'the content, for link, text, phone and email codes')
    .option('--data-json <json>', 'the data as JSON, or @file to read it from a file')
    .option('--email <address>', 'email: the address; vcard: the email')
    .option('--subject <text>', 'email: subject')
    .option('--body <text>', 'email: body')
    .option('--phone <number>', 'sms: the number; vcard: the phone')
    .option('--message <text>', 'sms: the message')
    .option('--ssid <name>', 'wifi: network name')
    .option('--wifi-password <password>', 'wifi: network password')
    .addOption(enumOption('--encryption <kind>', 'wifi encryption', WIFI_ENCRYPTIONS))
    .option('--first-name <name>', 'vcard')
    .option('--last-name <name>', 'vcard')
    .option('--org <name>', 'vcard')
    .option('--cell <number>', 'vcard')
    .option('--fax <number>', 'vcard')
    .option('--site <url>', 'vcard')
    .option('--street <text>', 'vcard')
    .option('--city <text>', 'vcard')
    .option('--state <text>', 'vcard')
    .option('--zip <code>', 'vcard')
    .option('--country <name>', 'vcard')
    .option('--background <color>', 'background colour, #RRGGBB or rgb(r,g,b)')
    .option('--foreground <color>', 'foreground colour, #RRGGBB or rgb(r,g,b)')
    .option('--logo <url>', 'logo image, an http(s) URL of a png or jpg');
}

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const qr = program.command('qr').description('Manage QR codes');

  listCommand(qr, bind, load, 'QR codes');

  withExamples(
    qr.command('get').description('Show a QR code and its scan statistics').argument('<id>', 'QR code id', (v) => positiveInt('ID', v)).action(bind(load, 'get')),
    ['linkctl qr get 1', 'linkctl qr get 1 --json'],
  );

  withExamples(
    bulkOptions(dataOptions(qr.command('add').description('Create a QR code').addOption(enumOption('--type <type>', 'code type', QR_TYPES).makeOptionMandatory()).option('--name <name>', 'a name for the code')).action(bind(load, 'add')), [
      'linkctl qr add --from codes.ndjson   # {"type":"text","data":"Hello"}',
      'linkctl qr add --from codes.csv      # type,name,ssid,wifi-password',
    ]),
    [
      'linkctl qr add --type link --data https://example.com --name Homepage',
      'linkctl qr add --type wifi --ssid Office --wifi-password s3cret --encryption WPA',
      'linkctl qr add --type vcard --first-name Ada --last-name Lovelace --email ada@example.com',
      "linkctl qr add --type sms --phone +15551234 --message 'Hello' --foreground '#112233'",
      'linkctl qr add --type email --data-json @email.json',
    ],
  );

  withExamples(
    dataOptions(
      qr
        .command('update')
        .description('Change a QR code: its data (with --type) and/or its style')
        .argument('<id>', 'QR code id', (v) => positiveInt('ID', v))
        .addOption(enumOption('--type <type>', 'the code\'s own type, which gives the data flags their shape (the API cannot change a type)', QR_TYPES))
        .option('--name <name>', 'refused: the API cannot rename a code (servers ignore it); delete and re-create it instead'),
    ).action(bind(load, 'update')),
    ['linkctl qr update 1 --type link --data https://example.com/new', "linkctl qr update 1 --type link --data https://example.com/menu --background '#ffffff' --foreground 'rgb(0,0,0)'"],
  );

  deleteCommand(qr, bind, load, 'QR code', '', ['linkctl qr delete 1 2 3 --yes']);

  withExamples(
    qr
      .command('download')
      .description('Save the image of a QR code: as the server serves it (PNG, SVG or JPEG), or as a print-ready PNG or SVG')
      .argument('[id]', 'QR code id', (v) => positiveInt('ID', v))
      .addOption(pathOption('--file <path>', 'where to save it (default: qr-ID-NAME.png, .svg or .jpg here, after --format or what the server sent); a .png or .svg name asks for that format'))
      .addOption(enumOption('--format <format>', 'the file\'s format, whatever the server serves: png (drawn from its SVG, or rebuilt from the code decoded from its PNG) or svg (its own, or rebuilt from the code decoded from its PNG, with its colours and a quiet zone)', PRINT_FORMATS))
      .option('--size <pixels>', `PNG width and height in pixels, at most ${MAX_PRINT_PIXELS} (implies --format png)`, (v) => boundedInt('--size', v, 21, MAX_PRINT_PIXELS))
      .option('--dpi <n>', 'PNG resolution in dots per inch, written into the file (with --print-size, sets the pixels)', (v) => boundedInt('--dpi', v, 1, 2400))
      .option('--print-size <length>', 'printed width and height with --dpi: 30mm, 3cm or 1.2in (implies --format png)', printLength)
      .option('--no-quiet-zone', 'with --format: add no quiet zone (the 4 modules of margin a scanner needs), for a designer who places the code on a light area of their own')
      .option('--from <source>', '"-": read QR code ids from stdin, one a line, and save each into --dir')
      .addOption(pathOption('--dir <folder>', 'folder for --from -, created if missing (default: the current folder)', 'dir'))
      .addOption(concurrencyOption('with --from: codes downloaded'))
      .addOption(forceOption())
      .addHelpText('after', wrapped('\nOnly an image is saved (checked by content type and by its bytes); anything else is exit 6 and\nno file. With --format (or --size, --dpi), the file is print-ready: an opaque background (the\ncode\'s own, else white) and a quiet zone of 4 modules (ISO/IEC 18004), which the product\'s\ntransparent images lack (docs/qr-images.md). A PNG from a server\'s SVG is drawn from it; an SVG (or a PNG of another size) from a\nserver\'s PNG is rebuilt from the decoded code: the same text, error correction and colours, with\na quiet zone of 4 modules (a logo or a gradient is not drawn again, and the message says so).\nFor a QR code of a short link made locally, see `linkctl link qr`.'))
      .action(bind(() => import('./download.js'), 'download')),
    [
      'linkctl qr download 1',
      'linkctl qr download 1 --file menu.png          # a PNG, drawn from an SVG if the server serves one',
      'linkctl qr download 1 --dpi 300 --print-size 30mm --file menu.png',
      'linkctl qr download 1 --format svg',
      'linkctl qr list --quiet | linkctl qr download --from - --dir codes',
    ],
  );
}
