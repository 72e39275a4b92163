package mcp

import "github.com/mcpdual/mcpdual/internal/seam"

// methodRow is one row of the method table: what the pipeline must know
// about a method, and the core's handler for it (nil for the methods an
// era answers).
type methodRow struct {
	seam.Method
	serve func(s *Server, r *request) (seam.Result, error)
}

// methodTable is every method the endpoint knows, in one place. Adding a
// method is one row here plus its handler, and its name in the profile of
// each revision that has it (the eras' data); the eras read the row (its
// routing member, whether it may answer input_required, whether it is
// cacheable) and never match method names themselves.
var methodTable = []*methodRow{
	{Method: seam.Method{Name: "initialize", Era: true, Negotiates: true}},
	{Method: seam.Method{Name: "notifications/initialized", Negotiates: true}},
	{Method: seam.Method{Name: "ping"}, serve: (*Server).ping},
	{Method: seam.Method{Name: "server/discover", Era: true, Cacheable: true, OwnBudget: true}},
	{Method: seam.Method{Name: "tools/list", Capability: seam.CapTools, Cacheable: true, PerCaller: true}, serve: (*Server).listTools},
	{Method: seam.Method{Name: "tools/call", Capability: seam.CapTools, InputRequired: true, Member: "name", Arguments: true}, serve: (*Server).callTool},
	{Method: seam.Method{Name: "resources/list", Capability: seam.CapResources, Cacheable: true, PerCaller: true}, serve: (*Server).listResources},
	{Method: seam.Method{Name: "resources/templates/list", Capability: seam.CapResources, Cacheable: true, PerCaller: true}, serve: (*Server).listTemplates},
	{Method: seam.Method{Name: "resources/read", Capability: seam.CapResources, InputRequired: true, Cacheable: true, PerCaller: true, Member: "uri"}, serve: (*Server).readResource},
	{Method: seam.Method{Name: "prompts/list", Capability: seam.CapPrompts, Cacheable: true, PerCaller: true}, serve: (*Server).listPrompts},
	{Method: seam.Method{Name: "prompts/get", Capability: seam.CapPrompts, InputRequired: true, Member: "name"}, serve: (*Server).getPrompt},
	{Method: seam.Method{Name: "completion/complete", Capability: seam.CapCompletions}, serve: (*Server).complete},
	{Method: seam.Method{Name: "tasks/get", Capability: seam.CapTasks, Member: "taskId", Task: true}, serve: (*Server).getTask},
	{Method: seam.Method{Name: "tasks/update", Capability: seam.CapTasks, Member: "taskId", Task: true}, serve: (*Server).updateTask},
	{Method: seam.Method{Name: "tasks/cancel", Capability: seam.CapTasks, Member: "taskId", Task: true}, serve: (*Server).cancelTask},
}

// methodsByName indexes methodTable.
var methodsByName = func() map[string]*methodRow {
	m := make(map[string]*methodRow, len(methodTable))
	for _, row := range methodTable {
		m[row.Name] = row
	}
	return m
}()

// lookup returns the row of method as the request's revision and the
// server's capabilities have it, or nil: a method the revision does not
// have, or behind a capability the server does not advertise, does not
// exist for the client.
func (h *Handler) lookup(method string, rev *revision) *methodRow {
	row := rev.methods[method]
	if row == nil || (row.Capability != 0 && h.server.caps&row.Capability == 0) {
		return nil
	}
	return row
}

// dispatch runs one request through the era's hooks and the method's
// handler, in the order revision 2026-07-28's validation ladder wants:
// envelope, method lookup, routing headers, carried state, the method,
// then the result's stamp.
func (h *Handler) dispatch(req *request) (seam.Result, error) {
	e, sr := req.rev.era, &req.Request
	if err := e.Envelope(sr); err != nil {
		return nil, err
	}
	if sr.ClientCapabilities != nil {
		req.capBits = capabilitiesOf(sr.ClientCapabilities)
	}
	row := h.lookup(req.msg.Method, req.rev)
	if row == nil {
		return nil, methodNotFound(req.msg.Method)
	}
	req.row, sr.Method = row, &row.Method
	if err := e.Target(sr); err != nil {
		return nil, err
	}
	if row.Task && req.capBits&capTasks == 0 {
		// Before the id is opened: a client without the extension learns
		// what it lacks, not that its id is unknown.
		return nil, missingTasksExtension()
	}
	if err := e.Open(sr); err != nil {
		return nil, err
	}
	if err := req.opened(); err != nil {
		return nil, err
	}
	var res seam.Result
	var err error
	switch {
	case row.Era:
		res, err = e.Serve(sr)
		req.setVersion(Version(sr.Version)) // initialize negotiates it
	case row.serve != nil:
		res, err = row.serve(h.server, req)
	default:
		return nil, methodNotFound(req.msg.Method)
	}
	if err != nil {
		return nil, err
	}
	return e.Finish(sr, res)
}
