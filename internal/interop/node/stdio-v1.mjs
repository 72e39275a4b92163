// A 2025 session of the published TypeScript SDK v1 client
// (@modelcontextprotocol/sdk) launching the built examples/inbox with
// -stdio through the SDK's stdio client transport: initialize (the client
// asks for its latest, 2025-11-25; the inbox negotiates 2025-06-18),
// tools/list, a read, and a destructive tool the server refuses, since a
// 2025 client cannot confirm it. The server process must be gone
// afterwards. Exits non-zero on the first surprise.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { gone } from './stdio-gone.mjs';

const bin = process.argv[2];
if (!bin) {
  console.error('usage: node stdio-v1.mjs /path/to/built/inbox');
  process.exit(2);
}
const fail = (what, got) => {
  console.error(`TypeScript v1 client over stdio: ${what}: ${JSON.stringify(got)}`);
  process.exit(1);
};

const client = new Client({ name: 'mcpdual-interop-ts-v1-stdio', version: '1.0.0' });
const transport = new StdioClientTransport({ command: bin, args: ['-stdio'], stderr: 'inherit' });
// The client tells an HTTP transport the revision initialize negotiated;
// this one has no use for it, so it is caught here to be checked.
let version;
transport.setProtocolVersion = (v) => {
  version = v;
};
await client.connect(transport);
const pid = transport.pid;
console.log(`[ts-v1 stdio] launched pid ${pid}, server ${client.getServerVersion()?.name}, negotiated revision ${version}`);
if (version !== '2025-06-18') fail('negotiated revision', version);

const tools = await client.listTools();
const names = tools.tools.map((t) => t.name);
console.log(`[ts-v1 stdio] tools/list: ${names.length} tools`);
if (!names.includes('inboxes_list') || !names.includes('emails_delete')) fail('tools/list', names);

const inboxes = await client.callTool({ name: 'inboxes_list', arguments: {} });
console.log(`[ts-v1 stdio] tools/call inboxes_list: isError=${inboxes.isError ?? false}`);
if (inboxes.isError || !inboxes.content[0]?.text?.includes('inb_globex_ops')) fail('tools/call inboxes_list', inboxes);

const del = await client.callTool({ name: 'emails_delete', arguments: { id: 'eml_globex_0001' } });
console.log(`[ts-v1 stdio] emails_delete: isError=${del.isError ?? false} (a 2025 client cannot confirm)`);
if (!del.isError || !del.content[0]?.text?.includes('Do not retry')) fail('emails_delete over 2025', del);

await client.close();
if (!(await gone(pid))) fail('the server process survived close', pid);
console.log(`[ts-v1 stdio] pid ${pid} is gone after close`);
console.log('TypeScript v1 client over stdio: session succeeded');
