package seam

import (
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/mrtr"
)

// Capability is a server capability a method needs: without it the
// method does not exist for the client (-32601).
type Capability uint16

// Server capabilities.
const (
	CapTools Capability = 1 << iota
	CapResources
	CapPrompts
	CapCompletions
	CapTasks
	// CapUI: a tool has an MCP Apps view or visibility (the
	// io.modelcontextprotocol/ui extension, announced, never a method's
	// gate).
	CapUI
	// CapListChanged: the endpoint tells clients that a list changed
	// (2026-07-28: on subscriptions/listen; 2025: on a session's GET
	// stream), and CapSubscribe that a subscribed resource was updated;
	// CapLogging: a 2025 session sets its log level (logging/setLevel).
	// Announced with the list or resources they concern; a 2025 era
	// announces them only when it issues sessions.
	CapListChanged
	CapSubscribe
	CapLogging
)

// Method is what an era needs to know about the method of a request: the
// part of its row in the core's method table that the eras read. Which
// revisions have it is the eras' to say (Profile.Methods).
type Method struct {
	// InputRequired: the method may answer input_required, so a
	// requestState may come back on it (2026-07-28).
	InputRequired bool
	// Cacheable: a 2026-07-28 result carries ttlMs and cacheScope. A
	// cacheable result the core builds (a list, a resource read) depends
	// on who asks: it is filtered by scopes and the permission rule (see
	// Server.Personal).
	Cacheable bool
	// Member is the params member Mcp-Name mirrors ("name", "uri"), "" when
	// the method has no routing target.
	Member string
	// Arguments: Mcp-Param-* headers mirror the target's arguments, as its
	// x-mcp-header annotations declare (tools/call).
	Arguments bool
	// Task: the method acts on a task its params.taskId names
	// (tasks/get, tasks/update, tasks/cancel); the era opens the id.
	Task bool
	// Negotiates: the method negotiates the revision in its body
	// (initialize and its notification), so a header naming a revision
	// the server does not know must not stop it, nor a stale session id.
	Negotiates bool
}

// Profile is one revision as data: what its wire allows, which methods it
// has, how its errors map to HTTP. The core reads it and branches on it;
// it never asks which era or which revision a request is in.
type Profile struct {
	Version string
	// What the server's definitions and results may carry.
	Titles            bool // "title" on tools, prompts, resources and Implementation
	OutputSchema      bool // "outputSchema" on tools, "structuredContent" on results
	ResourceLinks     bool // "resource_link" content blocks
	Icons             bool // "icons"; description and websiteUrl on Implementation
	CompletionContext bool // completion/complete carries the other arguments
	// What a client of this revision can be asked for: a capability the
	// revision does not define is not taken as declared, whatever the
	// client sent (URL-mode elicitation, multi-selects and tool-enabled
	// sampling arrived in 2025-11-25). 2025-03-26 defines no elicitation;
	// its era still asks a client that declares it, as 2025-06-18 does.
	Elicitation    bool // elicitation/create, form mode
	URLElicitation bool // elicitation/create, URL mode
	SamplingTools  bool // sampling/createMessage with tools
	MultiSelect    bool // a form property that is an array (a multi-select)
	// Envelope: a request names this revision, its client capabilities and
	// its log level in params._meta, with no handshake; a request that
	// names it only in MCP-Protocol-Version is refused.
	Envelope bool
	// InputRequests: the server may answer input_required and read the
	// answers of a retry (elicitation, confirmations), and refuse a call
	// for a client capability it lacks (-32021) rather than answer it with
	// a result that says so; a tool call may also become a task.
	InputRequests bool
	// StateRoom is the largest plaintext (InputRequired.State), in bytes,
	// the era seals into a requestState; 0 when it seals none. The core
	// refuses a larger one as the handler's bug, naming what makes it
	// large, where the era could only fail to seal it.
	StateRoom int
	// SealsTasks: the era seals and opens task ids in this revision for
	// a client without the tasks extension too, as the job reference a
	// task's status tool reads (task.Config.StatusTool); without it such
	// tools are not served.
	SealsTasks bool
	// Sessions: the era issues sealed sessions in this revision
	// (era2025.WithSessions), on which the 2025 push (a session's GET
	// stream, resources/subscribe, logging/setLevel) rests.
	Sessions bool
	// ResourceNotFound is the code of an unknown resource.
	ResourceNotFound int
	// Statuses maps an in-band error code to its HTTP status (200 when
	// absent).
	Statuses map[int]int
	// Methods names the rows of the method table the revision has.
	Methods []string
}

// Clone is p with a map and slice of its own. An era's Profiles returns
// clones, and the core keeps one: the era's own profile is shared by
// every handler built over that era, and what Profiles hands out may be
// written to by whoever called it, another module included.
func (p Profile) Clone() Profile {
	p.Statuses = maps.Clone(p.Statuses)
	p.Methods = slices.Clone(p.Methods)
	return p
}

// Binding is what a sealed state belongs to: mrtr's, which seals it.
type Binding = mrtr.Binding

// Server is what the core tells every era about the endpoint, made once
// when the handler is built.
type Server struct {
	// Supported lists every revision the endpoint serves, newest first.
	Supported []string
	// Capabilities are the server's; Instructions its instructions.
	Capabilities Capability
	Instructions string
	// Info is the server's Implementation object in the shape of each
	// revision served.
	Info map[string][]byte
	// Personal says what the results the core builds depend on: 0
	// nothing but the request, 1 also the caller (who may see what), 2
	// the caller and the workspace the request names.
	Personal int
}

// Request is the request the core hands an era: data the core fills in,
// and Core, for what only the core can work out or take. An era writes
// nothing into it: what a hook finds out it returns (Envelope the client's
// capabilities, Serve what it negotiated). Byte slices alias the request
// body and are valid only while the request is served.
type Request struct {
	HTTP *http.Request
	// Name is the JSON-RPC method; Method what the eras read of its table
	// row (nil for a method the revision does not have: the core refuses
	// it after Envelope).
	Name   string
	Method *Method
	// Params is the raw params object (nil when absent).
	Params []byte
	// Version is the revision in use (an era that negotiates another,
	// initialize, returns it in Negotiated).
	Version string
	// Local: a message that did not come over HTTP (stdio), with no
	// headers to cross-check against its body.
	Local  bool
	Server *Server
	Core   Core
	// TaskID is the job reference a call of a task's status tool carries
	// (its taskId argument), set by the core before Open: the era opens
	// it as it opens a tasks/* request's params.taskId, and hands it over
	// by SetTask, with the same refusal.
	TaskID string

	params jsonrpc.Index // params' top-level members, indexed once
	meta   jsonrpc.Index // the same for params._meta
}

// Core is what only the core can work out, or take, for an era.
type Core interface {
	// Binding says whom and what a sealed state of this request belongs
	// to; it resolves the workspace, which may fail. For a task id (task)
	// it names the caller and the server, not the method: the id is made
	// by tools/call and read by tasks/*.
	Binding(task bool) (Binding, error)
	// HeaderParams are the Mcp-Param-* headers tool declares; ok is false
	// for a tool the caller cannot see.
	HeaderParams(tool string) (params []headers.Param, ok bool)
	// SetRound hands the core an opened and verified requestState (nil:
	// the request carried none) and the request's inputResponses (nil:
	// none), which the core checks.
	SetRound(state, nonce []byte, until time.Time, responses []byte) error
	// SetTask hands the core the opened payload of a task id.
	SetTask(payload []byte) error
	// Log writes to the endpoint's log with the request's context.
	Log(level slog.Level, msg string, args ...any)
	// SessionBinding is what a sealed 2025 session belongs to: the caller
	// and the server, whatever the workspace, method or revision.
	SessionBinding() Binding
}

// Param returns the raw value of params member name, matched exactly
// (never case-insensitively). The members are indexed on first use, so a
// request's many lookups scan params once.
func (r *Request) Param(name string) ([]byte, bool) { return r.params.Build(r.Params).Lookup(name) }

// MetaParam returns the raw value of params._meta member name, matched
// exactly; _meta's members are indexed once too.
func (r *Request) MetaParam(name string) ([]byte, bool) { return r.metaIndex().Lookup(name) }

// CaseVariant reports a member of params (or of params._meta) whose name
// differs from one of known only in letter case.
func (r *Request) CaseVariant(inMeta bool, known []string) (got, want string, found bool) {
	if inMeta {
		return r.metaIndex().CaseVariant(known)
	}
	return r.params.Build(r.Params).CaseVariant(known)
}

func (r *Request) metaIndex() *jsonrpc.Index {
	if meta := &r.meta; !meta.Done() {
		v, _ := r.Param("_meta")
		meta.Build(v)
	}
	return &r.meta
}

// Parse parses body, strictly, into m and sets Params: the parse indexes
// params and params._meta as it scans, so that Param and MetaParam walk
// no byte of them again. A refused body leaves no index behind: what the
// scan indexed before it failed would answer lookups with a refused
// body's members.
func (r *Request) Parse(body []byte, maxDepth int, m *jsonrpc.Message) *jsonrpc.Error {
	if err := jsonrpc.ParseIndexed(body, maxDepth, m, &r.params, "_meta", &r.meta); err != nil {
		r.params, r.meta = jsonrpc.Index{}, jsonrpc.Index{}
		return err
	}
	r.Params = m.Params
	return nil
}

// Stamp holds the members revision 2026-07-28 adds to every result. The
// 2025 eras leave it zero, so nothing of it reaches their wire.
type Stamp struct {
	ResultType string
	// TTLMs and CacheScope go together: ttlMs is sent when CacheScope is
	// set.
	TTLMs      int64
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
	// StatusTool, when set, is the task's status tool: the client did
	// not declare the extension, so the answer is a tool result naming
	// the job reference (TaskID) and the tool to follow it with, in its
	// text and, with Structured, in structuredContent.
	StatusTool string
	Structured bool
}

// Stamp implements Result.
func (r *TaskCreated) Stamp() *Stamp { return &r.stamp }

// AppendJSON implements Result.
func (r *TaskCreated) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	if r.StatusTool != "" {
		return r.appendFollow(Comma(dst, comma))
	}
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
// to answer it with, 0 for an in-band error (whose status the revision's
// Profile.Statuses decides). The core turns it into its public error type.
type Failure struct {
	Code    int
	Message string
	Data    any
	Status  int
}

func (f *Failure) Error() string { return f.Message }

// Era is what an era plugs into the core: its revisions as data and the
// hooks of its validation ladder. The eras implement it with unexported
// types, and the core holds it as an interface value: no one can replace a
// hook of an era it was given. Nor can a package outside this module
// implement it: a generic type can match every hook's signature without
// naming this package's types (its type parameters inferred from a real
// era's method values), but not mark, an unexported method of this
// package, which a type only has by embedding Mark, and only a package
// that can import this one can name Mark.
type Era interface {
	// mark is Mark's: it closes the interface to other modules.
	mark()
	// Profiles lists the revisions served, newest first: copies, the
	// caller's to keep.
	Profiles() []Profile
	// Default is the revision assumed for a request that names none ("":
	// such a request is refused).
	Default() string
	// Warnings are what the handler logs, each once at Warn level, when it
	// is built: a configuration that serves one process but breaks a
	// fleet. The era words them; the core only logs them.
	Warnings() []string
	// Names is the era's part of era selection: the revision the
	// request's body names, when the era's revisions carry it in an
	// envelope (2026-07-28: params._meta's protocolVersion); named is
	// false when the body names none. An error refuses a body that names
	// one badly, or a request whose MCP-Protocol-Version does not repeat
	// it (missing, unless Local; different): the body decides, the header
	// cross-checks. The core asks every era, after refusing a duplicated
	// header, and then checks the revision is served.
	Names(r *Request) (version string, named bool, err error)
	// Unnamed refuses a request whose MCP-Protocol-Version names version,
	// one of the era's revisions with an envelope, while its body names
	// none: such a revision is never served on the header alone.
	Unnamed(version string) error
	// Envelope checks what the era requires of every request before the
	// method is looked up (2026-07-28: _meta, Mcp-Method), and returns
	// what the request declares: its client capabilities (2026-07-28: its
	// _meta; 2025: its sealed session) and the session it is in.
	Envelope(r *Request) (Declared, error)
	// Target checks the routing headers once the method is known
	// (2026-07-28: Mcp-Name, Mcp-Param-*).
	Target(r *Request) error
	// Open verifies state carried by the request (2026-07-28:
	// requestState, task ids) and hands it to the core through
	// r.Core.SetRound and r.Core.SetTask.
	Open(r *Request) error
	// Serve answers the methods whose row says Era, and what the answer
	// settles (initialize: the revision, a sealed session).
	Serve(r *Request) (Result, Negotiated, error)
	// Finish stamps a result, and seals an InputRequired or TaskCreated
	// one.
	Finish(r *Request, res Result) (Result, error)
}

// Declared is what a request declares, as its era's Envelope found it.
type Declared struct {
	// ClientCapabilities: nil when the request declares none.
	ClientCapabilities []byte
	// Session is the sealed Mcp-Session-Id the era opened for this
	// request ("": none), valid until SessionUntil: the last instant it
	// opens (its expiry plus the sealer's skew).
	Session      string
	SessionUntil time.Time
	// Version is the revision the session negotiated, when the request
	// named none (2025-03-26 sends no MCP-Protocol-Version): the core
	// serves the request in it. "": the request's own.
	Version string
}

// Negotiated is what a method an era answers settles for the exchange.
type Negotiated struct {
	// Version is the revision negotiated ("": the request's own).
	Version string
	// SessionID is a sealed Mcp-Session-Id to send with the answer ("":
	// none).
	SessionID string
}

// Mark is embedded by each era's hooks type to give it Era's unexported
// method. It must not be embedded in an era's exported type: a type of
// another module could then embed that type, inherit mark, and supply the
// other hooks itself.
type Mark struct{}

//lint:ignore U1000 never called: having it is what closes seam.Era to types outside this module.
func (Mark) mark() {}

// The params._meta keys of revision 2026-07-28.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// The codes eras report.
const (
	CodeInvalidParams                     = -32602
	CodeMethodNotFound                    = -32601
	CodeMissingRequiredClientCapabilities = -32021
)

const codeHeaderMismatch = -32020

// HeaderMismatch refuses a request whose header disagrees with its body,
// or is missing, duplicated or badly encoded (400). reason is a stable key
// ("missing", "mismatch", "duplicate", "invalid_chars", "bad_encoding");
// detail must not quote client values. The core's MCP-Protocol-Version
// checks and an era's routing-header checks build it alike.
func HeaderMismatch(header, reason, detail string) *Failure {
	return &Failure{Code: codeHeaderMismatch, Message: "Header mismatch: " + detail, Status: http.StatusBadRequest,
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

// UnknownTask is the one answer to a task id (or a status tool's job
// reference) that does not open, or opens to a task the caller may no
// longer use, whatever the reason (which goes to the log only). It is
// in-band, like an unknown tool: the request was understood.
func UnknownTask() *Failure {
	return &Failure{Code: CodeInvalidParams, Message: "Unknown task", Data: map[string]string{"reason": "unknown_task"}}
}

// LogLevels orders MCP's log levels, from least to most severe. The core
// filters a request's log notifications by them; an era checks the level
// a request names.
var LogLevels = map[string]int{
	"debug": 0, "info": 1, "notice": 2, "warning": 3,
	"error": 4, "critical": 5, "alert": 6, "emergency": 7,
}
