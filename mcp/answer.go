package mcp

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// The answer endpoint of input for 2025 clients: a POST of a JSON-RPC
// response is the answer to a question some replica asked; its id says
// whose question it is.

// answerIDPrefix starts every id of a question to a 2025 client.
const answerIDPrefix = "mcpdual-q-"

// answerID returns a question's id: 16 random bytes and a tag that binds
// them to the caller and the server. The random part makes the id
// unguessable; the tag lets the replica an answer reaches refuse it when
// its sender is not the caller asked, with no state and no key (it is
// checked against the sender's verified identity).
func answerID(p *auth.Principal, audience string) string {
	var r [16]byte
	_, _ = rand.Read(r[:])
	tag := answerTag(r[:], p, audience)
	return answerIDPrefix + base64.RawURLEncoding.EncodeToString(r[:]) + "." + base64.RawURLEncoding.EncodeToString(tag[:12])
}

func answerTag(random []byte, p *auth.Principal, audience string) [32]byte {
	h := sha256.New()
	h.Write([]byte("mcpdual answer\x00"))
	h.Write(random)
	h.Write([]byte{0})
	h.Write([]byte(p.Key()))
	h.Write([]byte{0})
	h.Write([]byte(audience))
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// answerFor reports whether id is a question's id bound to p.
func answerFor(id string, p *auth.Principal, audience string) bool {
	rest, ok := strings.CutPrefix(id, answerIDPrefix)
	if !ok {
		return false
	}
	r64, t64, ok := strings.Cut(rest, ".")
	if strings.ContainsAny(rest, "\r\n") {
		return false // strict base64 skips them: one id, one spelling
	}
	random, err1 := base64.RawURLEncoding.Strict().DecodeString(r64)
	tag, err2 := base64.RawURLEncoding.Strict().DecodeString(t64)
	if !ok || err1 != nil || err2 != nil || len(random) != 16 || len(tag) != 12 {
		return false
	}
	want := answerTag(random, p, audience)
	return subtle.ConstantTimeCompare(want[:12], tag) == 1
}

// acceptAnswer takes a POST of a JSON-RPC response: the answer to a
// question this endpoint (this replica or another) asked. It is 202 when
// delivered to the call waiting for it, 400 otherwise: an id that is not
// a question's, one asked of another caller, one already answered or no
// longer waited for.
func (h *Handler) acceptAnswer(w http.ResponseWriter, r *http.Request, p *auth.Principal, body []byte) {
	l := h.cfg.legacy
	refuse := func(reason string) {
		h.cfg.logger.InfoContext(r.Context(), "mcp: an answer to a question was refused", "reason", reason)
		h.writeError(r.Context(), w, nil, "", httpError(http.StatusBadRequest, CodeInvalidRequest, "Unknown, answered or expired request id").
			WithData(map[string]string{"reason": "unknown_request_id"}))
	}
	if int64(len(body)) > l.AnswerBytes {
		h.cfg.logger.InfoContext(r.Context(), "mcp: an answer to a question was refused", "reason", "too_large", "bytes", len(body))
		h.writeError(r.Context(), w, nil, "", httpError(http.StatusRequestEntityTooLarge, CodeInvalidRequest, "Answer too large").
			WithData(map[string]int64{"maxBytes": l.AnswerBytes}))
		return
	}
	var resp struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &resp) != nil || (resp.Result == nil) == (resp.Error == nil) {
		refuse("malformed")
		return
	}
	id, ok := jsonrpc.String(resp.ID)
	if !ok || !answerFor(id, p, h.audience) {
		refuse("not_this_callers")
		return
	}
	delivered, err := busPublish(r.Context(), l.Bus, id, body)
	if err != nil {
		h.cfg.logger.ErrorContext(r.Context(), "mcp: the answer bus failed", "err", err)
		// The bus may have delivered it before failing (a store's reply
		// lost on its way back): the call may be running with it. Sending
		// it again is safe either way, since a delivered answer is refused.
		h.writeError(r.Context(), w, nil, "", unavailable("The answer may not have been delivered; send it again (an answer already delivered is refused)", "answer_bus_unavailable"))
		return
	}
	if !delivered {
		refuse("not_waited_for")
		return
	}
	w.Header()["Cache-Control"] = []string{"no-store"}
	w.WriteHeader(http.StatusAccepted)
}
