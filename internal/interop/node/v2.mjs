// A full 2026-07-28 session of the published TypeScript SDK v2 client
// (@modelcontextprotocol/client) against an mcpdual endpoint: discover,
// tools/list, tools/call, and one multi round-trip call answered through
// the client's elicitation handler. Exits non-zero on the first surprise.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const url = process.argv[2];
if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(url ?? '')) {
  console.error('usage: node v2.mjs http://127.0.0.1:PORT/mcp');
  process.exit(2);
}
const fail = (what, got) => {
  console.error(`TypeScript v2 client: ${what}: ${JSON.stringify(got)}`);
  process.exit(1);
};

const client = new Client(
  { name: 'mcpdual-interop-ts-v2', version: '1.0.0' },
  { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } }
);
client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'TypeScript' } }));
await client.connect(new StreamableHTTPClientTransport(new URL(url)));

const version = client.getNegotiatedProtocolVersion();
console.log(`[ts-v2] connected via server/discover: revision ${version}, era ${client.getProtocolEra()}, server ${client.getServerVersion()?.name}`);
if (version !== '2026-07-28') fail('negotiated revision', version);

const tools = await client.listTools();
console.log(`[ts-v2] tools/list: ${tools.tools.length} tools`);
if (!tools.tools.some((t) => t.name === 'test_simple_text')) fail('tools/list', tools.tools.map((t) => t.name));

const simple = await client.callTool({ name: 'test_simple_text', arguments: {} });
console.log(`[ts-v2] tools/call test_simple_text: ${JSON.stringify(simple.content[0]?.text)}`);
if (simple.isError || simple.content[0]?.text !== 'This is a simple text response for testing.') fail('tools/call', simple);

const header = await client.callTool({ name: 'test_x_mcp_header', arguments: { region: 'eu-west 1' } });
console.log(`[ts-v2] tools/call test_x_mcp_header (Mcp-Param-Region mirrored): ${JSON.stringify(header.content[0]?.text)}`);
if (header.isError || header.content[0]?.text !== 'Region: eu-west 1') fail('tools/call with x-mcp-header', header);

const mrtr = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
console.log(`[ts-v2] multi round-trip tools/call: ${JSON.stringify(mrtr.content?.[0]?.text)}`);
if (mrtr.isError || mrtr.content?.[0]?.text !== 'Hello, TypeScript!') fail('multi round-trip tools/call', mrtr);

await client.close();
console.log('TypeScript v2 client: session succeeded');
