// Command peer serves one of kitpeers' servers (gosdk, mcpgo or floor) on
// a loopback address and prints its MCP URL, for running cmd/mcpcheck
// against it: go run ./cmd/peer -peer mcpgo -addr 127.0.0.1:0
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mcpdual/mcpdual/internal/kitpeers"
)

func main() {
	peer := flag.String("peer", kitpeers.Floor, fmt.Sprintf("the server to run, one of %v", kitpeers.Peers()))
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	flag.Parse()
	h, err := kitpeers.New(*peer)
	if err != nil {
		log.Print(err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	fmt.Printf("%s at http://%s/mcp\n", *peer, ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.Serve(ln))
}
