// Command strictserver serves function tools whose schemas cover every
// rule of typeschema (embedded, repeated, recursive and nullable types,
// maps, raw JSON, times, bytes, pointers in slices, tag constraints), for
// .ci/schema-strict.sh to list with the MCP Inspector in strict mode. It
// prints its loopback address, then serves until killed.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

type address struct {
	City    string `json:"city" jsonschema:"The city"`
	Country string `json:"country" mcp:"pattern=^[A-Z]{2}$"`
}

type node struct {
	Name     string  `json:"name"`
	Children []*node `json:"children,omitempty"`
	Next     *node   `json:"next,omitempty"`
}

type base struct {
	ID string `json:"id"`
}

type input struct {
	base
	Text   string            `json:"text" mcp:"minLength=1,maxLength=20"`
	Tags   []string          `json:"tags,omitempty" mcp:"enum=red|blue,maxItems=3,uniqueItems"`
	Ship   *address          `json:"ship,omitempty"`
	Bill   address           `json:"bill" jsonschema:"Where the bill goes"`
	When   time.Time         `json:"when,omitzero"`
	Raw    json.RawMessage   `json:"raw,omitempty"`
	Any    any               `json:"any,omitempty"`
	Meta   map[string]string `json:"meta,omitempty"`
	Tree   node              `json:"tree" jsonschema:"A tree" mcp:"nullable"`
	Small  int8              `json:"small" mcp:"default=3,example=4"`
	Count  uint              `json:"count,omitempty" mcp:"maximum=100"`
	Ratio  float64           `json:"ratio,omitempty" mcp:"exclusiveMinimum=0"`
	Maybe  []string          `json:"maybe" mcp:"nullable"`
	Bytes  []byte            `json:"bytes,omitempty"`
	Points []*address        `json:"points,omitempty"`
	Grid   [2][2]int         `json:"grid,omitzero"`
	Mode   string            `json:"mode,omitempty" mcp:"enum=fast|safe,default=safe,format=hostname"`
	Note   *string           `json:"note"` // required and nullable
}

type output struct {
	Items []input          `json:"items"`
	Count map[string]int   `json:"count"`
	Root  *node            `json:"root"`
	Seen  map[string][]int `json:"seen"`
}

func main() {
	srv := mcp.NewServer(mcp.Implementation{Name: "strict", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "everything", Description: "Every typeschema rule."},
		func(ctx context.Context, in input) (output, error) { return output{}, nil })
	mcp.AddToolFunc(srv, mcp.Tool{Name: "tree", Description: "A recursive root."},
		func(ctx context.Context, in node) (node, error) { return in, nil })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ln.Addr())
	log.Fatal(http.Serve(ln, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})))
}
