// The product's developer page, `{base}/developers`: its API reference, which lists every endpoint
// with its full URL (the installation's API path in it). `auth login` reads it to find an API
// served somewhere other than /api (src/model/api-root.ts).
import { ENDPOINTS, Raw } from './routes.js';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function developersPage(base: string, apiPath: string): Raw {
  const rows = ENDPOINTS.map(({ method, path }) => {
    const url = `${base}${apiPath}${path.replace(/^\/api/, '')}`;
    return `<div class="endpoint"><span class="method">${method}</span> <code>${escape(url)}</code></div>`;
  });
  const body = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Developer API</title></head><body>
<h1>Developer API</h1>
<p>Send your API key as <code>Authorization: Bearer YOURAPIKEY</code>.</p>
${rows.join('\n')}
</body></html>
`;
  return new Raw(200, body);
}
