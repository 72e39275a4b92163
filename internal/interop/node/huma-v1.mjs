// The published TypeScript SDK v1 client (@modelcontextprotocol/sdk)
// lists the tools of a server registered from huma's generated OpenAPI
// document (.ci/huma-ts.sh): listTools() validates every tool definition
// (a property's schema must be an object) and throws on one it refuses,
// listing nothing. Exits non-zero unless every expected tool is listed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, ...want] = process.argv.slice(2);
if (!/^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(url ?? '') || want.length === 0) {
  console.error('usage: node huma-v1.mjs http://127.0.0.1:PORT/mcp TOOL...');
  process.exit(2);
}
const client = new Client({ name: 'mcpdual-huma-ts-v1', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
let listed;
try {
  listed = await client.listTools();
} catch (err) {
  console.error(`TypeScript v1 client: listTools failed: ${err?.message ?? err}`);
  process.exit(1);
}
const names = listed.tools.map((t) => t.name);
console.log(`[ts-v1 ${transport.protocolVersion}] tools/list: ${names.join(' ')}`);
const missing = want.filter((n) => !names.includes(n));
if (missing.length > 0) {
  console.error(`TypeScript v1 client: not listed: ${missing.join(' ')}`);
  process.exit(1);
}
await client.close();
