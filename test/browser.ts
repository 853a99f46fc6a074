/**
 * Headless Chromium for tests of pages linkctl writes (`stats report --html`): Debian's
 * `chromium` (installed by .ci/run when it can). Network to anything but the file is refused (a
 * proxy that does not exist), so a page that tried to load something would show it. `browser`
 * is undefined when there is none: tests skip, saying so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const browser = ['chromium', 'chromium-browser', 'google-chrome'].find((name) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0);
export const noBrowser = "no chromium on PATH; .ci/run installs Debian's chromium";

/** Runs headless Chromium on `url` with `flags`; resolves to its stdout (and stderr, for network errors). */
export function chromium(profileDir: string, flags: string[], url: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(browser!, [
      '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions', '--hide-scrollbars',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--user-data-dir=${join(profileDir, 'profile')}`, '--proxy-server=127.0.0.1:9', '--proxy-bypass-list=<-loopback>', ...flags, url,
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`${browser} exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

export interface Layout {
  /** The page's width as laid out, and the window's: wider means it scrolls sideways. */
  scrollWidth: number;
  clientWidth: number;
  /** Elements whose own text is drawn smaller than `minPx` (SVG text as scaled on screen): `TAG:size`. */
  small: string[];
  /** The smallest text drawn, in px. */
  smallest: number;
  /** Texts of elements matching `select`, in document order. */
  texts: string[];
  /** Everything the page loaded (images, styles, fonts): none for a self-contained page. */
  resources: string[];
}

/**
 * Lays `file` out `width` px wide in Chromium and measures it: what scrolls sideways, and every
 * text's size as drawn (an SVG's text scaled by the SVG). The page itself runs no script (its
 * policy forbids it): it is loaded in a frame of a measuring page beside it, which reads it.
 */
export async function layout(file: string, width: number, select = 'h1', minPx = 11): Promise<Layout> {
  const wrapper = join(dirname(file), `measure-${width}-${basename(file)}.html`);
  writeFileSync(wrapper, `<!DOCTYPE html><html><body style="margin:0"><iframe id="f" src="${encodeURIComponent(basename(file))}" style="width:${width}px;height:900px;border:0"></iframe><pre id="out"></pre>
<script>
window.onerror = (message) => { document.getElementById('out').textContent = JSON.stringify({ error: String(message) }); };
document.getElementById('f').addEventListener('load', () => {
  const d = document.getElementById('f').contentDocument;
  const w = d.defaultView;
  const small = [];
  let smallest = Infinity;
  for (const el of d.querySelectorAll('body *')) {
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    if (el.closest('title')) continue; // a tooltip's text, not drawn on the page
    const style = w.getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (style.display === 'none' || style.visibility === 'hidden' || box.width === 0 || box.height === 0) continue;
    let size = parseFloat(style.fontSize);
    if (typeof el.getScreenCTM === 'function') { const m = el.getScreenCTM(); size = size * (m ? Math.abs(m.d) : 1); }
    smallest = Math.min(smallest, size);
    if (size < ${minPx} - 0.01) small.push(el.tagName + ':' + size.toFixed(1) + ':' + el.textContent.trim().slice(0, 30));
  }
  const texts = [...d.querySelectorAll(${JSON.stringify(select)})].map((e) => e.textContent);
  const resources = w.performance.getEntriesByType('resource').map((e) => e.name);
  document.getElementById('out').textContent = JSON.stringify({ scrollWidth: d.documentElement.scrollWidth, clientWidth: d.documentElement.clientWidth, small, smallest, texts, resources });
});
</script></body></html>`);
  const { stdout } = await chromium(dirname(file), ['--allow-file-access-from-files', '--virtual-time-budget=10000', '--dump-dom'], pathToFileURL(wrapper).href);
  const found = /<pre id="out">(.*?)<\/pre>/s.exec(stdout);
  if (!found || !found[1]) throw new Error(`the measuring page reported nothing: ${stdout.slice(0, 500)}`);
  const measured = JSON.parse(found[1].replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'")) as Layout & { error?: string };
  if (measured.error) throw new Error(`the measuring page failed: ${measured.error}`);
  return measured;
}
