// A 2026-07-28 session of the published TypeScript SDK v2 client
// (@modelcontextprotocol/client) launching the built examples/inbox with
// -stdio through the SDK's stdio client transport: the server/discover
// probe (which this SDK runs on a disposable sibling process), tools/list,
// a read, and a destructive tool the server confirms in two rounds through
// the client's elicitation handler. Every process the transport started
// must be gone afterwards. Exits non-zero on the first surprise.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { gone } from './stdio-gone.mjs';

const bin = process.argv[2];
if (!bin) {
  console.error('usage: node stdio-v2.mjs /path/to/built/inbox');
  process.exit(2);
}
const fail = (what, got) => {
  console.error(`TypeScript v2 client over stdio: ${what}: ${JSON.stringify(got)}`);
  process.exit(1);
};

const client = new Client(
  { name: 'mcpdual-interop-ts-v2-stdio', version: '1.0.0' },
  { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } }
);
let asked = '';
client.setRequestHandler('elicitation/create', async (req) => {
  asked = req.params.message;
  return { action: 'accept', content: { confirm: true } };
});
const transport = new StdioClientTransport({ command: bin, args: ['-stdio'], stderr: 'inherit' });
await client.connect(transport);
const pid = transport.pid;

const version = client.getNegotiatedProtocolVersion();
console.log(`[ts-v2 stdio] launched pid ${pid}, server ${client.getServerVersion()?.name}, negotiated revision ${version}, era ${client.getProtocolEra()}`);
if (version !== '2026-07-28') fail('negotiated revision', version);

const tools = await client.listTools();
const names = tools.tools.map((t) => t.name);
console.log(`[ts-v2 stdio] tools/list: ${names.length} tools`);
if (!names.includes('inboxes_list') || !names.includes('emails_delete')) fail('tools/list', names);

const inboxes = await client.callTool({ name: 'inboxes_list', arguments: {} });
console.log(`[ts-v2 stdio] tools/call inboxes_list: isError=${inboxes.isError ?? false}`);
if (inboxes.isError || !inboxes.content[0]?.text?.includes('inb_globex_ops')) fail('tools/call inboxes_list', inboxes);

const del = await client.callTool({ name: 'emails_delete', arguments: { id: 'eml_globex_0001' } });
const after = await client.callTool({ name: 'emails_get', arguments: { id: 'eml_globex_0001' } });
const deleted = after.isError === true && after.content[0]?.text?.includes('not_found');
console.log(`[ts-v2 stdio] emails_delete: confirmation asked ${JSON.stringify(asked)}, isError=${del.isError ?? false}, deleted=${deleted}`);
if (del.isError || !asked.includes('eml_globex_0001') || !deleted) fail('a confirmed delete', { del, after });

await client.close();
if (!(await gone(pid))) fail('the server process survived close', pid);
console.log(`[ts-v2 stdio] pid ${pid} is gone after close`);
console.log('TypeScript v2 client over stdio: session succeeded');
