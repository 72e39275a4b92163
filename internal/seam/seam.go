package seam

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpdual/mcpdual/headers"
)

// Capability is a server capability a method needs: without it the
// method does not exist for the client (-32601).
type Capability uint8

// Server capabilities.
const (
	CapTools Capability = 1 << iota
	CapResources
	CapPrompts
	CapCompletions
	CapTasks
)

// Method is one row of the method table: everything the pipeline needs
// to know about a method, in one place.
type Method struct {
	Name string
	// Since and Until bound the revisions that have the method:
	// Since <= v < Until, "" meaning unbounded. Revisions are dates, so
	// they compare as strings.
	Since, Until string
	// Capability is the server capability the method needs (0: none).
	Capability Capability
	// InputRequired: the method may answer input_required, so a
	// requestState may come back on it (2026-07-28).
	InputRequired bool
	// Cacheable: a 2026-07-28 result carries ttlMs and cacheScope.
	Cacheable bool
	// PerCaller: the result depends on who asks (it is filtered by scopes
	// and the permission rule), so it is never cached publicly.
	PerCaller bool
	// Member is the params member Mcp-Name mirrors ("name", "uri"), "" when
	// the method has no routing target.
	Member string
	// Arguments: Mcp-Param-* headers mirror the target's arguments, as its
	// x-mcp-header annotations declare (tools/call).
	Arguments bool
	// Era: the era answers the method (Era.Serve), not the core.
	Era bool
	// Negotiates: the method negotiates the revision in its body
	// (initialize and its notification), so a header naming a revision the
	// server does not know must not stop it.
	Negotiates bool
	// OwnBudget: the method draws from a rate budget of its own, so that
	// spending every other request never breaks it (server/discover).
	OwnBudget bool
	// Task: the method acts on a task its params.taskId names
	// (tasks/get, tasks/update, tasks/cancel). The client must have
	// declared the tasks extension; the era opens the id.
	Task bool
}

// Has reports whether revision v has the method.
func (m *Method) Has(v string) bool {
	return (m.Since == "" || v >= m.Since) && (m.Until == "" || v < m.Until)
}

// Binding is what a sealed state belongs to; see package mrtr.
type Binding struct {
	Principal, Workspace, Audience, Version, Method, Target string
	Arguments                                               []byte
}

// Request is the request the core hands an era. Byte slices alias the
// request body and are valid only while the request is served.
type Request interface {
	HTTP() *http.Request
	// Name is the JSON-RPC method; Method its table row (nil until the
	// method is looked up, and for an unknown method).
	Name() string
	Method() *Method
	// Params and Meta are the raw params object and params._meta (nil
	// when absent); Param looks up one member of params, exactly.
	Params() []byte
	Meta() []byte
	Param(name string) ([]byte, bool)
	// MetaParam looks up one member of params._meta, exactly.
	MetaParam(name string) ([]byte, bool)
	// CaseVariant reports a member of params (or of params._meta) whose
	// name differs from one of known only in letter case.
	CaseVariant(inMeta bool, known []string) (got, want string, found bool)
	// Version is the revision in use; Negotiate changes it (initialize).
	Version() string
	Negotiate(v string)
	// Supported lists every revision the endpoint serves, newest first.
	Supported() []string
	// SetClientCapabilities records the clientCapabilities of the request.
	SetClientCapabilities(raw []byte)
	// Capabilities are the server's; Instructions its instructions.
	Capabilities() Capability
	Instructions() string
	// ServerInfo is the server's Implementation object in the shape of
	// revision v.
	ServerInfo(v string) []byte
	// HeaderParams are the Mcp-Param-* headers tool declares; ok is false
	// for a tool the caller cannot see.
	HeaderParams(tool string) (params []headers.Param, ok bool)
	// Binding says whom and what a sealed state of this request belongs
	// to; it resolves the workspace, which may fail.
	Binding() (Binding, error)
	// SetRound hands the core an opened requestState; SetAnswers the
	// inputResponses of a request without one.
	SetRound(state, nonce []byte, until time.Time, responses []byte) error
	SetAnswers(responses []byte) error
	// Personalized: lists depend on the caller, and also on the workspace.
	Personalized() (byCaller, byWorkspace bool)
	// Log writes to the endpoint's log with the request's context.
	Log(level slog.Level, msg string, args ...any)
	// Local reports a message that did not come over HTTP (stdio): it
	// has no headers to cross-check against its body.
	Local() bool
	// TaskBinding says whom and what a task id belongs to: the caller and
	// the server, not the method (the id is made by tools/call and read
	// by tasks/*); the task's target is inside its sealed payload.
	TaskBinding() (Binding, error)
	// SetTask hands the core the opened payload of a task id (which holds
	// its own creation time, to the millisecond).
	SetTask(payload []byte) error
}

// Stamp holds the members revision 2026-07-28 adds to every result. The
// 2025 eras leave it zero, so nothing of it reaches their wire.
type Stamp struct {
	ResultType string
	TTL        bool  // ttlMs is sent
	TTLMs      int64 // with TTL
	CacheScope string
	Meta       []byte // the result's _meta object, or nil
}

// Result is a result the core built; the era stamps it and the core
// encodes it.
type Result interface {
	Stamp() *Stamp
	// AppendJSON appends the result object, stamp first.
	AppendJSON(dst []byte) []byte
}

// InputRequired is the interim result of a request that needs input from
// the client first: the era seals State into RequestState.
type InputRequired struct {
	stamp        Stamp
	Requests     []byte // the inputRequests object, or nil
	State        []byte // plaintext for the era to seal
	RequestState string
}

// Stamp implements Result.
func (r *InputRequired) Stamp() *Stamp { return &r.stamp }

// AppendJSON implements Result.
func (r *InputRequired) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	if r.Requests != nil {
		dst = Comma(dst, comma)
		dst = append(dst, `"inputRequests":`...)
		dst = append(dst, r.Requests...)
		comma = true
	}
	if r.RequestState != "" {
		dst = Comma(dst, comma)
		dst = append(dst, `"requestState":`...)
		dst = AppendString(dst, r.RequestState)
	}
	return append(dst, '}')
}

// TaskCreated is the answer of a call that became a task: the era seals
// Payload into TaskID for TTL and stamps resultType "task". It renders
// the flat CreateTaskResult.
type TaskCreated struct {
	stamp        Stamp
	Payload      []byte // plaintext for the era to seal
	TTL          time.Duration
	PollInterval time.Duration
	Status       string
	Message      string // statusMessage, "" for none
	Created      time.Time
	TaskID       string
}

// Stamp implements Result.
func (r *TaskCreated) Stamp() *Stamp { return &r.stamp }

// AppendJSON implements Result.
func (r *TaskCreated) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	dst = Comma(dst, comma)
	dst = AppendTask(dst, r.TaskID, r.Status, r.Message, r.Created, r.Created, r.TTL, r.PollInterval)
	return append(dst, '}')
}

// AppendTask appends the members of a Task object.
func AppendTask(dst []byte, id, status, message string, created, updated time.Time, ttl, poll time.Duration) []byte {
	dst = append(dst, `"taskId":`...)
	dst = AppendString(dst, id)
	dst = append(dst, `,"status":`...)
	dst = AppendString(dst, status)
	if message != "" {
		dst = append(dst, `,"statusMessage":`...)
		dst = AppendString(dst, message)
	}
	dst = append(dst, `,"createdAt":"`...)
	dst = created.UTC().AppendFormat(dst, "2006-01-02T15:04:05.000Z")
	dst = append(dst, `","lastUpdatedAt":"`...)
	dst = updated.UTC().AppendFormat(dst, "2006-01-02T15:04:05.000Z")
	dst = append(dst, `","ttlMs":`...)
	dst = strconv.AppendInt(dst, ttl.Milliseconds(), 10)
	if poll > 0 {
		dst = append(dst, `,"pollIntervalMs":`...)
		dst = strconv.AppendInt(dst, poll.Milliseconds(), 10)
	}
	return dst
}

// Failure is an error an era reports: a JSON-RPC error and the HTTP status
// to answer it with, 0 for an in-band error (whose status the era's Status
// hook decides). The core turns it into its public error type.
type Failure struct {
	Code    int
	Message string
	Data    any
	Status  int
}

func (f *Failure) Error() string { return f.Message }

// Era is what an era plugs into the core. Every hook may be nil.
type Era struct {
	// Versions lists the revisions served, newest first.
	Versions []string
	// PerRequest: a request names its revision in params._meta
	// (2026-07-28) rather than negotiating it with initialize.
	PerRequest bool
	// Default is the revision assumed for a request that names none ("":
	// such a request is refused).
	Default string
	// Envelope checks what the era requires of every request before the
	// method is looked up (2026-07-28: _meta, Mcp-Method).
	Envelope func(r Request) error
	// Target checks the routing headers once the method is known
	// (2026-07-28: Mcp-Name, Mcp-Param-*).
	Target func(r Request) error
	// Open verifies and hands over state carried by the request
	// (2026-07-28: requestState).
	Open func(r Request) error
	// Serve answers the methods whose row says Era.
	Serve func(r Request) (Result, error)
	// Finish stamps a result, and seals an InputRequired one.
	Finish func(r Request, res Result) (Result, error)
	// Status is the HTTP status of an in-band JSON-RPC error with code
	// (nil: 200, as the handshake revisions want).
	Status func(code int) int
	// Warnings are what the handler logs, each once at Warn level, when it
	// is built: a configuration that serves one process but breaks a
	// fleet (2026-07-28: requestState sealed with a key of this process
	// only). The era words them; the core only logs them.
	Warnings []string
}

// The params._meta keys of revision 2026-07-28.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// The codes eras report.
const (
	CodeInvalidParams                     = -32602
	CodeMethodNotFound                    = -32601
	CodeHeaderMismatch                    = -32020
	CodeMissingRequiredClientCapabilities = -32021
)

// HeaderMismatch refuses a request whose header disagrees with its body,
// or is missing, duplicated or badly encoded (400). reason is a stable key
// ("missing", "mismatch", "duplicate", "invalid_chars", "bad_encoding");
// detail must not quote client values. The core's MCP-Protocol-Version
// checks and an era's routing-header checks build it alike.
func HeaderMismatch(header, reason, detail string) *Failure {
	return &Failure{Code: CodeHeaderMismatch, Message: "Header mismatch: " + detail, Status: http.StatusBadRequest,
		Data: map[string]string{"header": header, "reason": reason}}
}

// InvalidParams refuses a request before dispatch (400).
func InvalidParams(message string, data any) *Failure {
	return &Failure{Code: CodeInvalidParams, Message: message, Data: data, Status: http.StatusBadRequest}
}

// InvalidState is the one answer to a requestState that fails
// verification, whatever the reason (which goes to the log only). It is
// in-band: the request was understood.
func InvalidState() *Failure {
	return &Failure{Code: CodeInvalidParams, Message: "Invalid or expired requestState",
		Data: map[string]string{"reason": "invalid_request_state"}}
}

// LogLevels orders MCP's log levels, from least to most severe. The core
// filters a request's log notifications by them; an era checks the level
// a request names.
var LogLevels = map[string]int{
	"debug": 0, "info": 1, "notice": 2, "warning": 3,
	"error": 4, "critical": 5, "alert": 6, "emergency": 7,
}
