package mcp

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpdual/mcpdual/internal/seam"
)

// TestInputRequired_StateRoomEdge: a round's plaintext of exactly the
// room the era seals (seam.Profile.StateRoom) is asked; one byte more is
// refused, naming the form; no room (an era that seals none, a 2025
// revision) bounds nothing here.
func TestInputRequired_StateRoomEdge(t *testing.T) {
	t.Parallel()
	form := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":9}}}`)
	ask := func(room int) (*seam.InputRequired, error) {
		req := &request{envelope: envelope{handler: &Handler{}}}
		req.capBits = CapElicitationForm
		req.rev = &revision{f: featuresOf(&seam.Profile{StateRoom: room})}
		return req.inputRequired(purposeTool, []byte("page=2"), []InputRequest{ElicitForm("who", "Tell us", form)}, nil)
	}
	ir, err := ask(0)
	if err != nil {
		t.Fatal(err)
	}
	size := len(ir.State)
	if ir, err := ask(size); err != nil || len(ir.State) != size {
		t.Errorf("a room of the plaintext's %d bytes: %v", size, err)
	}
	var large *stateTooLarge
	if _, err := ask(size - 1); !errors.As(err, &large) || large.size != size || large.room != size-1 ||
		large.named != 1 || large.forms[0].key != "who" || large.payload != len("page=2") {
		t.Errorf("a room a byte short: %v %+v", err, large)
	}
}
