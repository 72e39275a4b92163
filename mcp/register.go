package mcp

import "errors"

// Register calls add with a staging view of s and registers, all at once,
// everything add registered on it, or, if any of its registrations was
// refused, nothing: s is then left as it was and Register returns every
// refusal, joined, in the order of the calls. On the staging view the Add*
// methods do not panic: each refusal (the ones the Add* methods document,
// a name or URI that s or an earlier call of add already has included) is
// collected and the item left out, so one call of Register lists every
// problem. add must register on the view it is given only, never on s
// itself, and must not keep the view after it returns.
//
// Register is for code that derives what it registers from data (an
// OpenAPI document, a configuration file) and must report bad input as an
// error: the Add* methods panic on what is a programming error in code
// that registers literals. Like them, Register must run before s is passed
// to NewHandler; after that it returns an error.
func (s *Server) Register(add func(*Server)) error { return s.stage(add, true) }

// Check is Register that registers nothing: it reports what Register would
// refuse, against what s holds now, and leaves s as it was. It lets a
// caller try items one at a time (to skip the ones refused) before it
// registers the rest with one call of Register.
func (s *Server) Check(add func(*Server)) error { return s.stage(add, false) }

func (s *Server) stage(add func(*Server), commit bool) error {
	if add == nil {
		return errors.New("mcp: Register needs a function")
	}
	s.mu.Lock()
	err := s.notFrozen("Register")
	s.mu.Unlock()
	if err != nil {
		return err
	}
	v := s.view(s)
	add(v)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.frozen = true // a view kept past add registers nothing more
	if len(v.errs) > 0 {
		return errors.Join(v.errs...)
	}
	if !commit {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.notFrozen("Register"); err != nil {
		return err
	}
	// s may have changed while add ran (another goroutine registering):
	// what the view checked against it is checked again.
	var errs []error
	for _, t := range v.tools {
		if s.byName[t.def.Name] != nil {
			errs = append(errs, errors.New("mcp: tool "+t.def.Name+" registered twice"))
		}
	}
	for _, r := range v.resources {
		if s.byURI[r.def.URI] != nil {
			errs = append(errs, errors.New("mcp: resource "+r.def.URI+" registered twice"))
		}
	}
	for _, t := range v.templates {
		if s.hasTemplate(t.def.URITemplate) {
			errs = append(errs, errors.New("mcp: resource template "+t.def.URITemplate+" registered twice"))
		}
	}
	for _, p := range v.prompts {
		if s.byPrompt[p.def.Name] != nil {
			errs = append(errs, errors.New("mcp: prompt "+p.def.Name+" registered twice"))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, t := range v.tools {
		s.tools = append(s.tools, t)
		s.byName[t.def.Name] = t
	}
	for _, r := range v.resources {
		s.resources = append(s.resources, r)
		s.byURI[r.def.URI] = r
	}
	s.templates = append(s.templates, v.templates...)
	for _, p := range v.prompts {
		s.prompts = append(s.prompts, p)
		s.byPrompt[p.def.Name] = p
	}
	return nil
}
