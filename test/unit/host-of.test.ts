/**
 * hostOf (src/history/export.ts): the export's `domain` column and the rollups' hosts. It keeps
 * hosts by the start of a URL up to its path; whatever URL it is given, the host is the one the
 * URL parser gives for the whole URL, however many URLs share that start.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hostOf } from '../../src/history/export.js';

const parsed = (url: string) => {
  try {
    return new URL(url).host.toLowerCase() || null;
  } catch {
    return null;
  }
};

describe('hostOf', () => {
  it('gives the host the URL parser gives for the whole URL, for URLs of every shape', () => {
    const odd = fc.constantFrom(
      'http://Example.COM:8080/a', 'https://example.com?q=1', 'https://example.com#top', 'http://example.com\\path', 'http://user:pw@Host.example/x',
      'http://user:pa/ss@host/', 'http://[::1]:80/x', 'http://xn--bcher-kva.example/', 'http://bücher.example/p', ' http://spaced.example/ ', 'http://exa\tmple.com/x',
      'http://127.0.0.1:99999/x', 'mailto:someone@example.com', 'foo://bar/baz', 'not a url', 'http://', 'http:///path', '//example.com/x', 'https://example.com',
    );
    fc.assert(fc.property(fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), odd, fc.string()), (url) => {
      expect(hostOf(url)).toBe(parsed(url));
      expect(hostOf(url)).toBe(parsed(url)); // again: from what was kept
    }), { numRuns: 2000 });
  });

  it('tells apart URLs whose starts differ only after the host', () => {
    expect(hostOf('http://a.example:81/x')).toBe('a.example:81');
    expect(hostOf('http://a.example/x')).toBe('a.example');
    expect(hostOf('http://a.example?x')).toBe('a.example');
    expect(hostOf(null)).toBe(null);
    expect(hostOf('')).toBe(null);
  });
});
