package typeschema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type innerPart struct {
	X int `json:"x"`
}

type taggedEmbed struct {
	innerPart `json:"inner"`
	A         int `json:"a"`
}

// TestFor_TaggedUnexportedEmbed: encoding/json writes and reads an
// embedded struct of an unexported type that its json tag names as a
// member of that name; the schema must have it (additionalProperties is
// false, so without it the output breaks the schema and a valid input is
// refused).
func TestFor_TaggedUnexportedEmbed(t *testing.T) {
	s, err := For(reflect.TypeFor[taggedEmbed]())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(taggedEmbed{innerPart{1}, 2})
	if !strings.Contains(string(b), `"inner":{"x":1}`) {
		t.Fatalf("encoding/json wrote %s", b)
	}
	if !strings.Contains(string(s.JSON), `"inner":{"type":"object","properties":{"x":`) {
		t.Errorf("schema %s lacks the member inner that encoding/json writes: %s", s.JSON, b)
	}
}

type foldKid struct {
	Name string `json:"name"`
}

type foldIn struct {
	Path string             `json:"path"`
	Kids []foldKid          `json:"kids"`
	ByID map[string]foldKid `json:"byId"`
	Self *foldIn            `json:"self,omitempty"`
	Raw  json.RawMessage    `json:"raw,omitempty"`
}

func TestFolds(t *testing.T) {
	f := NewFolds(reflect.TypeFor[foldIn]())
	for args, want := range map[string]string{
		`{"path":"a","kids":[{"name":"n"}],"byId":{"K":{"name":"n"}},"raw":{"PATH":1},"other":1}`: "",
		`{"PATH":"a"}`:                         "PATH",
		`{"paſh":"a"}`:                         "",
		`{"pat\u017f":"a"}`:                    "",
		`{"kids":[{"name":"a"},{"NAME":"b"}]}`: "kids[1].NAME",
		`{"byId":{"k":{"Name":"b"}}}`:          "byId.k.Name",
		`{"self":{"self":{"Path":"b"}}}`:       "self.self.Path",
		"{ \"kids\" : [ {\"name\":\"a\"} ,\n { \"NAME\" : \"b\" } ] }": "kids[1].NAME",
		`{"P\u0041TH":"a"}`:               "PATH",
		`{"raw":[{"PATH":1}],"path":"x"}`: "",
		`{"ſelf":{}}`:                     "ſelf",
	} {
		if got := f.Find([]byte(args)); got != want {
			t.Errorf("%s: %q, want %q", args, got, want)
		}
	}
	// What Find reports is what encoding/json takes.
	var in foldIn
	json.Unmarshal([]byte(`{"ſelf":{"path":"x"}}`), &in)
	if in.Self == nil || in.Self.Path != "x" {
		t.Errorf("encoding/json did not fold ſelf: %+v", in)
	}
}

// FuzzFolds: Find never panics on valid JSON, and what it reports
// is a member encoding/json would fold.
func FuzzFolds(f *testing.F) {
	f.Add([]byte(`{"PATH":"a","kids":[{"NAME":1}],"byId":{"a":{"Name":2}}}`))
	f.Add([]byte(` [ 1 , "x" ] `))
	folds := NewFolds(reflect.TypeFor[foldIn]())
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		folds.Find(b)
	})
}

type foldTree []struct {
	Name string   `json:"name"`
	Kids foldTree `json:"kids"`
}

type foldMap map[string]struct {
	Name string  `json:"name"`
	Sub  foldMap `json:"sub"`
}

type foldRec struct {
	Tree foldTree `json:"tree"`
	M    foldMap  `json:"m"`
}

// TestFolds_RecursiveContainer: a slice or map type that holds itself
// through a struct: encoding/json folds members at every depth.
func TestFolds_RecursiveContainer(t *testing.T) {
	f := NewFolds(reflect.TypeFor[foldRec]())
	for args, want := range map[string]string{
		`{"tree":[{"name":"a","kids":[{"NAME":"b"}]}]}`:     "tree[0].kids[0].NAME",
		`{"m":{"k":{"name":"a","sub":{"j":{"Name":"b"}}}}}`: "m.k.sub.j.Name",
	} {
		if got := f.Find([]byte(args)); got != want {
			t.Errorf("%s: %q, want %q", args, got, want)
		}
		var in foldRec
		json.Unmarshal([]byte(args), &in)
		if len(in.Tree) == 1 && in.Tree[0].Kids[0].Name != "b" || len(in.M) == 1 && in.M["k"].Sub["j"].Name != "b" {
			t.Errorf("encoding/json did not fold %s: %+v", args, in)
		}
	}
}
