package mcp

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"
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
