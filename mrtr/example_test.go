package mrtr_test

import (
	"bytes"
	"fmt"

	"github.com/mcpdual/mcpdual/mrtr"
)

// Seal a handler's state for one request; only the same request (same
// principal, workspace, tool and arguments) opens it again, on any replica
// holding the ring.
func ExampleSealer() {
	ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: bytes.Repeat([]byte{7}, 32)}) // use 32 random bytes
	if err != nil {
		panic(err)
	}
	s := mrtr.NewSealer(ring)
	b := mrtr.Binding{Principal: "alice", Workspace: "w1", Audience: "https://mcp.example.com/mcp", Version: "2026-07-28",
		Method: "tools/call", Target: "emails_delete", Arguments: []byte(`{"id":"e1"}`)}
	state, _, err := s.Seal(b, []byte("step-1"))
	if err != nil {
		panic(err)
	}
	opened, err := s.Open(b, state)
	fmt.Println(string(opened.Payload), err)

	b.Arguments = []byte(`{"id":"e2"}`)
	_, err = s.Open(b, state)
	fmt.Println(err, "/", mrtr.Reason(err))
	// Output:
	// step-1 <nil>
	// invalid or expired requestState / binding_mismatch
}
