package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"
)

// idempotency makes the API's writes safe to repeat: a request carrying
// an Idempotency-Key runs once, and every later request with the same key
// (from the same principal, in the same workspace) gets the first answer
// again — also while the first one is still running, and, with -redis, on
// any replica. A key reused for another request (another route, target or
// body) is refused with 422. The MCP endpoint sends one with every
// confirmed destructive call, the same for every replay of one
// confirmation.
//
// Only an answer that changed something is remembered: a 2xx. A refused
// call (401, 403, 404, 422, 429, 503...) records nothing and a retry runs
// again; a call the token's scopes do not allow is refused before the
// store is touched, so a read-only token cannot fill it. Keys are
// remembered for a day, at most idemPerOwner of them for one caller
// (issuer and subject: its oldest go first), and in memory at most
// idemMaxKeys in all, taken from the caller holding the most when full:
// one tenant's traffic evicts only its own keys while it holds more than
// the others. Requests that waited for a first answer that is not kept
// get it too in memory; with Redis they run again.
//
// The first request holds its key with a lease (idemLease, 5 s) renewed
// while its route runs, as the MCP endpoint's replay guard holds a
// confirmation: a route that runs longer keeps its key, and the key of a
// run whose replica died is taken over once the lease lapses, so the
// retry of a confirmed call that crashed mid-call runs the route instead
// of waiting behind the dead run until its client gives up. A route that
// gives up without writing because its request ended stores nothing and
// frees its key at once.
type idempotency struct {
	store idemStore
}

// idemAnswer is a remembered answer.
type idemAnswer struct {
	Status int         `json:"s"`
	Header http.Header `json:"h"`
	Body   []byte      `json:"b"`
}

// claim is what begin found for a key: run (this request is the first,
// or takes over from a run that died, and must call finish), an answer to
// replay, or a key used for another request.
type claim struct {
	run      bool
	answer   *idemAnswer
	mismatch bool
	// The run's lease: its token, and the request's fingerprint (Redis),
	// for renew and finish.
	token, fingerprint string
	entry              *idemEntry // memory: the run's entry, for finish
}

// idemStore keeps the keys. begin waits while another request holds the
// key's lease, for its answer (or, should that run be interrupted and
// free the key, to run it); should that run die (its lease lapses
// unrenewed) it takes the key over and this request runs. Its error means
// the store cannot say (Redis does not answer, or the first run has held
// the key past idemMaxWait), and nothing may run. renew extends the lease
// of a run while its route runs (held is false once another request took
// it over). finish hands the answer of a run to the requests waiting for
// it, and keeps it for later ones when keep is true (otherwise the key is
// forgotten); a nil answer (an interrupted run) forgets the key and lets
// the waiters run it. leaseLength is the store's lease (idemLease; tests shorten
// it), which the wrapper renews every third of.
type idemStore interface {
	begin(ctx context.Context, owner, key string, fp [32]byte) (claim, error)
	renew(ctx context.Context, owner, key string, c claim) (held bool, err error)
	finish(ctx context.Context, owner, key string, c claim, a *idemAnswer, keep bool) error
	leaseLength() time.Duration
}

// Bounds of the store.
const (
	idemTTL      = 24 * time.Hour
	idemPerOwner = 1_000
	idemMaxKeys  = 10_000
)

// idemLease is how long a run holds its key unless renewed: the wrapper
// renews it every third of that while the route runs, so a slow but live
// run keeps its key however long it runs, and the key of a run whose
// replica died is taken over that long after its last renewal. It matches
// the MCP endpoint's lease on a confirmation (5 s): a confirmed call that
// runs again after a crash finds the dead run's key free about when it
// gets there, instead of waiting behind it until its caller gives up.
const idemLease = 5 * time.Second

// idemMaxWait bounds how long a request waits behind a live run of its
// key: past the server's WriteTimeout (60 s), no answer could reach its
// caller anyway. It is then answered 503 and may retry.
const idemMaxWait = 90 * time.Second

func newIdempotency(s shared) *idempotency {
	if s.rdb != nil {
		r := newRedisIdem(s.rdb, redisPrefix)
		if s.timeout > 0 {
			r.timeout = s.timeout
		}
		return &idempotency{store: r}
	}
	return &idempotency{store: newMemoryIdem()}
}

// maxKeyBytes bounds an Idempotency-Key.
const maxKeyBytes = 255

// maxIdempotentBody bounds the body a keyed write may have: it is read
// whole to be fingerprinted.
const maxIdempotentBody = 1 << 20

// wrap makes next, a write (every keyed route needs scopeWrite), honour
// Idempotency-Key.
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
		if !id.can(scopeWrite) || id.workspace == "" {
			next(w, r) // the route refuses it; nothing is recorded
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
		// The record is the principal's own (Key, with its client); the
		// cap is the caller's (RateKey), so registering clients does not
		// multiply it.
		owner := id.principal.RateKey()
		scope := id.principal.Key() + "|" + id.workspace + "|" + key

		c, err := m.store.begin(r.Context(), owner, scope, fp)
		switch {
		case err != nil && r.Context().Err() != nil:
			return // the caller left while waiting for the first answer
		case err != nil:
			log.Printf("inbox: idempotency store: %v", err)
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, "idempotency_unavailable", "Server temporarily unavailable; retry with the same Idempotency-Key")
			return
		case c.mismatch:
			writeError(w, http.StatusUnprocessableEntity, "idempotency_key_reused", "This Idempotency-Key was used for another request")
			return
		case !c.run:
			// The stored answer is shared by every replay: each response
			// gets its own header slices, which whatever wraps this
			// handler may edit in place.
			for k, v := range c.answer.Header {
				w.Header()[k] = slices.Clone(v)
			}
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(c.answer.Status)
			_, _ = w.Write(c.answer.Body)
			return
		}
		// The answer is stored even when the caller has gone, so its
		// retry replays it: a context of its own, bounded.
		detached := context.WithoutCancel(r.Context())
		stopRenewing := m.renewWhileRunning(detached, owner, scope, c)
		finish := func(a *idemAnswer, keep bool) {
			stopRenewing()
			ctx, cancel := context.WithTimeout(detached, 2*time.Second)
			defer cancel()
			if err := m.store.finish(ctx, owner, scope, c, a, keep); err != nil {
				// The claim lapses after its lease and a retry runs again.
				log.Printf("inbox: idempotency store: the answer was not recorded: %v", err)
			}
		}
		finished := false
		defer func() {
			if !finished { // next panicked: free the key, answer its waiters
				finish(&idemAnswer{Status: http.StatusInternalServerError, Header: http.Header{"Content-Type": {"application/json"}},
					Body: []byte(`{"error":{"code":"internal","message":"Internal error"}}` + "\n")}, false)
			}
		}()
		rec := &wroteRecorder{ResponseRecorder: httptest.NewRecorder()}
		next(rec, r)
		if !rec.wrote && r.Context().Err() != nil {
			// The route gave up, writing nothing, because its request
			// ended (the caller left, or a deadline passed): that is no
			// answer, and a 200 must not be stored for it. The key is
			// freed for the retry, and so is any request waiting for it;
			// nothing is written (the MCP endpoint then tells its client
			// to retry for the outcome).
			finish(nil, false)
			finished = true
			return
		}
		a := &idemAnswer{Status: rec.Code, Header: rec.Header().Clone(), Body: rec.Body.Bytes()}
		finish(a, a.Status/100 == 2) // anything else changed nothing: forget the key
		finished = true
		for k, v := range a.Header { // a is stored: its slices are not this response's
			w.Header()[k] = slices.Clone(v)
		}
		w.WriteHeader(a.Status)
		_, _ = w.Write(a.Body)
	}
}

// wroteRecorder notes whether the route wrote anything: a recorder's Code
// is 200 from the start.
type wroteRecorder struct {
	*httptest.ResponseRecorder
	wrote bool
}

func (w *wroteRecorder) WriteHeader(code int) {
	w.wrote = true
	w.ResponseRecorder.WriteHeader(code)
}

func (w *wroteRecorder) Write(p []byte) (int, error) {
	w.wrote = true
	return w.ResponseRecorder.Write(p)
}

// renewWhileRunning renews c's lease every third of it until the returned
// function is called (which waits for the renewal to stop). A renewal that
// fails is logged and tried again; one that finds the key taken over
// stops: the run goes on, and its answer will not be recorded.
func (m *idempotency) renewWhileRunning(ctx context.Context, owner, key string, c claim) (stop func()) {
	lease := m.store.leaseLength()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			held, err := m.store.renew(ctx, owner, key, c)
			switch {
			case err != nil:
				log.Printf("inbox: idempotency store: renewing a run's lease failed; should it lapse, a retry runs the request again: %v", err)
			case !held:
				log.Printf("inbox: idempotency store: a running request lost its key's lease; a retry may run it again")
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// memoryIdem keeps the keys of one process. A run holds its key's lease
// as in Redis, so the two behave alike: a waiter takes over a key whose
// run stopped renewing (in one process that is a run whose renewal was
// lost; a process that dies takes its keys with it).
type memoryIdem struct {
	mu       sync.Mutex
	entries  map[string]*idemEntry
	owners   map[string][]string // owner → its keys, oldest first
	perOwner int
	maxKeys  int
	ttl      time.Duration
	lease    time.Duration
	maxWait  time.Duration
	now      func() time.Time
}

type idemEntry struct {
	owner       string
	fingerprint [32]byte
	done        chan struct{} // closed once the first answer is known
	answer      *idemAnswer
	expires     time.Time
	token       string    // the run's lease, while it runs
	leaseEnd    time.Time // guarded by memoryIdem.mu
}

func newMemoryIdem() *memoryIdem {
	return &memoryIdem{entries: map[string]*idemEntry{}, owners: map[string][]string{},
		perOwner: idemPerOwner, maxKeys: idemMaxKeys, ttl: idemTTL, lease: idemLease, maxWait: idemMaxWait, now: time.Now}
}

func (m *memoryIdem) begin(ctx context.Context, owner, key string, fp [32]byte) (claim, error) {
	giveUp := time.NewTimer(m.maxWait)
	defer giveUp.Stop()
	for {
		m.mu.Lock()
		now := m.now()
		e, seen := m.entries[key]
		switch {
		case seen && now.After(e.expires):
			m.remove(key)
			seen = false
		case seen && e.fingerprint == fp && e.token != "" && now.After(e.leaseEnd):
			// The run stopped renewing its lease: take its key over. Its
			// waiters hold its entry and come back here.
			m.remove(key)
			seen = false
		}
		if !seen {
			e = &idemEntry{owner: owner, fingerprint: fp, done: make(chan struct{}), expires: now.Add(m.ttl),
				token: rand.Text(), leaseEnd: now.Add(m.lease)}
			m.add(owner, key, e)
			m.mu.Unlock()
			return claim{run: true, entry: e, token: e.token}, nil
		}
		wait := e.leaseEnd.Sub(now)
		m.mu.Unlock()
		if e.fingerprint != fp {
			return claim{mismatch: true}, nil
		}
		lapse := time.NewTimer(max(wait, 0) + time.Millisecond)
		select {
		case <-e.done:
			lapse.Stop()
			if e.answer == nil {
				// The run was interrupted and freed the key: look again
				// (this request may run it now).
				continue
			}
			// A first answer that was forgotten (not a 2xx) is still the
			// answer of the requests that waited for it.
			return claim{answer: e.answer}, nil
		case <-ctx.Done():
			lapse.Stop()
			return claim{}, ctx.Err()
		case <-giveUp.C:
			lapse.Stop()
			return claim{}, errors.New("begin: the first request with this key is still running")
		case <-lapse.C:
			// The lease ends now unless renewed: look again.
		}
	}
}

func (m *memoryIdem) leaseLength() time.Duration { return m.lease }

func (m *memoryIdem) renew(_ context.Context, _, key string, c claim) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries[key] != c.entry || c.entry.token != c.token {
		return false, nil
	}
	c.entry.leaseEnd = m.now().Add(m.lease)
	return true, nil
}

func (m *memoryIdem) finish(_ context.Context, _, key string, c claim, a *idemAnswer, keep bool) error {
	m.mu.Lock()
	if !keep && m.entries[key] == c.entry {
		m.remove(key)
	}
	c.entry.token = ""
	m.mu.Unlock()
	// The waiters hold the entry, so they get the answer even when it
	// was forgotten, evicted or taken over while it ran.
	c.entry.answer = a
	close(c.entry.done)
	return nil
}

// add remembers e under key for owner: the owner's expired keys go first,
// then its oldest while it holds perOwner; when the store holds maxKeys,
// expired keys of every owner go, then the oldest key of the owner holding
// the most. The caller holds m.mu.
func (m *memoryIdem) add(owner, key string, e *idemEntry) {
	m.pruneOwner(owner)
	for len(m.owners[owner]) >= m.perOwner {
		m.remove(m.owners[owner][0])
	}
	if len(m.entries) >= m.maxKeys {
		for o := range m.owners {
			m.pruneOwner(o)
		}
	}
	for len(m.entries) >= m.maxKeys {
		fullest, n := "", 0
		for o, keys := range m.owners {
			if len(keys) > n || (len(keys) == n && o < fullest) {
				fullest, n = o, len(keys)
			}
		}
		m.remove(m.owners[fullest][0])
	}
	m.entries[key] = e
	m.owners[owner] = append(m.owners[owner], key)
}

// pruneOwner drops owner's expired keys (its oldest); the caller holds
// m.mu.
func (m *memoryIdem) pruneOwner(owner string) {
	now := m.now()
	for keys := m.owners[owner]; len(keys) > 0; keys = m.owners[owner] {
		if !now.After(m.entries[keys[0]].expires) {
			return
		}
		m.remove(keys[0])
	}
}

// remove forgets key; the caller holds m.mu.
func (m *memoryIdem) remove(key string) {
	e := m.entries[key]
	if e == nil {
		return
	}
	delete(m.entries, key)
	keys := m.owners[e.owner]
	for i, k := range keys {
		if k == key {
			keys = append(keys[:i:i], keys[i+1:]...)
			break
		}
	}
	if len(keys) == 0 {
		delete(m.owners, e.owner)
	} else {
		m.owners[e.owner] = keys
	}
}
