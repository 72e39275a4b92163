// Command humaserve serves the tools mcp/openapi makes from a document
// huma generated (testdata/huma-3.1.json by default) for .ci/huma-ts.sh:
// it listens on a loopback address, prints its "http://ADDR/mcp" URL and
// then the tools' names, one line "tools: a b c", on stdout. The routes
// answer what they received; the script lists the tools, with their
// input and output schemas.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/openapi"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on")
	specPath := flag.String("spec", "testdata/huma-3.1.json", "the OpenAPI document")
	flag.Parse()
	spec, err := os.ReadFile(*specPath)
	if err != nil {
		log.Fatal(err)
	}
	routes := http.NewServeMux()
	routes.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"method": r.Method, "path": r.URL.Path, "body": string(body)})
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "huma-shop", Version: "1"})
	report, err := openapi.Register(srv, spec, routes)
	if err != nil {
		log.Fatal(err)
	}
	if len(report.Skipped) > 0 {
		log.Fatalf("skipped operations: %+v", report.Skipped)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		log.Fatalf("%s is not a loopback address", ln.Addr())
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	var names []string
	for _, t := range report.Tools {
		names = append(names, t.Name)
	}
	fmt.Printf("http://%s/mcp\ntools: %s\n", ln.Addr(), strings.Join(names, " "))
	log.Fatal(http.Serve(ln, mux))
}
