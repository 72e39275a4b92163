package mcp

import (
	"maps"

	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/protocol"
)

// Version is an MCP protocol revision, a date such as "2026-07-28"; see
// package protocol, its home, which the eras share without importing mcp.
type Version = protocol.Version

// The revisions this module implements.
const (
	Version20260728 = protocol.Version20260728
	Version20251125 = protocol.Version20251125
	Version20250618 = protocol.Version20250618
	Version20250326 = protocol.Version20250326
)

// features is a revision's profile (seam.Profile, the era's data) as the
// core reads it on every request: the profile itself (what the wire
// allows in what the server sends, how the revision interacts; read
// through, not copied field by field) and what the core derives from it
// once.
type features struct {
	*seam.Profile
	// shape indexes the definitions rendered at registration: each
	// revision with another set of the members above has its own.
	shape int
	// resourceNotFound is the code of an unknown resource.
	resourceNotFound Code
	// undefinedCaps are the client capabilities the revision does not
	// define: a client that sends one anyway has not declared it.
	undefinedCaps Capability
}

// The shapes definitions are rendered in, named for what they add (the
// first revisions to carry it: 2025-03-26, 2025-06-18, 2025-11-25).
const (
	shapePlain  = iota // no titles, no outputSchema
	shapeTitles        // titles and outputSchema
	shapeIcons         // and icons
	nShapes
)

// featuresOf reads a profile.
func featuresOf(p *seam.Profile) features {
	own := *p // the core's copy: what an era returned is read once
	f := features{Profile: &own, resourceNotFound: Code(p.ResourceNotFound)}
	if !p.Elicitation {
		f.undefinedCaps |= CapElicitationForm | CapElicitationURL
	}
	if !p.URLElicitation {
		f.undefinedCaps |= CapElicitationURL
	}
	if !p.MultiSelect {
		f.undefinedCaps |= capMultiSelect
	}
	if !p.SamplingTools {
		f.undefinedCaps |= CapSamplingTools
	}
	switch {
	case p.Icons:
		f.shape = shapeIcons
	case p.Titles || p.OutputSchema:
		f.shape = shapeTitles
	default:
		f.shape = shapePlain
	}
	return f
}

// revision is one served revision, made when the handler is built: the
// era that serves it, its profile read once, and the rows of the method
// table it has.
type revision struct {
	version  Version
	era      seam.Era
	f        features
	statuses map[int]int
	methods  map[string]*methodRow
}

func newRevision(era seam.Era, p *seam.Profile) *revision {
	r := &revision{version: Version(p.Version), era: era, f: featuresOf(p), statuses: maps.Clone(p.Statuses), methods: map[string]*methodRow{}}
	for _, name := range p.Methods {
		row := methodsByName[name]
		if row == nil {
			panic("mcp: revision " + p.Version + " names method " + name + ", which the method table lacks")
		}
		r.methods[name] = row
	}
	return r
}
