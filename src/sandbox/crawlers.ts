// Which clients the product does not count (real-servers.md, fact 42, and "What the product 7.7
// does when run"): visits of short links and scans of QR codes' own links by crawlers are answered
// but not counted. Apart, because both visits.ts and qr-images.ts ask it.
/**
 * CrawlerDetect's generic rule (jaybizzle/crawler-detect, which the product uses): after removing
 * browser tokens, a word ending in one of these, or one of the tools it lists (curl among them).
 * Only what the sandbox needs: a browser and `linkctl/0.1` are visitors, `curl/8` is not.
 */
const CRAWLER_WORDS = /[a-z0-9\-_]*(bot|crawl|archiver|transcoder|spider|uptime|validator|fetcher|cron|checker|reader|extractor|monitoring|analyzer|scraper|headless)|\bcurl\b|\bwget\b|python-requests|go-http-client|axios\/|okhttp|node-fetch|java\//i;
const BROWSER_TOKENS = /Safari.[\d.]*|Firefox.[\d.]*| Chrome.[\d.]*|Mozilla.[\d.]*|AppleWebKit.[\d.]*|\(KHTML, like Gecko\)|compatible|cubot/gi;
export function isCrawler(userAgent: string | undefined): boolean {
  return CRAWLER_WORDS.test((userAgent ?? '').replace(BROWSER_TOKENS, ''));
}

