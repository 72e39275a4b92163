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

// Features says which optional members a revision allows in what the
// server sends; one table keeps every shape decision in one place.
type Features struct {
	// Titles: "title" on tools, prompts, resources and Implementation.
	Titles bool
	// OutputSchema: "outputSchema" on tools and "structuredContent" on results.
	OutputSchema bool
	// Meta: "_meta" on definitions and content.
	Meta bool
	// ResourceLinks: "resource_link" content blocks.
	ResourceLinks bool
}

// FeaturesOf returns the features of revision v.
func FeaturesOf(v Version) Features {
	modern := v.Compare(Version20250618) >= 0
	return Features{Titles: modern, OutputSchema: modern, Meta: modern, ResourceLinks: modern}
}
