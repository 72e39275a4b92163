// The TypeScript SDK v2 server (@modelcontextprotocol/server, pinned in
// package.json and package-lock.json) serving the bench's echo tool on
// loopback, as cmd/server does for the Go variants, mounted on node:http
// through @modelcontextprotocol/node with its loopback Host and Origin
// guards in front, as the SDK documents. 2026-07-28 requests go to
// createMcpHandler with JSON answers. Its built-in 2025 fallback always
// answers an event stream, so 2025-era requests (those not naming
// 2026-07-28 in MCP-Protocol-Version) go instead to the SDK's stateless
// idiom with JSON answers: a fresh server and
// NodeStreamableHTTPServerTransport per request, which is what go-sdk's
// Stateless + JSONResponse is measured with.
//
//   node server.mjs [lifetime-seconds]
//
// Prints "ready http://127.0.0.1:PORT/mcp pid=PID" once listening, exits on
// SIGINT/SIGTERM and by itself after the lifetime (default 900 s).
import { createServer } from 'node:http';
import { localhostHostValidation, localhostOriginValidation, NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

const lifetime = Number(process.argv[2] ?? 900);
if (!(lifetime > 0 && lifetime <= 3600)) {
  console.error('usage: node server.mjs [lifetime-seconds, 1..3600]');
  process.exit(2);
}

// One factory for both eras; the SDK calls it per request. The input
// schema is the bench's EchoSchema: an object with a required string.
const factory = () => {
  const server = new McpServer({ name: 'bench-ts-node', version: '1' });
  server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
};
const modern = toNodeHandler(createMcpHandler(factory, { responseMode: 'json', maxRequestBodySize: 1 << 20, legacy: 'reject' }));
const legacy = async (req, res) => {
  const server = factory();
  const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => { transport.close(); server.close(); });
  await server.connect(transport);
  await transport.handleRequest(req, res);
};
const validHost = localhostHostValidation();
const validOrigin = localhostOriginValidation();

const http = createServer((req, res) => {
  if (!validHost(req, res) || !validOrigin(req, res)) return;
  if (req.url !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  (req.headers['mcp-protocol-version'] === '2026-07-28' ? modern : legacy)(req, res);
});
http.keepAliveTimeout = 60_000;
http.listen(0, '127.0.0.1', () => {
  console.log(`ready http://127.0.0.1:${http.address().port}/mcp pid=${process.pid}`);
});
const stop = () => http.close(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
setTimeout(() => process.exit(0), lifetime * 1000).unref();
