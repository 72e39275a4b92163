package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// idempotency makes the API's writes safe to repeat: a request carrying
// an Idempotency-Key runs once, and every later request with the same key
// (from the same principal, in the same workspace) gets the first answer
// again — also while the first one is still running. A key reused for
// another request (another route, target or body) is refused with 422.
// The MCP endpoint sends one with every confirmed destructive call, the
// same for every replay of one confirmation.
//
// Keys are remembered for a day, at most maxKeys of them (the oldest go
// first); an answer of 5xx is forgotten, so a retry may try again.
type idempotency struct {
	mu      sync.Mutex
	entries map[string]*idemEntry
	order   []string // keys, oldest first
	ttl     time.Duration
	maxKeys int
	now     func() time.Time
}

type idemEntry struct {
	fingerprint [32]byte
	done        chan struct{} // closed once the first answer is stored
	status      int
	header      http.Header
	body        []byte
	expires     time.Time
}

func newIdempotency() *idempotency {
	return &idempotency{entries: map[string]*idemEntry{}, ttl: 24 * time.Hour, maxKeys: 10_000, now: time.Now}
}

// maxKeyBytes bounds an Idempotency-Key.
const maxKeyBytes = 255

// maxIdempotentBody bounds the body a keyed write may have: it is read
// whole to be fingerprinted.
const maxIdempotentBody = 1 << 20

func (m *idempotency) wrap(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			next(w, r)
			return
		}
		if len(key) > maxKeyBytes {
			writeError(w, http.StatusUnprocessableEntity, "invalid_idempotency_key", "Idempotency-Key is longer than 255 bytes")
			return
		}
		id := identityOf(r)
		if id.principal == nil {
			next(w, r) // the route refuses it
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxIdempotentBody))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			// Never fingerprint, or run, a body cut short.
			writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", "the body is larger than 1 MiB")
			return
		case err != nil:
			writeError(w, http.StatusBadRequest, "invalid_body", "could not read the body")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		fp := sha256.Sum256(append([]byte(r.Method+" "+r.URL.Path+"\n"), body...))
		scope := id.principal.Key() + "|" + id.workspace + "|" + key

		m.mu.Lock()
		e, seen := m.entries[scope]
		if seen && m.now().After(e.expires) {
			delete(m.entries, scope)
			seen = false
		}
		if !seen {
			e = &idemEntry{fingerprint: fp, done: make(chan struct{}), expires: m.now().Add(m.ttl)}
			m.add(scope, e)
		}
		m.mu.Unlock()

		if seen {
			if e.fingerprint != fp {
				writeError(w, http.StatusUnprocessableEntity, "idempotency_key_reused", "This Idempotency-Key was used for another request")
				return
			}
			select {
			case <-e.done:
			case <-r.Context().Done():
				return
			}
			for k, v := range e.header {
				w.Header()[k] = v
			}
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(e.status)
			_, _ = w.Write(e.body)
			return
		}
		rec := httptest.NewRecorder()
		next(rec, r)
		e.status, e.header, e.body = rec.Code, rec.Header().Clone(), rec.Body.Bytes()
		if e.status >= 500 {
			m.mu.Lock()
			if m.entries[scope] == e {
				delete(m.entries, scope)
			}
			m.mu.Unlock()
		}
		close(e.done)
		for k, v := range e.header {
			w.Header()[k] = v
		}
		w.WriteHeader(e.status)
		_, _ = w.Write(e.body)
	}
}

// add remembers e under scope, first dropping the oldest keys that have
// expired, and the oldest live ones while there are maxKeys; the caller
// holds m.mu.
func (m *idempotency) add(scope string, e *idemEntry) {
	now := m.now()
	for len(m.order) > 0 {
		k := m.order[0]
		old, ok := m.entries[k]
		if ok && !now.After(old.expires) && len(m.entries) < m.maxKeys {
			break
		}
		if ok {
			delete(m.entries, k)
		}
		m.order = m.order[1:]
	}
	m.entries[scope] = e
	m.order = append(m.order, scope)
}
