// Task status notifications as the TypeScript SDK v2 client
// (@modelcontextprotocol/client) receives them, checked with the tasks
// extension package's own wire schemas (@modelcontextprotocol/ext-tasks,
// core/v2). The client cannot take a task result itself (it refuses
// resultType "task"), and neither it nor ext-tasks sends
// subscriptions/listen on its own; so the task is started with one plain
// POST, and the listen request goes through the SDK client, whose stream
// hands each notification to its fallback notification handler.
// Exits non-zero on the first surprise.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  CreateTaskResultV2Schema,
  TaskStatusNotificationV2Schema,
  TaskSubscriptionAcknowledgedNotificationsV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import * as z from 'zod';

const url = process.argv[2];
if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(url ?? '')) {
  console.error('usage: node listen-v2.mjs http://127.0.0.1:PORT/mcp');
  process.exit(2);
}
const fail = (what, got) => {
  console.error(`TypeScript v2 client, task notifications: ${what}: ${JSON.stringify(got)}`);
  process.exit(1);
};
const extensions = { 'io.modelcontextprotocol/tasks': {} };

// slow_compute{seconds: 2} is always a task for a client with the extension.
const start = await fetch(url, {
  method: 'POST',
  headers: {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2026-07-28',
    'Mcp-Method': 'tools/call',
    'Mcp-Name': 'slow_compute',
  },
  body: JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'tools/call',
    params: {
      name: 'slow_compute', arguments: { seconds: 2, label: 'ts-v2' },
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions } },
    },
  }),
});
const created = (await start.json()).result;
if (!CreateTaskResultV2Schema.safeParse(created).success) fail('CreateTaskResult', created);
console.log(`[ts-v2] task ${created.taskId.slice(0, 12)}… created, ${created.status}`);

const client = new Client(
  { name: 'mcpdual-interop-ts-v2-listen', version: '1.0.0' },
  { capabilities: { extensions }, versionNegotiation: { mode: { pin: '2026-07-28' } } }
);
const seen = [];
client.fallbackNotificationHandler = async (n) => { seen.push(n); };
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
// The stream ends by itself once the task is final.
const end = await client.request(
  { method: 'subscriptions/listen', params: { notifications: { taskIds: [created.taskId] } } },
  z.object({}).passthrough(),
  { timeout: 30000 }
);
await client.close();

const subscription = end._meta?.['io.modelcontextprotocol/subscriptionId'];
if (subscription === undefined) fail('the closing result names no subscription', end);
const [ack, ...updates] = seen;
if (ack?.method !== 'notifications/subscriptions/acknowledged') fail('first message', ack);
const acked = TaskSubscriptionAcknowledgedNotificationsV2Schema.safeParse(ack.params.notifications);
if (!acked.success || acked.data.taskIds?.length !== 1 || acked.data.taskIds[0] !== created.taskId) fail('acknowledged ids', ack.params);
const statuses = [];
for (const n of updates) {
  const parsed = TaskStatusNotificationV2Schema.safeParse(n);
  if (!parsed.success) fail('notifications/tasks against ext-tasks core/v2', n);
  if (n.params._meta?.['io.modelcontextprotocol/subscriptionId'] !== subscription) fail('subscription id', n.params._meta);
  if (n.params.taskId !== created.taskId) fail('task id', n.params.taskId);
  statuses.push(n.params.status);
}
console.log(`[ts-v2] subscriptions/listen: acknowledged, then ${statuses.join(' → ')}, then the closing result`);
if (statuses[0] !== 'working' || statuses.at(-1) !== 'completed') fail('statuses', statuses);
const last = updates.at(-1).params;
if (!last.result?.content?.length) fail('completed task without its result', last);
console.log('TypeScript v2 client: task status notifications succeeded');
