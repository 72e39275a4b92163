// Full 2025 sessions of the published TypeScript SDK v1 client
// (@modelcontextprotocol/sdk) against an mcpdual endpoint: initialize
// (the client's own latest, 2025-11-25, on /mcp, and 2025-03-26 on the
// fixture's /mcp-2025-03-26), tools/list, tools/call, resources/read and
// prompts/get. Exits non-zero on the first surprise.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = process.argv[2];
if (!/^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(url ?? '')) {
  console.error('usage: node v1.mjs http://127.0.0.1:PORT/mcp');
  process.exit(2);
}
const fail = (what, got) => {
  console.error(`TypeScript v1 client: ${what}: ${JSON.stringify(got)}`);
  process.exit(1);
};

for (const [endpoint, want] of [[url, '2025-11-25'], [`${url}-2025-03-26`, '2025-03-26']]) {
  const client = new Client({ name: 'mcpdual-interop-ts-v1', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint));
  await client.connect(transport);
  const got = transport.protocolVersion;
  console.log(`[ts-v1 ${want}] initialize: revision ${got}, server ${client.getServerVersion()?.name}`);
  if (got !== want) fail('negotiated revision', got);

  const tools = await client.listTools();
  console.log(`[ts-v1 ${want}] tools/list: ${tools.tools.length} tools`);
  const simple = await client.callTool({ name: 'test_simple_text', arguments: {} });
  console.log(`[ts-v1 ${want}] tools/call test_simple_text: ${JSON.stringify(simple.content[0]?.text)}`);
  if (simple.isError || simple.content[0]?.text !== 'This is a simple text response for testing.') fail('tools/call', simple);

  const read = await client.readResource({ uri: 'test://static-text' });
  console.log(`[ts-v1 ${want}] resources/read test://static-text: ${JSON.stringify(read.contents[0]?.text)}`);
  if (!read.contents[0]?.text) fail('resources/read', read);

  const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'one', arg2: 'two' } });
  console.log(`[ts-v1 ${want}] prompts/get: ${JSON.stringify(prompt.messages[0]?.content?.text)}`);
  if (!prompt.messages[0]?.content?.text?.includes("arg1='one'")) fail('prompts/get', prompt);

  await client.close();
}
console.log('TypeScript v1 client: sessions succeeded');
