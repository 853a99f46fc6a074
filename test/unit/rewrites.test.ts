// The product's rewrites (src/model/rewrites.ts) against every example real-servers.md gives for
// them ("What the product does with what it is sent"): the examples are the product's answers.
import { describe, expect, it } from 'vitest';
import {
  acceptedDestination, campaignSlug, capitalisedName, channelColor, channelItemTitle, cleanedText, destinationAsStored, expiryAsStored, phpString, phpTruthy,
} from '../../src/model/rewrites.js';
import { pixelTagRefusal } from '../../src/model/pixels.js';

describe('the product rewrites what it stores', () => {
  it.each([
    ['Fish & "Chips" <i>fried</i>', 'Fish & &quot;Chips&quot; fried'],
    ['<b>Bold</b> & "quotes"', 'Bold & &quot;quotes&quot;'],
    ["it's <i>fine</i>", 'it&#039;s fine'],
    ['<i>Tagged</i> & more', 'Tagged & more'],
    ['Renamed & "quoted"', 'Renamed & &quot;quoted&quot;'],
    ['a < b & c > d', 'a  d'],
    ['Hi onclick=go', 'Hi go'],
    ['x<script>alert(1)</script>y<style>p{}</style>z<!-- c -->', 'xyz'],
    ['&amp; &lt;ok&gt;', '&amp; &lt;ok&gt;'],
    ['  ', '  '],
    ['1 < 2', '1 &lt; 2'],
    ['steal document.cookie now', 'steal  now'],
  ])('cleans %j to %j', (sent, stored) => expect(cleanedText(sent)).toBe(stored));

  it.each([
    ['autumn deals', 'Autumn deals'], ['spring drive', 'Spring drive'], ['abc', 'Abc'], ['world news', 'World news'],
    ['élan vital', 'élan vital'], ['ärger', 'ärger'], ['x<b>y</b>', 'Xy'], ['2024', '2024'],
  ])('capitalises %j as %j', (sent, stored) => expect(capitalisedName(sent)).toBe(stored));

  it.each([
    ['Autumn_Deals', 'autumn-deals'], ['Ünïcode Slug', 'uenicode-slug'], ['under_score.slug', 'under-score-slug'],
    ['Brand New', 'brand-new'], ['Crème Brûlée & Co.', 'creme-brulee-co'], ['Straße Ärger Öl', 'strasse-aerger-ol'],
    ['  --Hello__World--  ', 'hello-world'], ['___', ''], ['ñandú çava', 'nandu-cava'],
  ])('slugs %j as %j', (sent, stored) => expect(campaignSlug(sent)).toBe(stored));

  it('cannot predict a slug romanised from another script', () => expect(campaignSlug('日本語')).toBeUndefined());

  it.each([
    ['#ABCDEF12', '#ABCDEF'], ['red', 'red'], ['blue', 'blue'], ['light blue', 'light'], ['#12 34 56', '#12 34'],
    ['rgba(1,2,3,0.5)', 'rgba(1,'], ['<b>#fff</b>', '#fff'], ['#abcdef', '#abcdef'],
  ])('cuts the colour %j to %j', (sent, stored) => expect(channelColor(sent)).toBe(stored));

  it.each([
    ['A title that is clearly longer than thirty bytes', 'A title that is clearly longer...'],
    ['https://dest.invalid/a/very/long/path/indeed', 'https://dest.invalid/a/very/lo...'],
    ['exactly thirty bytes long text', 'exactly thirty bytes long text'],
  ])('cuts the item title %j to %j', (sent, stored) => expect(channelItemTitle(sent)).toBe(stored));

  it.each([
    ['dest.invalid/noscheme', 'https://dest.invalid/noscheme'], ['ftp://files.invalid/x', 'ftp://files.invalid/x'],
    ['mailto:someone@dest.invalid', 'https://mailto:someone@dest.invalid'], ['https://a.invalid/b c', 'https://a.invalid/b c'],
  ])('stores the destination %j as %j', (sent, stored) => expect(destinationAsStored(sent)).toBe(stored));

  it.each([['false', true], ['no', true], ['yes', true], ['0', false], ['', false], [0, false], [false, false], [null, false], [1, true]])(
    'reads %j as %j the way PHP does', (sent, truthy) => expect(phpTruthy(sent)).toBe(truthy));

  it.each([['x', 'x'], [2024, '2024'], [1.5, '1.5'], [true, '1'], [false, ''], [null, ''], [['not', 'a', 'string'], 'Array'], [{ a: 1 }, 'Array']])(
    'writes %j as the text %j, as PHP does (fact 11)', (sent, stored) => expect(phpString(sent)).toBe(stored));

  it.each([
    ['dest.invalid/noscheme', true], ['ftp://files.invalid/file.txt', true], ['https://dest.invalid/path with space', true],
    ['mailto:someone@dest.invalid', true], ['http://127.0.0.1:8091/spring.html', true], ['https://dest.invalid/q?a=1&b=two#frag', true],
    ['javascript:alert(1)', false], ['', false], ['not a url at all', false], ['gopher://old.invalid/', false], ['https://', false],
  ])('takes %j as a destination: %j (fact 8)', (sent, accepted) => expect(acceptedDestination(sent)).toBe(accepted));

  const NOW = Date.UTC(2026, 11, 7, 15, 2, 49);
  it.each([
    ['2031-01-02', '2031-01-02 00:00:00'], ['2031-01-02T03:04:05Z', '2031-01-02 03:04:05'], ['2031-06-30 23:59:00', '2031-06-30 23:59:00'],
    ['next year', '2027-12-07 15:02:49'], ['+1 week 2 days', '2026-12-16 15:02:49'], ['tomorrow', '2026-12-08 00:00:00'],
    ['2031-01-02T05:04:05+02:00', '2031-01-02 03:04:05'], ['12/31/2031', '2031-12-31 00:00:00'], ['2 days ago', '2026-12-05 15:02:49'],
  ])('stores the expiry %j as %j (fact 13)', (sent, stored) => expect(expiryAsStored(sent, NOW)).toBe(stored));
  it.each(['31/12/2031', 'someday', '2031-13-01', ''])('cannot read the expiry %j (fact 13)', (sent) => expect(expiryAsStored(sent, NOW)).toBeUndefined());

  it.each([
    ['tiktok', 'ab', 'Please enter valid id.'], ['gtmpixel', 'GTM-FID123', undefined], ['gtmpixel', 'ABCDEF', 'GTM container ID is not correct. Please double check.'],
    ['gapixel', 'G-1', 'Google Analytics ID is not correct. Please double check.'], ['fbpixel', 'abc123', 'Facebook pixel ID is not correct. Please double check.'],
    ['fbpixel', '123456789', undefined], ['linkedinpixel', '12345678901', 'LinkedIn ID is not correct. Please double check.'],
    ['twitterpixel', 'xxxxxxxxxxxxxxxx', 'Twitter ID is not correct. Please double check.'], ['quorapixel', 'short-quora', 'Quora ID is not correct. Please double check.'],
    ['adwordspixel', 'A'.repeat(41), 'Google Ads pixel ID is not correct. Please double check.'], ['adrollpixel', 'ADV123XYZ', undefined],
    ['snapchat', 'abc-12345', undefined], ['reddit', 't2_a', 'Reddit ID is not correct. Please double check.'], ['bing', '12345678', undefined],
  ])('a %s pixel with the tag %j: %j (fact 35)', (type, tag, refusal) => expect(pixelTagRefusal(type, tag)).toBe(refusal));
});
