// Change notifications across replicas, as the TypeScript SDK v2 client
// (@modelcontextprotocol/client) receives them at 2026-07-28: one client
// holds a subscriptions/listen stream, opened with the SDK's own
// Client.listen(), on replica A; a second client, connected to replica B,
// calls test_trigger_tool_change (a fleet event every replica applies);
// a third, connected to replica C, calls test_notify_resource_updated
// (Handler.NotifyResourceUpdated on C alone). The stream on A must hear
// notifications/tools/list_changed for each change and
// notifications/resources/updated for the subscribed URI only, through the
// fleet's event bus. The three URLs are the replicas' own addresses (not
// the balancer's), so each client's requests reach exactly the replica it
// names. Exits non-zero on the first surprise.
//
//	node notify-v2.mjs http://127.0.0.1:A/mcp http://127.0.0.1:B/mcp http://127.0.0.1:C/mcp
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const urls = process.argv.slice(2);
if (urls.length !== 3 || !urls.every((u) => /^http:\/\/127\.0\.0\.1:\d+\//.test(u)) || new Set(urls).size !== 3) {
  console.error('usage: node notify-v2.mjs LISTEN_URL TRIGGER_URL NOTIFY_URL (three different replicas, http://127.0.0.1:PORT/mcp)');
  process.exit(2);
}
const [listenURL, triggerURL, notifyURL] = urls;
const fail = (what, got) => {
  console.error(`TypeScript v2 client, change notifications: ${what}: ${JSON.stringify(got)}`);
  process.exit(1);
};
const port = (u) => new URL(u).port;
const watched = 'test://watched-resource';
const subscriptionKey = 'io.modelcontextprotocol/subscriptionId';

const newClient = (name) =>
  new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
const connect = async (client, url) => {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  if (client.getNegotiatedProtocolVersion() !== '2026-07-28') fail('negotiated revision', client.getNegotiatedProtocolVersion());
  return client;
};

// Every notification the listening client's handlers see, in order; next()
// waits (at most 10 s) for the first one not yet taken.
const inbox = [];
let wake = () => {};
const received = (n) => {
  inbox.push(n);
  wake();
};
const next = async (what) => {
  const deadline = Date.now() + 10000;
  while (inbox.length === 0) {
    const left = deadline - Date.now();
    if (left <= 0) fail(`no notification within 10 s, waiting for ${what}`, null);
    await new Promise((resolve) => {
      const t = setTimeout(resolve, left);
      wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }
  return inbox.shift();
};

const listener = newClient('mcpdual-interop-ts-v2-notify-listener');
listener.setNotificationHandler('notifications/tools/list_changed', received);
listener.setNotificationHandler('notifications/resources/updated', received);
listener.fallbackNotificationHandler = async (n) => fail('a notification of no registered handler', n);
await connect(listener, listenURL);
const subscription = await listener.listen(
  { toolsListChanged: true, resourceSubscriptions: [watched] },
  { timeout: 10000 }
);
const honored = subscription.honoredFilter;
console.log(`[ts-v2] subscriptions/listen on replica :${port(listenURL)} acknowledged: ${JSON.stringify(honored)}`);
if (honored.toolsListChanged !== true || honored.resourceSubscriptions?.length !== 1 || honored.resourceSubscriptions[0] !== watched) {
  fail('honored filter', honored);
}

// Tool list changes, made through replica B: on, then off again (the
// fleet ends as it began). Each is at least one notification on A's
// stream. Every replica applies a change and publishes the list's new
// epoch; a stream passes an epoch that differs from the last it passed, so
// the copies of one change that arrive together are one notification, but
// a replica slower than the next change can make a late copy pass again
// (harmless to a client, which lists again): those are counted, not failed.
const trigger = await connect(newClient('mcpdual-interop-ts-v2-notify-trigger'), triggerURL);
const notifier = await connect(newClient('mcpdual-interop-ts-v2-notify-updater'), notifyURL);
const replicas = [
  [listener, listenURL],
  [trigger, triggerURL],
  [notifier, notifyURL],
];
const dynamicOn = async (client) =>
  (await client.listTools(undefined, { cacheMode: 'bypass' })).tools.some((t) => t.name === 'test_dynamic_tool');
// until waits, at most 5 s, for every replica to list the dynamic tool as
// want says: each applies a change when its OnFleet hears the event, so
// one may list the old state just after another's notification.
const until = async (want) => {
  const deadline = Date.now() + 5000;
  for (;;) {
    const listed = await Promise.all(replicas.map(([c]) => dynamicOn(c)));
    if (listed.every((on) => on === want)) return;
    if (Date.now() > deadline) fail(`replicas listing test_dynamic_tool after 5 s (want ${want})`, listed);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
const initially = await dynamicOn(listener);
let extra = 0;
for (let i = 0; i < 2; i++) {
  const res = await trigger.callTool({ name: 'test_trigger_tool_change', arguments: {} });
  if (res.isError) fail('test_trigger_tool_change', res);
  const n = await next('notifications/tools/list_changed');
  if (n.method !== 'notifications/tools/list_changed') fail('expected notifications/tools/list_changed', n);
  const sub = n.params?._meta?.[subscriptionKey];
  const want = i === 0 ? !initially : initially;
  await until(want);
  console.log(
    `[ts-v2] test_trigger_tool_change via replica :${port(triggerURL)} -> ${n.method} on :${port(listenURL)}'s stream` +
      ` (subscription ${JSON.stringify(sub)}); every replica lists test_dynamic_tool: ${want}`
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  while (inbox.length > 0 && inbox[0].method === 'notifications/tools/list_changed') {
    inbox.shift();
    extra++;
  }
  if (inbox.length > 0) fail('unexpected notification', inbox[0]);
}
if (extra > 0) console.log(`[ts-v2] ${extra} further notifications/tools/list_changed (late copies of a change)`);

// A resource update announced on replica C: a URI the stream did not
// subscribe to is not passed on, the subscribed one is (in publication
// order, so a wrong notification would come first).
for (const uri of ['test://static-text', watched]) {
  const res = await notifier.callTool({ name: 'test_notify_resource_updated', arguments: { uri } });
  if (res.isError) fail(`test_notify_resource_updated ${uri}`, res);
}
const updated = await next('notifications/resources/updated');
if (updated.method !== 'notifications/resources/updated' || updated.params?.uri !== watched) fail('expected an update of ' + watched, updated);
console.log(
  `[ts-v2] test_notify_resource_updated via replica :${port(notifyURL)} -> ${updated.method} ${updated.params.uri} on :${port(listenURL)}'s stream` +
    ` (subscription ${JSON.stringify(updated.params?._meta?.[subscriptionKey])}); test://static-text, not subscribed, was not passed on`
);

// Nothing else arrives (a second copy of a change, the other URI).
await new Promise((resolve) => setTimeout(resolve, 500));
if (inbox.length > 0) fail('unexpected notifications', inbox);

await subscription.close();
const how = await subscription.closed;
if (how !== 'local') fail('subscription closed', how);
await Promise.all([listener.close(), trigger.close(), notifier.close()]);
console.log('TypeScript v2 client: change notifications across replicas succeeded');
