package mrtr

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"time"
)

// Limits on the encoded state. Inbound state is refused by length before
// any decoding or cryptography.
const (
	MaxInboundBytes = 8 << 10
	MaxMintBytes    = 4 << 10
)

// Defaults for NewSealer.
const (
	DefaultTTL  = 5 * time.Minute
	DefaultSkew = 30 * time.Second
)

// formatVersion is the first byte of every state; a new layout gets a new
// value, and states of another layout are refused.
const formatVersion = 1

// NonceBytes is the size of the random nonce bound into every state.
const NonceBytes = 16

// ErrInvalid is the only error Open returns.
var ErrInvalid = errors.New("invalid or expired requestState")

// openError carries the cause of a refusal for the server's log.
type openError struct{ reason string }

func (e *openError) Error() string        { return ErrInvalid.Error() }
func (e *openError) Is(target error) bool { return target == ErrInvalid }

// Reason returns why Open refused a state ("expired", "bad_tag",
// "binding_mismatch", ...), for logs only; "" for other errors.
func Reason(err error) string {
	var e *openError
	if errors.As(err, &e) {
		return e.reason
	}
	return ""
}

func refuse(reason string) error { return &openError{reason: reason} }

// Binding is what a state belongs to. Open refuses a state sealed for a
// binding that differs in any field.
type Binding struct {
	Principal string // the verified subject
	Workspace string
	Audience  string // the server's resource identity
	Version   string // protocol revision
	Method    string // tools/call, prompts/get or resources/read
	Target    string // tool name, prompt name or resource URI
	// Arguments is the request's arguments object; it is bound by a digest
	// of its canonical form (members sorted, no insignificant space).
	Arguments []byte
}

// Opened is what a valid state gives back.
type Opened struct {
	Payload  []byte
	Nonce    [NonceBytes]byte
	IssuedAt time.Time
	Expires  time.Time
	// ValidUntil is the last instant Open accepts the state: Expires plus
	// the sealer's skew. Whatever must outlive every use of the state (a
	// record that its confirmation was spent) must live until then.
	ValidUntil time.Time
}

// Sealer seals and opens states with a Ring. It is safe for concurrent use.
type Sealer struct {
	ring *Ring
	ttl  time.Duration
	skew time.Duration
	now  func() time.Time
}

// Option configures a Sealer.
type Option interface{ apply(*Sealer) }

type optionFunc func(*Sealer)

func (f optionFunc) apply(s *Sealer) { f(s) }

// WithTTL sets how long a state stays valid (default 5 minutes). It
// panics on a duration that is not positive.
func WithTTL(d time.Duration) Option {
	if d <= 0 {
		panic("mrtr: WithTTL needs a positive duration")
	}
	return optionFunc(func(s *Sealer) { s.ttl = d })
}

// WithSkew sets the clock difference tolerated between replicas (default
// 30s). It panics on a duration below 0 or above 5 minutes.
func WithSkew(d time.Duration) Option {
	if d < 0 || d > time.Minute*5 {
		panic("mrtr: WithSkew needs a duration from 0 to 5 minutes")
	}
	return optionFunc(func(s *Sealer) { s.skew = d })
}

// WithClock sets the time source (tests).
func WithClock(now func() time.Time) Option {
	return optionFunc(func(s *Sealer) { s.now = now })
}

// NewSealer returns a Sealer over ring. It panics on a nil ring.
func NewSealer(ring *Ring, opts ...Option) *Sealer {
	if ring == nil {
		panic("mrtr: NewSealer needs a Ring")
	}
	s := &Sealer{ring: ring, ttl: DefaultTTL, skew: DefaultSkew, now: time.Now}
	for _, o := range opts {
		o.apply(s)
	}
	return s
}

// Seal returns a state for b carrying payload, and the state's nonce (a
// host passes it on as an idempotency key). It fails if the arguments are
// not a JSON object or the state would exceed MaxMintBytes.
func (s *Sealer) Seal(b Binding, payload []byte) (state string, nonce [NonceBytes]byte, err error) {
	return s.SealFor(b, payload, s.ttl)
}

// SealFor is Seal with a lifetime of its own instead of the sealer's TTL:
// a task id, say, lives as long as its task. A key that sealed it must
// stay in every ring until ttl plus the skew has passed. It fails as Seal
// does, and on a ttl that is not positive.
func (s *Sealer) SealFor(b Binding, payload []byte, ttl time.Duration) (state string, nonce [NonceBytes]byte, err error) {
	if ttl <= 0 {
		return "", nonce, errors.New("mrtr: SealFor needs a positive lifetime")
	}
	digest, err := b.digest()
	if err != nil {
		return "", nonce, err
	}
	if _, err := rand.Read(nonce[:]); err != nil {
		return "", nonce, err
	}
	now := s.now()
	// The format keeps whole seconds: the issue time is rounded down and
	// the expiry up, so a state opens for at least its whole lifetime
	// (rounded down, one sealed at .9 s would lose 0.9 s of it, all of a
	// short TTL's with no skew).
	end := now.Add(ttl)
	expires := end.Unix()
	if end.Nanosecond() > 0 {
		expires++
	}
	pt := appendPlaintext(nil, &plaintext{Binding: digest[:], Issued: now.Unix(), Expires: expires, Nonce: nonce[:], Payload: payload})
	k := s.ring.keys[0]
	// Layout: version | id length | id | what the key's algorithm appends
	// (IV or salt, ciphertext, tag). The version and key id are
	// authenticated as associated data.
	header := make([]byte, 0, 2+len(k.id)+64+len(pt))
	header = append(header, formatVersion, byte(len(k.id)))
	header = append(header, k.id...)
	// dst and the associated data must not share memory.
	out, err := k.alg.seal(header, pt, bytes.Clone(header))
	if err != nil {
		return "", nonce, err
	}
	if base64.RawURLEncoding.EncodedLen(len(out)) > MaxMintBytes {
		return "", nonce, errors.New("mrtr: state larger than 4 KiB; keep the payload small")
	}
	return base64.RawURLEncoding.EncodeToString(out), nonce, nil
}

// Open checks a state against b and returns what it carries. Every failure
// is ErrInvalid; Reason tells the log why.
func (s *Sealer) Open(b Binding, state string) (*Opened, error) {
	if len(state) > MaxInboundBytes {
		return nil, refuse("too_large")
	}
	// The decoder skips CR and LF even when strict: refused here, so that
	// a state has one spelling.
	if strings.ContainsAny(state, "\r\n") {
		return nil, refuse("malformed")
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(state)
	if err != nil {
		return nil, refuse("malformed")
	}
	if len(raw) < 2 || raw[0] != formatVersion {
		return nil, refuse("bad_format")
	}
	idLen := int(raw[1])
	if len(raw) < 2+idLen {
		return nil, refuse("malformed")
	}
	alg, ok := s.ring.find(string(raw[2 : 2+idLen]))
	if !ok {
		return nil, refuse("unknown_key")
	}
	pt, err := alg.open(raw[2+idLen:], raw[:2+idLen])
	if errors.Is(err, errShort) {
		return nil, refuse("malformed")
	}
	if err != nil {
		return nil, refuse("bad_tag")
	}
	var p plaintext
	if err := parsePlaintext(pt, &p); err != nil || len(p.Nonce) != NonceBytes {
		return nil, refuse("malformed")
	}
	now := s.now()
	issued, expires := time.Unix(p.Issued, 0), time.Unix(p.Expires, 0)
	if issued.After(now.Add(s.skew)) {
		return nil, refuse("not_yet_valid")
	}
	if now.After(expires.Add(s.skew)) {
		return nil, refuse("expired")
	}
	digest, err := b.digest()
	if err != nil || !bytes.Equal(digest[:], p.Binding) {
		return nil, refuse("binding_mismatch")
	}
	o := &Opened{Payload: p.Payload, IssuedAt: issued, Expires: expires, ValidUntil: expires.Add(s.skew)}
	copy(o.Nonce[:], p.Nonce)
	return o, nil
}

// digest hashes the binding: each field length-prefixed, then the SHA-256
// of the canonical arguments. Both hashes read one pooled buffer.
func (b Binding) digest() ([sha256.Size]byte, error) {
	bp := digestBuffers.Get().(*[]byte)
	buf, err := appendCanonical((*bp)[:0], b.Arguments)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	argsSum := sha256.Sum256(buf)
	buf = buf[:0]
	for _, f := range [...]string{b.Principal, b.Workspace, b.Audience, b.Version, b.Method, b.Target} {
		buf = binary.AppendUvarint(buf, uint64(len(f)))
		buf = append(buf, f...)
	}
	buf = binary.AppendUvarint(buf, sha256.Size)
	buf = append(buf, argsSum[:]...)
	sum := sha256.Sum256(buf)
	if cap(buf) <= maxPooledDigestBuffer {
		*bp = buf[:0]
		digestBuffers.Put(bp)
	}
	return sum, nil
}

// maxPooledDigestBuffer keeps the buffers of large arguments out of the
// pool, so one big call does not pin its memory.
const maxPooledDigestBuffer = 64 << 10

var digestBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}
