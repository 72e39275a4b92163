package content_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpdual/mcpdual/mcp/content"
)

// A resource link falls back to text for revision 2025-03-26, which has no
// links.
func ExampleResourceLink() {
	b := content.ResourceLink("inbox://emails/1", "An email", "application/json")
	fmt.Println(string(b.JSON(false)))
	fmt.Println(string(b.JSON(true)))
	// Output:
	// {"type":"resource_link","uri":"inbox://emails/1","name":"An email","mimeType":"application/json"}
	// {"type":"text","text":"Resource An email: inbox://emails/1"}
}

func TestBlocks(t *testing.T) {
	for _, tc := range []struct {
		b    content.Block
		want string
	}{
		{content.Text("hi \"there\"\n"), `{"type":"text","text":"hi \"there\"\n"}`},
		{content.Image([]byte{1, 2}, "image/png"), `{"type":"image","data":"AQI=","mimeType":"image/png"}`},
		{content.Audio([]byte("RIFF"), "audio/wav"), `{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`},
		{content.EmbeddedText("a://b", "text/plain", "x"), `{"type":"resource","resource":{"uri":"a://b","mimeType":"text/plain","text":"x"}}`},
		{content.EmbeddedBlob("a://b", "application/octet-stream", []byte{0}), `{"type":"resource","resource":{"uri":"a://b","mimeType":"application/octet-stream","blob":"AA=="}}`},
	} {
		if got := string(tc.b.JSON(false)); got != tc.want || string(tc.b.JSON(true)) != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
		m, _ := json.Marshal(tc.b)
		if string(m) != tc.want {
			t.Errorf("MarshalJSON %s", m)
		}
	}
	if m, _ := json.Marshal(content.Block{}); string(m) != "null" || !(content.Block{}).IsZero() {
		t.Errorf("zero block: %s", m)
	}
}

func TestParse(t *testing.T) {
	b, ok := content.Parse([]byte(` { "type" : "resource_link", "uri":"x://y", "name":"n" } `))
	if !ok || string(b.JSON(false)) != `{"type":"resource_link","uri":"x://y","name":"n"}` || string(b.JSON(true)) != `{"type":"text","text":"Resource n: x://y"}` {
		t.Errorf("link: %v %s %s", ok, b.JSON(false), b.JSON(true))
	}
	for _, bad := range []string{`[]`, `{"text":"no type"}`, `{"type":3}`, `{`, `{"type":"text","type":"image"}`} {
		if _, ok := content.Parse([]byte(bad)); ok {
			t.Errorf("%s parsed", bad)
		}
	}
	roles := map[content.Role]bool{content.User: true, content.Assistant: true, "system": false, "": false}
	got := map[content.Role]bool{}
	for r := range roles {
		got[r] = r.Valid()
	}
	if diff := cmp.Diff(roles, got); diff != "" {
		t.Errorf("Role.Valid (-want +got):\n%s", diff)
	}
}
