// A minimal MCP Apps host, bundled for the browser by run.mjs: the
// TypeScript SDK v2 client speaks 2026-07-28 to the server (declaring the
// io.modelcontextprotocol/ui extension), calls the tool that has a view,
// reads the view's resource, and renders it in a sandboxed iframe through
// ext-apps' host-side bridge (AppBridge), which also carries the view's
// own tool calls to the server.
import {
  AppBridge,
  PostMessageTransport,
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
const state = (window.hostState = { steps: [], error: null, rendered: false, viewCalls: [] });
const step = (s) => {
  state.steps.push(s);
  console.log('[host] ' + s);
};

// The policy the specification prescribes, from _meta.ui.csp: nothing
// external unless declared.
function policy(csp = {}) {
  const list = (l, none) => (l && l.length ? l.join(' ') : none);
  const res = list(csp.resourceDomains, '');
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${res}`,
    `style-src 'self' 'unsafe-inline' ${res}`,
    `img-src 'self' data: ${res}`,
    `font-src 'self' ${res}`,
    `media-src 'self' data: ${res}`,
    `connect-src ${list(csp.connectDomains, "'none'")}`,
    `frame-src ${list(csp.frameDomains, "'none'")}`,
    "object-src 'none'",
    `base-uri ${list(csp.baseUriDomains, "'self'")}`,
  ].join('; ');
}

function withPolicy(html, csp) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy(csp).replace(/"/g, '&quot;')}">`;
  return html.replace(/<head[^>]*>/i, (head) => head + meta);
}

async function main() {
  const params = new URLSearchParams(location.search);
  const token = params.get('token');
  const client = new Client(
    { name: 'mcpdual-apps-host', version: '1.0.0' },
    { capabilities: { extensions: { [UI]: { mimeTypes: [MIME] } } }, versionNegotiation: { mode: { pin: '2026-07-28' } } }
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', location.href), {
      requestInit: { headers: { Authorization: 'Bearer ' + token } },
    })
  );
  step(`connected: ${client.getNegotiatedProtocolVersion()}`);
  const ext = client.getServerCapabilities()?.extensions?.[UI];
  if (!ext?.mimeTypes?.includes(MIME)) throw new Error('server/discover does not announce ' + UI + ': ' + JSON.stringify(client.getServerCapabilities()));

  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === params.get('tool'));
  if (!tool) throw new Error('no tool ' + params.get('tool') + ' in ' + tools.map((t) => t.name));
  const uri = getToolUiResourceUri(tool);
  // App-only tools are listed to a host that declared the extension; it
  // keeps them from the model.
  step(`tools: ${tools.length}, app-only: ${tools.filter(isToolVisibilityAppOnly).map((t) => t.name).join(',')}; view ${uri}`);

  const args = JSON.parse(params.get('args') || '{}');
  const result = await client.callTool({ name: tool.name, arguments: args });
  if (result.isError) throw new Error('tools/call: ' + JSON.stringify(result));
  step(`called ${tool.name}`);

  const read = await client.readResource({ uri });
  const content = read.contents?.[0];
  if (content?.mimeType !== MIME || typeof content.text !== 'string') throw new Error('resources/read: ' + JSON.stringify(read));
  step(`read ${uri}: ${content.text.length} bytes, _meta.ui ${JSON.stringify(content._meta?.ui ?? {})}`);

  const iframe = document.createElement('iframe');
  iframe.id = 'view';
  iframe.setAttribute('sandbox', 'allow-scripts'); // an opaque origin: not the host's
  iframe.style.cssText = 'width: 100%; border: 1px solid #888';
  document.body.append(iframe);

  const bridge = new AppBridge(client, { name: 'mcpdual-apps-host', version: '1.0.0' }, { serverTools: {}, logging: {} });
  const forward = bridge.oncalltool;
  bridge.oninitialized = async () => {
    step('view initialized');
    await bridge.sendToolInput({ arguments: args });
    await bridge.sendToolResult(result);
    state.rendered = true;
    step('tool result sent to the view');
  };
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = height + 'px';
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  // connect() installs the forwarding of the view's tools/call to the
  // server; wrap it to record what the view called.
  const forwarding = bridge.oncalltool;
  if (!forwarding || forwarding === forward) throw new Error('AppBridge installed no tools/call forwarding');
  bridge.oncalltool = undefined; // replaced on purpose: the wrapper calls it
  bridge.oncalltool = async (p, extra) => {
    state.viewCalls.push(p.name);
    step(`view calls ${p.name} ${JSON.stringify(p.arguments)}`);
    return forwarding(p, extra);
  };
  iframe.srcdoc = withPolicy(content.text, content._meta?.ui?.csp);
}

main().catch((err) => {
  state.error = String(err && err.stack ? err.stack : err);
  console.error('[host] ' + state.error);
});
