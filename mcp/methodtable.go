package mcp

import (
	"slices"

	"github.com/mcpdual/mcpdual/internal/seam"
)

// methodTable is every method the endpoint knows. Each family's rows sit
// next to their handlers (toolMethods in calltool.go, resourceMethods in
// resource.go, promptMethods in prompt.go, completionMethods in
// complete.go, taskMethods in tasks.go, pushMethods in push.go); the methods of the handshake and
// those an era answers are here. Adding a method is its row and its
// handler in one core file, and its name in the profile of each revision
// that has it (the eras' data). The eras read the row (its routing member,
// whether it may answer input_required, whether it is cacheable) for what
// a row can say; they still name methods where a revision's rules do:
// each era's profile lists its methods, era2025 lets initialize carry a
// stale session id, and an era's Serve hook answers its one method
// (initialize, server/discover). A client keeps its own
// knowledge of routing members: mcptest's is in its routingHeaders, which
// TestMCPTest_RoutingMembers holds to this table.
var methodTable = slices.Concat(protocolMethods, toolMethods, resourceMethods, promptMethods, completionMethods, taskMethods, pushMethods)

// protocolMethods are the handshake's and those an era answers.
var protocolMethods = []*methodRow{
	{name: "initialize", Method: seam.Method{Negotiates: true}, era: true},
	{name: "notifications/initialized", Method: seam.Method{Negotiates: true}},
	{name: "ping", serve: (*Server).ping},
	{name: "server/discover", Method: seam.Method{Cacheable: true}, era: true, ownBudget: true},
}

// methodsByName indexes methodTable.
var methodsByName = func() map[string]*methodRow {
	m := make(map[string]*methodRow, len(methodTable))
	for _, row := range methodTable {
		m[row.name] = row
	}
	return m
}()
