/** What a QR code's text stands for (src/qr/content.ts): each type in `qr add`'s shapes, both ways. */
import { describe, expect, it } from 'vitest';
import { contentText, corruptedFields, productText, readContent, sameData, vcardText } from '../../src/qr/content.js';

describe('readContent: the text of an image, or behind a code\'s short link, as qr add\'s type and data', () => {
  it.each([
    ['https://sandbox.localhost/menu?x=1', true, 'link', 'https://sandbox.localhost/menu?x=1'],
    ['hello world', false, 'text', 'hello world'],
    ['mailto:ada@example.com', true, 'email', 'ada@example.com'],
    // the product writes the subject as given and the body percent-encoded (real-servers.md)
    ['mailto:a@example.com?subject=Hi there&body=Body%20text', true, 'email', { email: 'a@example.com', subject: 'Hi there', body: 'Body text' }],
    ['MATMSG:TO:ada@example.com;SUB:Hi\\;there;BODY:See you;;', false, 'email', { email: 'ada@example.com', subject: 'Hi;there', body: 'See you' }],
    ['tel:+15551234567', true, 'phone', '+15551234567'],
    ['smsto:+1555:hi', false, 'sms', { phone: '+1555', message: 'hi' }],
    ['SMSTO:+1555:time: 5pm', false, 'sms', { phone: '+1555', message: 'time: 5pm' }],
    ['sms:+1555?body=Hello%20there', false, 'sms', { phone: '+1555', message: 'Hello there' }],
    ['sms:+1555', false, 'sms', { phone: '+1555', message: '' }],
    ['WIFI:S:Cafe;', false, 'wifi', { ssid: 'Cafe', pass: '', encryption: 'nopass' }],
    ['WIFI:T:WPA;S:My\\;Net\\:1;P:p\\\\w\\,d;;', false, 'wifi', { ssid: 'My;Net:1', pass: 'p\\w,d', encryption: 'WPA' }],
    ['WIFI:T:WEP;S:Old;P:abcde;;', false, 'wifi', { ssid: 'Old', pass: 'abcde', encryption: 'WEP' }],
  ])('%j (behind a short link: %s) is %s', (text, behind, type, data) => {
    const content = readContent(text, behind);
    expect(content.type).toBe(type);
    expect(content.data).toEqual(data);
  });

  it('reads a vCard with folded lines, escapes, parameters and grouped properties, naming what a code cannot carry', () => {
    const card = [
      'BEGIN:VCARD', 'VERSION:3.0', 'N:Lovelace;Ada;Augusta;;', 'FN:Ada Lovelace', 'ORG:Analytical\\, Engines;Research',
      'item1.TEL;TYPE=WORK,VOICE:+44 20 7946', 'TEL;TYPE=CELL:+44 7700', 'TEL;TYPE=FAX:+44 20 0000', 'EMAIL;TYPE=INTERNET:ada@exam',
      ' ple.com', 'URL:https://ada.example.com', 'ADR;TYPE=WORK:;;12 St James\\; Square;London;;SW1Y 4JH;United Kingdom',
      'NOTE:first line\\nsecond', 'END:VCARD',
    ].join('\r\n');
    const content = readContent(card, true);
    expect(content.type).toBe('vcard');
    expect(content.data).toEqual({
      lname: 'Lovelace', fname: 'Ada', org: 'Analytical, Engines, Research', phone: '+44 20 7946', cell: '+44 7700', fax: '+44 20 0000',
      email: 'ada@example.com', site: 'https://ada.example.com', street: '12 St James; Square', city: 'London', zip: 'SW1Y 4JH', country: 'United Kingdom',
    });
    expect(content.notes).toEqual(['the vCard also holds N (middle name, prefix or suffix), NOTE, which a QR code\'s vcard data cannot carry']);
  });

  it('says when a type is read from the text itself (a text code holding the same text reads alike), not behind a short link', () => {
    expect(readContent('https://example.com/', false).notes).toEqual(['read as link from the text itself: a text code holding the same text reads alike']);
    expect(readContent('https://example.com/', true).notes).toEqual([]);
    expect(readContent('WIFI:T:SAE;S:Home;P:x;H:true;;').notes).toEqual(['the network\'s encryption SAE is kept as WPA (a wifi code offers WPA, WEP or nopass)', 'the network is marked hidden, which a wifi code cannot carry']);
  });

  it('a text that is no known format is text, kept as it is', () => {
    expect(readContent('WIFI:broken').type).toBe('text');
    expect(readContent('  two\nlines ').data).toBe('  two\nlines ');
  });
});

describe('contentText and readContent agree: what the sandbox draws reads back as the same data', () => {
  it.each([
    ['text', 'Hello; world: "quoted"'],
    ['phone', '+15551234567'],
    ['email', 'ada@example.com'],
    ['email', { email: 'ada@example.com', subject: 'Hi & bye?', body: 'Line one\nline two = 100%' }],
    ['sms', { phone: '+15551234', message: 'See you: at 5; ok?' }],
    ['wifi', { ssid: 'Caf\u00e9;"Guest"', pass: 'p\\a:ss,word', encryption: 'WPA' }],
    ['wifi', { ssid: 'Open', pass: '', encryption: 'nopass' }],
    ['vcard', { fname: 'Zo\u00eb', lname: 'O\'Neil, Jr.', org: 'A; B', phone: '+1', email: 'z@example.com', site: 'https://z.example.com', street: 'Line 1\nLine 2', city: 'Paris', state: 'IDF', zip: '75001', country: 'France' }],
  ])('%s %j', (type, data) => {
    const text = contentText(type, data);
    const read = readContent(text, type !== 'text' && type !== 'sms' && type !== 'wifi');
    expect(read.type).toBe(type);
    expect(sameData(read.data, data)).toBe(true);
    expect(read.notes).toEqual([]);
  });

  it('a .vcf file folds long lines at 75 octets without splitting a character, and reads back whole', () => {
    const data = { fname: 'Ada', lname: 'Lovelace', street: `${'\u00e9'.repeat(60)} street`, org: 'x'.repeat(120) };
    const vcf = vcardText(data, true);
    for (const line of vcf.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(vcf).not.toContain('\ufffd');
    expect(sameData(readContent(vcf, true).data, data)).toBe(true);
  });
});

describe('sameData', () => {
  it('compares objects field by field, an empty field as none, strings exactly', () => {
    expect(sameData({ phone: '+1', message: '' }, { message: '', phone: '+1' })).toBe(true);
    expect(sameData({ fname: 'Ada', org: '' }, { fname: 'Ada' })).toBe(true);
    expect(sameData({ fname: 'Ada' }, { fname: 'ada' })).toBe(false);
    expect(sameData('https://example.com/a', 'https://example.com/b')).toBe(false);
  });
});

describe('productText and corruptedFields: what the product 7.7 puts in a code (real-servers.md, 23b)', () => {
  it('writes a wifi code as the recorded image holds it, unescaped and HTML-cleaned', () => {
    expect(productText('wifi', { ssid: 'Cafe', pass: 'secret1', encryption: 'WPA' })).toBe('WIFI:S:Cafe;T:WPA;P:secret1;;');
    expect(productText('wifi', { ssid: 'Cafe Guest', pass: 's3cr;t,pw"', encryption: 'WPA' })).toBe('WIFI:S:Cafe Guest;T:WPA;P:s3cr;t,pw&quot;;;');
    expect(productText('sms', { phone: '+15551234', message: 'Hello there' })).toBe('smsto:+15551234:Hello there');
    expect(productText('vcard', { fname: 'José', lname: "O'Neil" })).toContain('N:O&#039;Neil;José;;;');
  });

  it('names each field a phone would read otherwise, with the characters the product mangles', () => {
    expect(corruptedFields('wifi', { ssid: 'Cafe Guest', pass: 's3cr;t,pw"', encryption: 'WPA' })).toEqual([{ field: 'pass', asked: 's3cr;t,pw"', read: 's3cr', chars: [';', ',', '"'] }]);
    // `N:O&#039;Neil;José` unescaped: the entity's `;` splits the name (the issue's `lname=O&#039`)
    expect(corruptedFields('vcard', { fname: 'José', lname: "O'Neil" })).toEqual([
      { field: 'fname', asked: 'José', read: 'Neil', chars: [] },
      { field: 'lname', asked: "O'Neil", read: 'O&#039', chars: ["'"] },
    ]);
    expect(corruptedFields('wifi', { ssid: 'Cafe', pass: 'plain-pass_1', encryption: 'WPA' })).toEqual([]);
    expect(corruptedFields('vcard', { fname: 'Ada', lname: 'Lovelace', org: 'Engines, Inc.' })).toEqual([]);
    expect(corruptedFields('text', 'it\'s "fine"')).toEqual([]); // what cleaning does to text is not known: taken as sent
  });
});

describe('readContent says when a code holds what the product did to its data', () => {
  it('a wifi password cut at an unescaped ; and a vCard name holding &#039;: notes, so qr get and export say it', () => {
    const wifi = readContent('WIFI:S:Cafe Guest;T:WPA;P:s3cr;t,pw&quot;;;');
    expect(wifi.data).toEqual({ ssid: 'Cafe Guest', pass: 's3cr', encryption: 'WPA' });
    expect(wifi.notes).toEqual(['the code\'s text has parts that are no field ("t,pw&quot"): the product writes wifi fields without escaping, so a ; in the name or password cut it short and the code does not hold what was given']);
    const card = readContent(productText('vcard', { fname: 'José', lname: "O'Neil" }), true);
    expect(card.notes).toContain('its lname "O&#039" holds an HTML escape the product wrote for a quote or a bracket (" \' < >), so the code does not hold what was given');
    expect(readContent('WIFI:S:Cafe;T:WPA;P:fine;;').notes).toEqual([]);
  });
});
