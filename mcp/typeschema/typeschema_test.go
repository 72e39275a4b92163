package typeschema_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
	"github.com/mcpdual/mcpdual/mcp/typeschema"
)

type address struct {
	City    string `json:"city"`
	Country string `json:"country" jsonschema:"ISO 3166-1 alpha-2 code"`
}

type addNote struct {
	OrderID string    `json:"order_id" jsonschema:"The order the note is about"`
	Text    string    `json:"text"`
	Tags    []string  `json:"tags,omitempty"`
	Pinned  bool      `json:"pinned,omitzero"`
	Ship    *address  `json:"ship_to,omitempty"`
	Due     time.Time `json:"due,omitzero"`
	Secret  string    `json:"-"`
	//lint:ignore U1000 an unexported field the schema must leave out; nothing reads it.
	private int
}

type note struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

func TestFor(t *testing.T) {
	t.Parallel()
	got, err := typeschema.For[addNote]()
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Type                 string                     `json:"type"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	}
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatal(err)
	}
	if s.Type != "object" || strings.Join(s.Required, ",") != "order_id,text" || string(s.AdditionalProperties) != "false" {
		t.Errorf("schema %s", got)
	}
	for _, p := range []string{"order_id", "text", "tags", "pinned", "ship_to", "due"} {
		if s.Properties[p] == nil {
			t.Errorf("no property %s in %s", p, got)
		}
	}
	if len(s.Properties) != 6 {
		t.Errorf("json:\"-\" and unexported fields must be left out: %s", got)
	}
	if !strings.Contains(string(s.Properties["order_id"]), `"description":"The order the note is about"`) {
		t.Errorf("order_id: %s", s.Properties["order_id"])
	}
	if p, err := typeschema.For[*note](); err != nil || !strings.HasPrefix(string(p), `{"type":"object"`) {
		t.Errorf("a pointer to a struct: %s %v", p, err)
	}
}

func TestFor_Refuses(t *testing.T) {
	t.Parallel()
	if _, err := typeschema.For[[]note](); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("array root: %v", err)
	}
	if _, err := typeschema.For[struct{ C chan int }](); err == nil {
		t.Error("a channel field was accepted")
	}
	if _, err := typeschema.For[struct {
		N int `json:"n" mcp:"pattern=x"`
	}](); err == nil || !strings.Contains(err.Error(), "pattern needs a string field") {
		t.Errorf("a pattern on an integer: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustFor did not panic")
		}
	}()
	typeschema.MustFor[string]()
}

// TestAddTool registers a tool whose schemas come from Go types and calls
// it over HTTP in every revision: valid arguments reach the route, invalid
// ones are an isError result, and the answer is checked against the
// output schema.
func TestAddTool(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /notes", func(w http.ResponseWriter, r *http.Request) {
		var in addNote
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(note{ID: "n_" + in.OrderID, Text: in.Text})
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "notes_add", InputSchema: typeschema.MustFor[addNote](), OutputSchema: typeschema.MustFor[note]()}, "POST /notes", mux)
	mux.Handle("/mcp", mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)

	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20250618, mcp.Version20250326} {
		c := mcptest.Dial(ts.URL+"/mcp", v)
		for _, tc := range []struct {
			args    string
			isError bool
			text    string
		}{
			{`{"order_id":"o1","text":"hello","tags":["a"],"ship_to":{"city":"Porto","country":"PT"},"due":"2026-12-01T00:00:00Z"}`, false, `{"id":"n_o1","text":"hello"}`},
			{`{"order_id":"o1","text":"hi"}`, false, `{"id":"n_o1","text":"hi"}`},
			// A pointer with omitempty is optional, not nullable (mcp:"nullable" would).
			{`{"order_id":"o1","text":"hi","ship_to":null}`, true, "/ship_to"},
			{`{"text":"no order"}`, true, "order_id"},
			{`{"order_id":"o1","text":"x","extra":1}`, true, "extra"},
			{`{"order_id":"o1","text":"x","tags":"a"}`, true, "/tags"},
			{`{"order_id":"o1","text":"x","ship_to":{"city":"Porto"}}`, true, "country"},
		} {
			r, err := c.CallTool(context.Background(), "notes_add", json.RawMessage(tc.args))
			if err != nil || r.Error != nil {
				t.Fatalf("%s: %v %s", v, err, r.Raw)
			}
			var res struct {
				Content []struct{ Text string } `json:"content"`
				IsError bool                    `json:"isError"`
			}
			json.Unmarshal(r.Result, &res)
			if res.IsError != tc.isError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, tc.text) {
				t.Errorf("%s %s: %s", v, tc.args, r.Result)
			}
		}
	}
}
