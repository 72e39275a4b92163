package mcp

import (
	"errors"
	"slices"
	"strconv"

	"github.com/mcpdual/mcpdual/internal/schema"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// Changing a Server while it serves (design record 033). NewHandler
// freezes the Server it is given; from then on the registry is a chain
// of snapshots, each a frozen Server of its own. A request reads the
// newest one once, when it starts (Server.current: one atomic load), and
// keeps it to its end, so a call already running finishes on the
// definition it started with and a list never mixes two registries.
// Update builds the next snapshot beside the current one and swaps it in
// whole; items are immutable once registered, so snapshots share the
// ones they have in common.

// Update changes s, all at once or not at all. change gets a staging
// view of s, as Register's add does: the Add* methods add items to it
// (collecting their refusals instead of panicking) and Remove takes items
// out. When change returns, everything it did becomes s's registry in one
// step; if anything was refused — a refusal of an Add*, a name s already
// has and change did not remove, removing what s does not have, a tool's
// MCP Apps view removed while the tool stays — nothing changes and Update
// returns every refusal, joined. Replacing an item is removing it and
// adding it again in the same Update (it then moves to the end of its
// list).
//
// After NewHandler, the next request on any Handler over s reads the new
// registry, and so do the capabilities server/discover and initialize
// announce; with WithChangeNotifications, every Handler over s announces
// the lists that changed to the clients listening. Updates are applied
// one after another; change must not call Update.
//
// A multi round-trip state or a confirmation made for a tool that was
// since removed, or whose definition changed (its input or output schema,
// its route or placement, its annotations, its task routes or support;
// not its title, description or icons), is refused when it comes back,
// and nothing runs. A task id is refused only when its tool was removed,
// is no longer a task, or has another status route or output schema: its
// job is already running, and its client still reads how it ended.
//
// A fleet applies the same Update on every replica: see
// Handler.PublishFleet.
func (s *Server) Update(change func(*Server)) error {
	if change == nil {
		return errors.New("mcp: Update needs a function")
	}
	if s.staged {
		return errors.New("mcp: Update on a staging view: change the Server itself")
	}
	s.updateMu.Lock()
	defer s.updateMu.Unlock()
	// Whatever the outcome: the schemas of the tools removed, and those an
	// Update that was refused compiled, are forgotten.
	defer s.retainSchemas()
	cur := s.current()
	v := s.view(cur)
	v.removed = map[string]bool{}
	change(v)
	v.mu.Lock()
	v.frozen = true // a view kept past change registers nothing more
	errs := v.errs
	v.mu.Unlock()
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	cur.mu.Lock()
	next, err := cur.without(v.removed)
	cur.mu.Unlock()
	if err == nil {
		err = next.merge(v)
	}
	if err != nil {
		return err
	}
	s.mu.Lock()
	if !s.frozen {
		// Before NewHandler s is the registry itself: it takes what next
		// holds, and NewHandler freezes it.
		s.tools, s.byName, s.resources, s.byURI = next.tools, next.byName, next.resources, next.byURI
		s.templates, s.prompts, s.byPrompt = next.templates, next.prompts, next.byPrompt
		s.mu.Unlock()
		return nil
	}
	watchers := s.watchers
	s.mu.Unlock()
	if err := next.freezeErr((*Server).freezeExtensions); err != nil {
		return err
	}
	s.live.Store(next)
	for _, w := range watchers {
		w.f(cur, next)
	}
	return nil
}

// retainSchemas keeps in the schema cache only what the registry as it
// is now serves: the cache lets tools share one compiled schema, and an
// Update that replaces a tool must not leave its old schema there for the
// life of the process. A request still running on an earlier snapshot
// keeps the schemas its tools hold.
func (s *Server) retainSchemas() {
	cur := s.current()
	cur.mu.Lock()
	used := make(map[*schema.Schema]bool, 2*len(cur.tools))
	for _, t := range cur.tools {
		used[t.input] = true
		if t.output != nil {
			used[t.output] = true
		}
	}
	cur.mu.Unlock()
	s.schemas.Retain(func(sc *schema.Schema) bool { return used[sc] })
}

// Remove takes the item of kind named name out of the staging view
// Update's function is given: kind is auth.KindTool or auth.KindPrompt
// (name is its name), auth.KindResource (its URI) or auth.KindTemplate
// (its URI template). A tool's generated status tool (WithTask) goes with
// the tool, and cannot be removed on its own. Removing what the server
// does not have is refused. Remove anywhere but on Update's view is a
// refusal too: Register collects it, and on the Server itself Remove
// panics.
func (s *Server) Remove(kind, name string) {
	s.done(s.remove(kind, name))
}

func (s *Server) remove(kind, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.removed == nil || s.frozen {
		return errors.New("mcp: Remove " + kind + " " + name + ": only on the view Server.Update gives its function")
	}
	p := s.parent
	p.mu.Lock()
	var found bool
	switch kind {
	case auth.KindTool:
		t := p.byName[name]
		if t != nil && t.statusOf != nil {
			p.mu.Unlock()
			return errors.New("mcp: Remove tool " + name + ": it is the status tool of " + t.statusOf.def.Name + ", which takes it along")
		}
		found = t != nil
	case auth.KindPrompt:
		found = p.byPrompt[name] != nil
	case auth.KindResource:
		found = p.byURI[name] != nil
	case auth.KindTemplate:
		found = p.hasTemplate(name)
	default:
		p.mu.Unlock()
		return errors.New("mcp: Remove: unknown kind " + strconv.Quote(kind))
	}
	p.mu.Unlock()
	key := kind + "\x00" + name
	if !found || s.removed[key] {
		return errors.New("mcp: Remove " + kind + " " + name + ": the server has no such item")
	}
	s.removed[key] = true
	if kind == auth.KindTool {
		p.mu.Lock()
		if t := p.byName[name]; t != nil && t.opts.task != nil && t.opts.task.statusTool != "" {
			// Its status tool goes with it, so that the name is free for
			// the tool's replacement, or for another.
			s.removed[kind+"\x00"+t.opts.task.statusTool] = true
		}
		p.mu.Unlock()
	}
	return nil
}

// current is the snapshot a request reads: the newest one Update made,
// or s itself until then.
func (s *Server) current() *Server {
	if p := s.live.Load(); p != nil {
		return p
	}
	return s
}

// watch calls f with the former and the new snapshot after every Update
// that changes s once it serves, until unwatch is called (an Update
// already under way may still call it once).
func (s *Server) watch(f func(old, new *Server)) (unwatch func()) {
	w := &watcher{f}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchers = append(s.watchers, w)
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		// A new slice: an Update calls the watchers it copied outside
		// the lock.
		s.watchers = slices.DeleteFunc(slices.Clone(s.watchers), func(x *watcher) bool { return x == w })
	}
}

// view is an empty staging view of s whose name checks also consult
// parent.
func (s *Server) view(parent *Server) *Server {
	return &Server{identity: s.identity, instructions: s.instructions, pageSize: s.pageSize,
		schemas: s.schemas, byName: map[string]*tool{}, byURI: map[string]*resource{},
		byPrompt: map[string]*prompt{}, staged: true, parent: parent}
}

// without is an unfrozen copy of s's registry less the items removed
// names (keys as Server.remove writes them), with a tool's status tool
// gone with the tool. s.mu is held.
func (s *Server) without(removed map[string]bool) (*Server, error) {
	n := &Server{identity: s.identity, instructions: s.instructions, pageSize: s.pageSize, schemas: s.schemas,
		byName: make(map[string]*tool, len(s.byName)), byURI: make(map[string]*resource, len(s.byURI)),
		byPrompt: make(map[string]*prompt, len(s.byPrompt))}
	gone := func(kind, name string) bool { return removed[kind+"\x00"+name] }
	for _, t := range s.tools {
		if gone(auth.KindTool, t.def.Name) || (t.statusOf != nil && gone(auth.KindTool, t.statusOf.def.Name)) {
			continue
		}
		n.tools = append(n.tools, t)
		n.byName[t.def.Name] = t
	}
	for _, r := range s.resources {
		if !gone(auth.KindResource, r.def.URI) {
			n.resources = append(n.resources, r)
			n.byURI[r.def.URI] = r
		}
	}
	for _, t := range s.templates {
		if !gone(auth.KindTemplate, t.def.URITemplate) {
			n.templates = append(n.templates, t)
		}
	}
	for _, p := range s.prompts {
		if !gone(auth.KindPrompt, p.def.Name) {
			n.prompts = append(n.prompts, p)
			n.byPrompt[p.def.Name] = p
		}
	}
	return n, nil
}

// merge adds what the staging view v registered to n, refusing a name n
// already has.
func (n *Server) merge(v *Server) error {
	var errs []error
	for _, t := range v.tools {
		if n.byName[t.def.Name] != nil {
			errs = append(errs, errors.New("mcp: tool "+t.def.Name+" registered twice"))
		}
	}
	for _, r := range v.resources {
		if n.byURI[r.def.URI] != nil {
			errs = append(errs, errors.New("mcp: resource "+r.def.URI+" registered twice"))
		}
	}
	for _, t := range v.templates {
		if n.hasTemplate(t.def.URITemplate) {
			errs = append(errs, errors.New("mcp: resource template "+t.def.URITemplate+" registered twice"))
		}
	}
	for _, p := range v.prompts {
		if n.byPrompt[p.def.Name] != nil {
			errs = append(errs, errors.New("mcp: prompt "+p.def.Name+" registered twice"))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, t := range v.tools {
		n.tools = append(n.tools, t)
		n.byName[t.def.Name] = t
	}
	for _, r := range v.resources {
		n.resources = append(n.resources, r)
		n.byURI[r.def.URI] = r
	}
	n.templates = append(n.templates, v.templates...)
	for _, p := range v.prompts {
		n.prompts = append(n.prompts, p)
		n.byPrompt[p.def.Name] = p
	}
	return nil
}

// taskToolChanged refuses a task whose tool's status route or output
// schema changed since it started: its job cannot be read as it was.
func taskToolChanged(name string) *Error {
	return NewError(CodeInvalidParams, "The tool "+name+" changed since this task started: its job can no longer be read through this server").
		WithData(map[string]string{"reason": "tool_changed"})
}

// toolChanged refuses a state made for an earlier definition of the tool
// it names.
func toolChanged(name string) *Error {
	return NewError(CodeInvalidParams, "The tool "+name+" changed since this request's state was made: call it again from the start").
		WithData(map[string]string{"reason": "tool_changed"})
}

// viewOf returns the view of snap, made once per snapshot: a request
// compares one pointer, and only the first request after an Update
// builds the next view (two at once both may; either is right).
func (h *Handler) viewOf(snap *Server) *seam.Server {
	if v := h.view.Load(); v != nil && v.snap == snap {
		return &v.info
	}
	v := &serverView{snap: snap, info: seam.Server{Supported: h.supported, Capabilities: snap.caps | h.extraCaps,
		Instructions: snap.instructions, Info: map[string][]byte{}}}
	for ver, rev := range h.byVersion {
		v.info.Info[string(ver)] = snap.infoJSON[rev.f.shape]
	}
	if a := h.cfg.auth; a != nil {
		v.info.Personal = 1
		if a.HasWorkspaces() && a.Filters() {
			v.info.Personal = 2
		}
	}
	if snap.hidesPerCaller && v.info.Personal == 0 {
		// Which tools are listed depends on the caller (MCP Apps: its
		// declared capabilities): no list may be shared between callers.
		v.info.Personal = 1
	}
	h.view.Store(v)
	return &v.info
}
