package mcp

// Version is an MCP protocol revision, a date such as "2026-07-28". Dates
// in this form order correctly as strings, which Compare relies on.
type Version string

// The revisions this module implements.
const (
	Version20260728 Version = "2026-07-28"
	Version20251125 Version = "2025-11-25"
	Version20250618 Version = "2025-06-18"
	Version20250326 Version = "2025-03-26"
)

// Compare returns -1, 0 or +1 as v is older than, equal to or newer than w.
func (v Version) Compare(w Version) int {
	switch {
	case v < w:
		return -1
	case v > w:
		return 1
	}
	return 0
}

// features says what a revision's wire allows in what the server sends.
// One row per revision keeps every shape decision in one place: adding a
// revision is its constant, its row here, and its era's file.
type features struct {
	titles        bool // "title" on tools, prompts, resources and Implementation
	outputSchema  bool // "outputSchema" on tools, "structuredContent" on results
	resourceLinks bool // "resource_link" content blocks
	icons         bool // "icons" on definitions; description and websiteUrl on Implementation
	// completionContext: completion/complete carries the other arguments
	// in params.context.
	completionContext bool
	// requestLogLevel: a request names the log level it wants in _meta.
	requestLogLevel bool
	// shape indexes the definitions rendered at registration: each
	// revision with another set of the members above has its own.
	shape int
	// resourceNotFound is the code of an unknown resource: 2026-07-28
	// forbids -32002, which the handshake revisions use.
	resourceNotFound Code
}

// The shapes definitions are rendered in.
const (
	shape20250326 = iota // no titles, no outputSchema
	shape20250618        // titles and outputSchema
	shape20251125        // and icons
	nShapes
)

var revisions = []struct {
	v Version
	f features
}{
	{Version20260728, features{requestLogLevel: true, titles: true, outputSchema: true, resourceLinks: true, completionContext: true, icons: true, shape: shape20251125, resourceNotFound: CodeInvalidParams}},
	{Version20251125, features{titles: true, outputSchema: true, resourceLinks: true, completionContext: true, icons: true, shape: shape20251125, resourceNotFound: codeResourceNotFound}},
	{Version20250618, features{titles: true, outputSchema: true, resourceLinks: true, completionContext: true, shape: shape20250618, resourceNotFound: codeResourceNotFound}},
	{Version20250326, features{shape: shape20250326, resourceNotFound: codeResourceNotFound}},
}

// featuresOf returns the row of revision v; a revision newer than every
// row gets the newest row's features.
func featuresOf(v Version) features {
	for _, r := range revisions {
		if v.Compare(r.v) >= 0 {
			return r.f
		}
	}
	return revisions[len(revisions)-1].f
}
