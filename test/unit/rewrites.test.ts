// The product's rewrites (src/model/rewrites.ts) against every example real-servers.md gives for
// them ("What the product does with what it is sent"): the examples are the product's answers.
import { describe, expect, it } from 'vitest';
import { campaignSlug, capitalisedName, channelColor, channelItemTitle, cleanedText, destinationAsStored, phpTruthy } from '../../src/model/rewrites.js';

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
});
