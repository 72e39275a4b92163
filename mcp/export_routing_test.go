package mcp

// RoutingMembersForTest lists the methods whose 2026-07-28 request
// carries Mcp-Name, and the params member it mirrors, as the method
// table says: what a client (mcptest's included) must know.
func RoutingMembersForTest() map[string]string {
	m := map[string]string{}
	for _, row := range methodTable {
		if row.Member != "" {
			m[row.name] = row.Member
		}
	}
	return m
}
