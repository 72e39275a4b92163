package mcp_test

import (
	"fmt"
	"net/http"

	"github.com/mcpdual/mcpdual/mcp"
)

// Tools derived from data are registered with Register: a refusal is an
// error, not a panic, and nothing is registered unless everything is.
func ExampleServer_Register() {
	srv := mcp.NewServer(mcp.Implementation{Name: "api", Version: "1"})
	api := http.NewServeMux()
	names := []string{"orders_list", "orders list"} // say, from a configuration file
	err := srv.Register(func(s *mcp.Server) {
		for _, n := range names {
			s.AddTool(mcp.Tool{Name: n}, "GET /orders", api)
		}
	})
	fmt.Println(err)
	// Nothing was registered: the first tool can still be added.
	fmt.Println(srv.Check(func(s *mcp.Server) { s.AddTool(mcp.Tool{Name: "orders_list"}, "GET /orders", api) }))
	// Output:
	// mcp: invalid tool name "orders list": use 1-128 characters from A-Z a-z 0-9 and "_-."
	// <nil>
}
