package mcp

import (
	"sync"
	"time"
)

func newListens() *listens {
	return &listens{admission: admission{limit: maxListens, perCaller: listensPerCaller, held: map[string]int{}},
		budgets: map[string]*readBudget{}}
}

// listens are the open task listen streams: their slots, and each
// caller's budget of status reads, shared by its streams while one is
// open.
type listens struct {
	admission
	budgetsMu sync.Mutex
	budgets   map[string]*readBudget
}

// open takes a stream's slot for caller and returns the caller's read
// budget; close gives both back.
func (l *listens) open(caller string) (*readBudget, *Error) {
	if e := l.acquire(caller); e != nil {
		return nil, e
	}
	return l.budget(caller), nil
}

func (l *listens) close(caller string, b *readBudget) {
	l.dropBudget(caller, b)
	l.release(caller)
}

// budget returns caller's read budget for a stream that holds a slot of
// another kind (a notification stream that also follows tasks);
// dropBudget gives it back.
func (l *listens) budget(caller string) *readBudget {
	l.budgetsMu.Lock()
	defer l.budgetsMu.Unlock()
	b := l.budgets[caller]
	if b == nil {
		b = newReadBudget(listenReadsPerCaller)
		l.budgets[caller] = b
	}
	b.streams++
	return b
}

func (l *listens) dropBudget(caller string, b *readBudget) {
	l.budgetsMu.Lock()
	if b.streams--; b.streams == 0 {
		delete(l.budgets, caller)
	}
	l.budgetsMu.Unlock()
}

// readBudget is a token bucket of status reads: perSecond a second, as
// many at once.
type readBudget struct {
	mu        sync.Mutex
	perSecond float64
	tokens    float64
	last      time.Time
	streams   int // the streams sharing it (guarded by listens.budgetsMu)
}

func newReadBudget(perSecond int) *readBudget {
	return &readBudget{perSecond: float64(perSecond), tokens: float64(perSecond)}
}

// waitLocked refills b to now and returns how long until it allows a
// read (0: at once); the caller holds b.mu.
func (b *readBudget) waitLocked(now time.Time) time.Duration {
	if !b.last.IsZero() {
		b.tokens = min(b.perSecond, b.tokens+now.Sub(b.last).Seconds()*b.perSecond)
	}
	b.last = now
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) / b.perSecond * float64(time.Second))
}

// takeRead spends one read of both budgets at now, or of neither: it
// returns how long until both allow one (0 when spent).
func takeRead(now time.Time, stream, caller *readBudget) time.Duration {
	stream.mu.Lock()
	defer stream.mu.Unlock()
	if d := stream.waitLocked(now); d > 0 {
		return d
	}
	caller.mu.Lock()
	defer caller.mu.Unlock()
	if d := caller.waitLocked(now); d > 0 {
		return d
	}
	stream.tokens--
	caller.tokens--
	return 0
}

// Bounds of task listen streams.
const (
	// maxListenTasks bounds the ids of one stream: each is a status read
	// every poll interval.
	maxListenTasks = 16
	// listensPerCaller and maxListens bound the open streams, per caller
	// and in all: each holds a connection and reads status routes.
	listensPerCaller = 4
	maxListens       = 256
	// minListenPoll is the shortest poll interval a stream keeps, whatever
	// a task suggests.
	minListenPoll = time.Second
	// listenReadsPerStream and listenReadsPerCaller bound the status
	// reads of one stream and of all of one caller's streams (in this
	// process): per second, with as many at once when they open.
	listenReadsPerStream = 10
	listenReadsPerCaller = 20
)
