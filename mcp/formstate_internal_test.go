package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpdual/mcpdual/internal/seam"
)

// TestInputRequired_StateRoomEdge: a round's plaintext of exactly the
// room the era seals (seam.Profile.StateRoom) carries its form's checks;
// one byte less and the form is still asked, its checks left out of the
// state; a payload that does not fit even without them is refused as the
// handler's bug, naming no form as the cause. No room (an era that seals
// none, a 2025 revision) bounds nothing here.
func TestInputRequired_StateRoomEdge(t *testing.T) {
	t.Parallel()
	form := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":9}}}`)
	ask := func(room int) (*seam.InputRequired, error) {
		req := &request{envelope: envelope{handler: &Handler{cfg: handlerConfig{logger: slog.New(slog.DiscardHandler)}}}}
		req.HTTP = httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.capBits = CapElicitationForm
		req.rev = &revision{f: featuresOf(&seam.Profile{StateRoom: room})}
		return req.inputRequired(purposeTool, []byte("page=2"), []InputRequest{ElicitForm("who", "Tell us", form)}, nil)
	}
	ir, err := ask(0)
	if err != nil {
		t.Fatal(err)
	}
	size := len(ir.State)
	if !bytes.Contains(ir.State, []byte(`"f":{"who":`)) {
		t.Fatalf("the state %s carries no form", ir.State)
	}
	if ir, err := ask(size); err != nil || len(ir.State) != size {
		t.Errorf("a room of the plaintext's %d bytes: %v", size, err)
	}
	if ir, err := ask(size - 1); err != nil || len(ir.State) > size-1 || bytes.Contains(ir.State, []byte(`"f"`)) ||
		!bytes.Contains(ir.Requests, []byte(`"who"`)) {
		t.Errorf("a room a byte short: %v; want the form asked, its checks out of the state", err)
	}
	var large *stateTooLarge
	if _, err := ask(len("page=2")); !errors.As(err, &large) || large.named != 0 || large.payload != len("page=2") ||
		len(large.forms) != 1 || large.forms[0].key != "who" {
		t.Errorf("a room the payload does not fit: %v %+v", err, large)
	}
}
