// The published TypeScript SDK v1 client (@modelcontextprotocol/sdk)
// confirming a destructive tool in the middle of the call (design record 025),
// against an examples/inbox started with -legacy-input: one process, or
// replicas behind a balancer. The client declares elicitation on
// initialize, keeps the sealed Mcp-Session-Id (StreamableHTTPClientTransport
// does), and is asked on the tools/call stream; its answer is a separate
// POST, which behind a round-robin balancer reaches another replica.
//
//   node legacy-v1.mjs http://127.0.0.1:PORT/mcp [http://127.0.0.1:REPLICA ...]
//
// The URLs after the endpoint are where the effect is counted: the REST
// API of every replica behind it (each keeps its own store, so an
// execution shows on the one replica that ran it); by default the
// endpoint's own. emails_delete eml_globex_0001 accepted must delete it
// on exactly one of them; eml_globex_0003 declined on none. (The go-sdk
// client accepts eml_globex_0002, so both can run against one inbox.)
// Each confirmation must be asked exactly once. Exits non-zero on the
// first surprise.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [url, ...given] = process.argv.slice(2);
const bases = given.length > 0 ? given : [url?.replace(/\/mcp$/, '')];
if (!/^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(url ?? '') || !bases.every(b => /^http:\/\/127\.0\.0\.1:\d+$/.test(b ?? ''))) {
  console.error('usage: node legacy-v1.mjs http://127.0.0.1:PORT/mcp [http://127.0.0.1:REPLICA ...]');
  process.exit(2);
}
const tag = '[ts-v1 legacy]';
const fail = (what, got) => {
  console.error(`TypeScript v1 client, legacy input: ${what}: ${JSON.stringify(got)}`);
  process.exit(1);
};

// presentOn counts the bases whose REST API still has the email, read as
// dev-reader (the writer's workspace, read only).
async function presentOn(id) {
  let n = 0;
  for (const base of bases) {
    const r = await fetch(`${base}/api/v1/emails/${id}`, { headers: { Authorization: 'Bearer dev-reader' } });
    await r.arrayBuffer();
    if (r.status === 200) n++;
    else if (r.status !== 404) fail(`GET ${base}/api/v1/emails/${id}`, r.status);
  }
  return n;
}

for (const { id, action } of [{ id: 'eml_globex_0001', action: 'accept' }, { id: 'eml_globex_0003', action: 'decline' }]) {
  const before = await presentOn(id);
  if (before !== bases.length) fail(`${id} before the call is on this many of ${bases.length} bases (seed data changed)`, before);

  // Which upstream (nginx's X-Upstream, the last address it tried) served
  // each POST, by what it carried: a request's method, or "answer" for
  // the JSON-RPC response to the elicitation.
  // The call's result can arrive on its stream before the answer POST's
  // 202 reaches the SDK, and close() aborts a fetch still waiting: each
  // request's recording is kept in posts, and awaited before both.
  const served = {};
  const posts = [];
  const routed = (input, init) => {
    const p = record(input, init);
    posts.push(p.catch(() => {}));
    return p;
  };
  const record = async (input, init) => {
    const res = await fetch(input, init);
    if (init?.method === 'POST' && typeof init.body === 'string') {
      let kind;
      try {
        const m = JSON.parse(init.body);
        kind = m.method ?? ('result' in m || 'error' in m ? 'answer' : undefined);
      } catch {
        kind = undefined;
      }
      const up = res.headers.get('x-upstream');
      if (kind && up) served[kind] = up.split(',').pop().trim();
    }
    return res;
  };

  let asked = 0;
  const client = new Client({ name: 'mcpdual-interop-ts-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async request => {
    asked++;
    console.log(`${tag} confirmation asked mid-call: ${JSON.stringify(request.params.message)} -> ${action}`);
    return action === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: 'Bearer dev-writer' } },
    fetch: routed,
  });
  await client.connect(transport);
  if (!transport.sessionId) fail('no Mcp-Session-Id: is the inbox started with -legacy-input?', transport.sessionId);
  const revision = transport.protocolVersion;
  if (!revision?.startsWith('2025-')) fail('negotiated revision', revision);

  const res = await client.callTool({ name: 'emails_delete', arguments: { id } });
  await Promise.all(posts); // before close, which aborts what is still in flight
  await client.close();
  const text = res.content?.[0]?.text ?? '';
  const executions = before - (await presentOn(id));
  console.log(`${tag} ${revision} emails_delete ${id}: isError=${!!res.isError} ${JSON.stringify(text)}; executions=${executions} (deleted on ${executions} of ${bases.length} bases)`);
  if (served['tools/call'] || served.answer) {
    console.log(`${tag} routing: tools/call served by ${served['tools/call']}, the answer POST by ${served.answer}`);
  }

  if (asked !== 1) fail('asked this many times, want once', asked);
  if (action === 'accept' && (res.isError || executions !== 1)) fail('an accepted confirmation: executions (want 1), result', { executions, res });
  if (action === 'decline' && (!res.isError || !text.includes('confirmation_declined') || executions !== 0)) {
    fail('a declined confirmation: executions (want 0), result', { executions, res });
  }
  // Behind a round-robin balancer the answer is the next request, so it
  // reaches another replica than the one holding the call: that hand-over
  // is what this run is for.
  if (served['tools/call'] && (!served.answer || served.answer === served['tools/call'])) {
    fail('the answer POST reached the call\'s own replica, want another', served);
  }
}
console.log('TypeScript v1 client: legacy input sessions succeeded');
