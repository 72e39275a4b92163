package era2026

import "github.com/mcpdual/mcpdual/internal/seam"

// discover answers server/discover: every revision the endpoint serves,
// newest first, so a client learns it may also fall back to the handshake
// revisions; the capabilities; the instructions.
func (e *Era) discover(req *seam.Request) (seam.Result, error) {
	return &discoverResult{versions: req.Server.Supported, caps: req.Server.Capabilities, instructions: req.Server.Instructions}, nil
}

type discoverResult struct {
	stamp        seam.Stamp
	versions     []string
	caps         seam.Capability
	instructions string
}

func (r *discoverResult) Stamp() *seam.Stamp { return &r.stamp }

func (r *discoverResult) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst, comma := r.stamp.AppendMembers(dst)
	dst = seam.Comma(dst, comma)
	dst = append(dst, `"supportedVersions":[`...)
	for i, v := range r.versions {
		dst = seam.Comma(dst, i > 0)
		dst = seam.AppendString(dst, v)
	}
	dst = append(dst, `],"capabilities":{`...)
	n := len(dst)
	// listChanged and subscribe are announced exactly when listen
	// delivers them (seam.CapListChanged, seam.CapSubscribe): a client
	// that sees them may rely on subscriptions/listen for them.
	changes, subscribe := r.caps&seam.CapListChanged != 0, r.caps&seam.CapSubscribe != 0
	for _, c := range []struct {
		bit       seam.Capability
		name      string
		changes   bool
		subscribe bool
	}{{seam.CapTools, "tools", changes, false}, {seam.CapResources, "resources", changes, subscribe},
		{seam.CapPrompts, "prompts", changes, false}, {seam.CapCompletions, "completions", false, false}} {
		if r.caps&c.bit != 0 {
			dst = seam.Comma(dst, len(dst) > n)
			dst = append(dst, '"')
			dst = append(dst, c.name...)
			dst = append(dst, `":{`...)
			if c.subscribe {
				dst = append(dst, `"subscribe":true`...)
			}
			if c.changes {
				dst = seam.Comma(dst, c.subscribe)
				dst = append(dst, `"listChanged":true`...)
			}
			dst = append(dst, '}')
		}
	}
	if r.caps&(seam.CapTasks|seam.CapUI) != 0 {
		// The tasks extension is declared under extensions, never as a
		// capabilities.tasks member (that was 2025-11-25's shape). MCP
		// Apps (io.modelcontextprotocol/ui) names the one view type served.
		dst = seam.Comma(dst, len(dst) > n)
		dst = append(dst, `"extensions":{`...)
		if r.caps&seam.CapTasks != 0 {
			dst = append(dst, `"io.modelcontextprotocol/tasks":{}`...)
		}
		if r.caps&seam.CapUI != 0 {
			dst = seam.Comma(dst, r.caps&seam.CapTasks != 0)
			dst = append(dst, `"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}`...)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, '}')
	if r.instructions != "" {
		dst = append(dst, `,"instructions":`...)
		dst = seam.AppendString(dst, r.instructions)
	}
	return append(dst, '}')
}
