package mcp

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2026"
)

// TestMemoryGuard_PerOwner (review item 9): the endpoint's in-memory
// guard caps each caller's live confirmations, so one tenant cannot fill
// the guard and have every other tenant's confirmations refused; the cap
// frees as that caller's entries expire, and a claim for no caller ("") is
// bounded by the total only.
func TestMemoryGuard_PerOwner(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	g := newMemoryGuard(10)
	g.perOwner = 3
	g.now = func() time.Time { return now }
	const lease = 10 * time.Second
	until := now.Add(time.Minute)
	claim := func(owner, nonce string) error {
		tok, _, err := g.Claim(context.Background(), owner, []byte(nonce), until, lease)
		if err == nil && tok == "" {
			return errors.New("no lease")
		}
		return err
	}
	for i := range 3 {
		if err := claim("principal|noisy", "n"+strconv.Itoa(i)); err != nil {
			t.Fatalf("noisy claim %d: %v", i, err)
		}
	}
	if err := claim("principal|noisy", "n3"); !errors.Is(err, errOwnerFull) {
		t.Errorf("a fourth live claim of one caller: %v, want errOwnerFull", err)
	}
	if err := claim("principal|quiet", "q0"); err != nil {
		t.Errorf("another caller is refused: %v", err)
	}
	// The total cap still holds, for claims with no owner too.
	for i := range 6 {
		if _, _, err := g.Claim(context.Background(), "", []byte("x"+strconv.Itoa(i)), until, lease); err != nil {
			t.Fatalf("ownerless claim %d: %v", i, err)
		}
	}
	if err := claim("principal|other", "o0"); !errors.Is(err, errGuardFull) {
		t.Errorf("a claim past the total: %v, want errGuardFull", err)
	}
	// Once the noisy caller's states can no longer open and their leases
	// lapsed, its share is free again, and the counts are back to what
	// is live.
	now = until.Add(time.Second)
	if err := claim("principal|noisy", "n4"); err != nil {
		t.Errorf("after expiry: %v", err)
	}
	if g.owners["principal|noisy"] != 1 || len(g.owners) != 1 || len(g.used) != 1 {
		t.Errorf("counts after expiry: owners %v, %d entries", g.owners, len(g.used))
	}
}

// TestMemoryGuard_DefaultBoundsEdge: the guard an endpoint makes when the
// host gives none holds 100,000 live confirmations, at most 1,000 of one
// caller (record 011). A caller's 1,000th claim is taken and its 1,001st
// refused while another caller's is taken; the 100,000th claim in all is
// taken and the next refused, with an owner or without.
func TestMemoryGuard_DefaultBoundsEdge(t *testing.T) {
	h := NewHandler(NewServer(Implementation{Name: "guard", Version: "1"}), []Era{era2026.New()})
	g, ok := h.cfg.replay.(*memoryGuard)
	if !ok {
		t.Fatalf("the default guard is a %T", h.cfg.replay)
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	g.now = func() time.Time { return now }
	until := now.Add(time.Minute)
	n := 0
	claim := func(owner string) error {
		n++
		_, _, err := g.Claim(context.Background(), owner, []byte("n"+strconv.Itoa(n)), until, 10*time.Second)
		return err
	}
	for i := range 1000 {
		if err := claim("principal|a"); err != nil {
			t.Fatalf("claim %d of one caller: %v", i+1, err)
		}
	}
	if err := claim("principal|a"); !errors.Is(err, errOwnerFull) {
		t.Errorf("claim 1,001 of one caller: %v, want errOwnerFull", err)
	}
	// 99 more callers hold 1,000 each: 100,000 in all.
	for c := range 99 {
		for i := range 1000 {
			if err := claim("principal|c" + strconv.Itoa(c)); err != nil {
				t.Fatalf("caller %d, claim %d (%d live): %v", c, i+1, len(g.used), err)
			}
		}
	}
	if len(g.used) != 100_000 {
		t.Fatalf("%d live claims, want 100,000", len(g.used))
	}
	for _, owner := range []string{"principal|new", ""} {
		if err := claim(owner); !errors.Is(err, errGuardFull) {
			t.Errorf("claim 100,001 (owner %q): %v, want errGuardFull", owner, err)
		}
	}
}
