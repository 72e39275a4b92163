package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpdual/mcpdual/internal/inproc"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// textResult builds a result with one text block.
func textResult(text string, isError bool) *toolResult {
	b := make([]byte, 0, len(text)+32)
	b = append(b, `[{"type":"text","text":`...)
	b = jsonrpc.AppendString(b, text)
	b = append(b, `}]`...)
	return &toolResult{content: b, isError: isError}
}

// result maps the handler's response onto a CallToolResult.
func (t *tool) result(req *request, rec *inproc.Recorder, f features) (*toolResult, error) {
	status := rec.Status
	if rec.Over {
		return req.tooLarge(t), nil
	}
	body := rec.Body.Bytes()
	switch {
	case status >= 200 && status < 300:
	case status >= 400 && status < 500:
		text := string(bytes.TrimRight(body, "\r\n"))
		if len(bytes.TrimSpace(body)) == 0 {
			text = strconv.Itoa(status) + " " + http.StatusText(status)
		}
		return textResult(text, true), nil
	case status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout:
		// The route's service is unavailable for now (a full job queue, a
		// down dependency): the caller can act on that — retry later — so
		// it is an isError result saying so, not the internal error a
		// failure is. The body is neither sent nor logged, as for any 5xx.
		req.Log(slog.LevelWarn, "mcp: tool route unavailable", "tool", t.def.Name, "status", status)
		return textResult(unavailableToolText(status, rec.Headers.Get("Retry-After")), true), nil
	default:
		// The body is not logged: a failing route may have put anything in it.
		req.logError("mcp: tool route failed", "tool", t.def.Name, "status", status)
		return textResult(internalToolError, true), nil
	}
	mt := mediaType(rec.Headers)
	switch {
	case mt == ToolResultMediaType:
		res, ok := ownResult(body, f)
		if !ok {
			req.logError("mcp: tool answered an invalid "+ToolResultMediaType+" body", "tool", t.def.Name)
			return textResult(internalToolError, true), nil
		}
		return res, nil
	case strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "audio/"):
		kind := "image"
		if strings.HasPrefix(mt, "audio/") {
			kind = "audio"
		}
		b := make([]byte, 0, base64.StdEncoding.EncodedLen(len(body))+64)
		b = append(b, `[{"type":"`...)
		b = append(b, kind...)
		b = append(b, `","data":"`...)
		b = base64.StdEncoding.AppendEncode(b, body)
		b = append(b, `","mimeType":`...)
		b = jsonrpc.AppendString(b, mt)
		b = append(b, `}]`...)
		return &toolResult{content: b}, nil
	}
	// A trailing newline (json.Encoder writes one) carries nothing for the model.
	// The text is quoted straight into the response, not into a copy of
	// its own first: the recorder's buffer is the request's and is not
	// written to again.
	req.toolRes = toolResult{text: bytes.TrimRight(body, "\r\n"), isText: true}
	res := &req.toolRes
	if t.output != nil && f.OutputSchema {
		// The host's own output, not bounded like arguments: its depth is
		// checked before it is decoded.
		if jsonrpc.Validate(body, jsonrpc.DefaultMaxDepth) != nil {
			req.logError("mcp: tool output is not JSON though the tool has an outputSchema", "tool", t.def.Name)
			return textResult(internalToolError, true), nil
		}
		if !req.outputValid(t, body, true) {
			return textResult(internalToolError, true), nil
		}
		// The recorder's buffer is not written again: a compact body (what
		// encoders write) is used as it is, with no third pass over it.
		if jsonrpc.IsCompact(body) {
			res.structured = body
		} else {
			var c bytes.Buffer
			_ = json.Compact(&c, body)
			res.structured = c.Bytes()
		}
	}
	return res, nil
}

// ownResult reads a CallToolResult written by a handler for MCP.
func ownResult(body []byte, f features) (*toolResult, bool) {
	if jsonrpc.Validate(body, jsonrpc.DefaultMaxDepth) != nil {
		return nil, false
	}
	content, ok := jsonrpc.Lookup(body, "content")
	if !ok || len(content) == 0 || content[0] != '[' {
		return nil, false
	}
	res := &toolResult{content: blocksFor(content, f)}
	if v, ok := jsonrpc.Lookup(body, "isError"); ok {
		switch string(v) {
		case "true":
			res.isError = true
		case "false":
		default:
			return nil, false
		}
	}
	if v, ok := jsonrpc.Lookup(body, "structuredContent"); ok && f.OutputSchema && string(v) != "null" {
		res.structured = v
	}
	return res, true
}

// maxToolRetryAfter bounds the wait a route's Retry-After may ask of the
// model: past it, "retry later" says as much as a number would.
const maxToolRetryAfter = 3600

// unavailableToolText words a tool route's transient 5xx for the model:
// the status, and the route's Retry-After when it is a whole number of
// seconds (an HTTP-date, or nothing, reads as "shortly"). Nothing else of
// the route's answer is shown.
func unavailableToolText(status int, retryAfter string) string {
	text := "The tool's service is temporarily unavailable (" + strconv.Itoa(status) + " " + http.StatusText(status) + "); "
	if n, err := strconv.Atoi(strings.TrimSpace(retryAfter)); err == nil && n >= 0 && n <= maxToolRetryAfter {
		return text + "retry in " + strconv.Itoa(max(n, 1)) + " s."
	}
	return text + "retry shortly."
}
