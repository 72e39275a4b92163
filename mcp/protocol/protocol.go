// Package protocol names the MCP protocol revisions this module serves.
// It is a leaf: the eras (era2025, era2026), package mcp and its helpers
// (mcp/mcptest) all name revisions through it, so that no era imports
// mcp for it. Package mcp re-exports it as mcp.Version and the
// mcp.Version* constants.
package protocol

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
