// Package stdio serves an MCP endpoint over standard input and output,
// for local clients that start the server as a subprocess.
//
// Messages are newline-delimited JSON-RPC: one message per line in each
// direction. Serve hands each line to the same http.Handler the network
// uses — the *mcp.Handler — as an in-process POST of Content-Type
// application/json that accepts JSON and event streams, so a message gets
// exactly the validation, limits, eras, confirmations and errors it would
// get over HTTP. What only HTTP has is left out: there is no bearer token
// (the host names the principal with WithPrincipal, since it is the host
// that knows who started the process), no Host or Origin to check, no
// per-address limit, and a 2026-07-28 message is served from its
// params._meta alone, as stdio clients send no Mcp-* headers. Every
// revision the handler serves works: a 2025 client's initialize
// negotiates a revision for the whole process, and later messages are
// served in it, as an HTTP client's MCP-Protocol-Version header would
// have them; a 2026-07-28 client needs no handshake. A line holding a
// JSON array is a 2025-03-26 batch, served after a 2025-03-26 handshake
// (or before any) and answered with one array on one line, or with
// nothing when it holds no request.
//
// The principal's rate budget is the handler's (mcp.WithRateLimit), set
// where the handler is built, as for HTTP: a message over it is answered
// -31429 with data.retryAfterMs. The transport meters nothing of its own,
// so that one budget, not two, decides.
//
// Every answer is written as one line. Notifications are never answered,
// nor are JSON-RPC responses. A response is the client's answer to a
// question the endpoint asked: with mcp.WithLegacyInput, a 2025 tools/call
// that needs a confirmation or input asks with elicitation/create,
// sampling/createMessage or roots/list written as a line — when the
// client declared that capability on initialize, which the transport
// keeps for the process as a sealed session keeps it over HTTP — and the
// response line is handed to the endpoint, which delivers it to the call
// through its AnswerBus; the call then runs again with it, within the
// same bounds as over HTTP. An answer line is served as soon as it is
// read, outside WithConcurrency's bound, and a call waiting for one holds
// no slot and no place in the read-ahead queue, so that waiting calls
// never keep their answers from being read. A response that answers no
// waiting question is logged and dropped. When the input ends, a call
// still waiting ends at once (the client went away; nothing runs).
// When the handler streams (mcp.WithStreaming) and a request asks for
// progress or log messages, each notification the request emits is
// written as its own line as soon as it is sent, before the response.
// Messages are served concurrently (WithConcurrency), answers are written
// whole and one at a time, and notifications/cancelled stops the request
// it names, whose answer is then not sent. A line longer than
// WithMaxMessageBytes is answered with an error and skipped without being
// held in memory; a line that is not JSON gets the endpoint's parse
// error. Nothing but protocol messages is written to the output: what the
// transport logs goes to its logger (WithLogger), stderr by default.
package stdio
