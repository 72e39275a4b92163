// Drives the minimal MCP Apps host (host.js) in headless Chromium against
// an examples/inbox already listening on loopback: the host calls
// emails_triage, renders the triage view in a sandboxed iframe through
// ext-apps' AppBridge, a click in the view calls the app-only
// emails_mark_processed, and the REST API then shows the email processed.
// Exits non-zero on the first surprise.
//
//   node run.mjs http://127.0.0.1:PORT/mcp /usr/bin/chromium
import { build } from 'esbuild';
import http from 'node:http';
import puppeteer from 'puppeteer-core';

const [mcpURL, chromium] = process.argv.slice(2);
if (!/^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(mcpURL ?? '') || !chromium) {
  console.error('usage: node run.mjs http://127.0.0.1:PORT/mcp CHROMIUM');
  process.exit(2);
}
const inbox = new URL(mcpURL);
const TOKEN = 'dev-writer'; // the inbox's development token of ws_globex
const EMAIL = 'eml_globex_0002'; // received: the view offers to mark it
const fail = (what) => {
  console.error(`apps: ${what}`);
  process.exit(1);
};
const timer = setTimeout(() => fail('timed out after 60 s'), 60_000);

async function rest(path) {
  const r = await fetch(new URL(path, inbox), { headers: { Authorization: 'Bearer ' + TOKEN } });
  return { status: r.status, body: await r.json() };
}
const before = await rest(`/api/v1/emails/${EMAIL}`);
if (before.body?.data?.status !== 'received') fail(`REST before: ${JSON.stringify(before)}`);

const bundle = await build({
  entryPoints: [new URL('./host.js', import.meta.url).pathname],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'chrome120',
  write: false,
  logLevel: 'warning',
});
const script = bundle.outputFiles[0].text;
const page = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>mcpdual apps host</title></head>
<body><h1>Host</h1><script type="module" src="/host.js"></script></body></html>`;

// The host page's server: the page, its bundle, and the inbox's /mcp
// behind the same origin (the MCP endpoint answers POST only, no CORS).
const server = http.createServer((req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  if (path === '/') {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
  } else if (path === '/host.js') {
    res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
  } else if (path === '/favicon.ico') {
    res.writeHead(204).end();
  } else if (path === '/mcp') {
    const up = http.request(
      { host: inbox.hostname, port: inbox.port, path: '/mcp', method: req.method, headers: { ...req.headers, host: inbox.host } },
      (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
      }
    );
    up.on('error', (e) => res.writeHead(502).end(String(e)));
    req.pipe(up);
  } else {
    res.writeHead(404).end();
  }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${server.address().port}`;

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  // CI runs as root, where Chromium's own sandbox cannot start; the view's
  // iframe sandbox is the page's, unaffected.
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const tab = await browser.newPage();
  tab.on('console', (m) => m.type() !== 'debug' && console.log(`  [browser ${m.type()}] ${m.text()}`));
  tab.on('pageerror', (e) => console.log(`  [browser pageerror] ${e.message}`));
  const q = new URLSearchParams({ token: TOKEN, tool: 'emails_triage', args: JSON.stringify({ limit: 20 }) });
  await tab.goto(`${origin}/?${q}`);
  await tab.waitForFunction(() => window.hostState && (window.hostState.rendered || window.hostState.error), { timeout: 30_000 });
  const state = await tab.evaluate(() => window.hostState);
  if (state.error) fail(`host: ${state.error}`);

  // The view, in its sandboxed frame, shows the listed emails.
  const handle = await tab.$('iframe#view');
  if ((await handle.evaluate((f) => f.getAttribute('sandbox'))) !== 'allow-scripts') fail('the view is not sandboxed');
  const frame = await handle.contentFrame();
  const button = `button[data-id="${EMAIL}"]`;
  await frame.waitForSelector(button, { timeout: 10_000 });
  const rows = await frame.$$eval('tbody tr', (trs) => trs.map((tr) => tr.dataset.id));
  console.log(`[apps] the view lists ${rows.length} emails: ${rows.join(', ')}`);
  if (!rows.includes('eml_globex_0003') || rows.some((id) => !id.startsWith('eml_globex_'))) fail(`rows: ${rows}`);

  // A click in the view calls the app-only tool through the host.
  await frame.click(button);
  await frame.waitForFunction(
    (id) => document.querySelector(`tr[data-id="${id}"] td.status-processed`) !== null,
    { timeout: 10_000 },
    EMAIL
  );
  const calls = await tab.evaluate(() => window.hostState.viewCalls);
  if (calls.join() !== 'emails_mark_processed') fail(`the view's tool calls: ${calls}`);
  console.log(`[apps] the view called ${calls.join()} and shows ${EMAIL} processed`);
} finally {
  await browser.close();
  server.close();
}

const after = await rest(`/api/v1/emails/${EMAIL}`);
if (after.body?.data?.status !== 'processed') fail(`REST after: ${JSON.stringify(after)}`);
console.log(`[apps] REST API: ${EMAIL} is ${after.body.data.status}`);
clearTimeout(timer);
console.log('apps: a real browser rendered the view and its click reached the REST API');
