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

// The ring every replica loads, in its text form: the key that seals
// first. These secrets are examples; make yours with
// head -c 32 /dev/urandom | base64. In a server, mrtr.LoadKeys reads the
// same text from an environment variable or a file.
func ExampleParseKeys() {
	keys, err := mrtr.ParseKeys("k2:YhJ9WgWGUbYxkcpz6qkFqMMFaMFCAZA0KJ6T1lrDdxc=,k1:/+Dw0F2kbC5uYLtYKfbn4G25uJCR/CcYHmqoWoFdRpo=")
	if err != nil {
		panic(err)
	}
	ring, err := mrtr.NewRing(keys...)
	if err != nil {
		panic(err)
	}
	_ = mrtr.NewSealer(ring) // era2026.WithSealer takes it
	for _, k := range keys {
		fmt.Println(k.ID, len(k.Secret))
	}

	// Errors name the entry and the key, never the secret.
	_, err = mrtr.ParseKeys("k2:YhJ9WgWGUbYxkcpz6qkFqMMFaMFCAZA0")
	fmt.Println(err)
	_, err = mrtr.ParseKeys("k2:YhJ9WgWGUbYxkcpz6qkFqMMFaMFCAZA0KJ6T1lrDdxc=,k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	fmt.Println(err)
	// Output:
	// k2 32
	// k1 32
	// mrtr: key ring: entry 1 of 1: key "k2": the secret decodes to 24 bytes; it must be exactly 32 random bytes
	// mrtr: key ring: entry 2 of 2: key "k1": the secret does not look random (1 distinct byte values); use 32 random bytes
}
