//go:build goexperiment.jsonv2

package typeschema

// A differential test of Folds.Find against encoding/json itself: v1's
// options with case-sensitive names (and unknown members refused) is the
// oracle. Run: GOEXPERIMENT=jsonv2 go test -run TestFoldsOracle -fuzz FuzzFoldsOracle ./internal/typeschema

import (
	jsonv1 "encoding/json"
	json "encoding/json/v2"
	"reflect"
	"testing"
)

type oTree []struct {
	Name string `json:"name"`
	Kids oTree  `json:"kids"`
}

type oMap map[string]struct {
	Name string `json:"name"`
	Sub  oMap   `json:"sub"`
}

type oLeaf struct {
	ID int `json:"id"`
}

type oDeep struct {
	oLeaf
	Q int `json:"q"`
}

type oOnlyMarshal struct {
	Lim int `json:"lim"`
}

func (oOnlyMarshal) MarshalText() ([]byte, error) { return []byte("m"), nil }

type oIn struct {
	Path  string              `json:"path"`
	Tree  oTree               `json:"tree"`
	M     oMap                `json:"m"`
	P     **oLeaf             `json:"p"`
	Arr   [2][]oLeaf          `json:"arr"`
	Str   int                 `json:"str,string"`
	Obj   oLeaf               `json:"obj,string"`
	Raw   jsonv1.RawMessage   `json:"raw"`
	Any   any                 `json:"any"`
	MS    map[string][]*oLeaf `json:"ms"`
	oDeep                     // promoted: id, q
}

func oracle(b []byte) (folds, exactFails bool) {
	v1 := jsonv1.DefaultOptionsV1()
	var a, e oIn
	errA := json.Unmarshal(b, &a, v1)
	errE := json.Unmarshal(b, &e, v1, json.MatchCaseInsensitiveNames(false))
	var r oIn
	exactFails = json.Unmarshal(b, &r, v1, json.MatchCaseInsensitiveNames(false), json.RejectUnknownMembers(true)) != nil
	return (errA == nil) != (errE == nil) || !reflect.DeepEqual(a, e), exactFails
}

func checkOracle(t *testing.T, b []byte, f *Folds) {
	if !jsonv1.Valid(b) {
		return
	}
	got := f.Find(b)
	differs, exactFails := oracle(b)
	if got == "" && differs {
		t.Errorf("false negative: %s: encoding/json folds a member, Find reports none", b)
	}
	if got != "" && !exactFails {
		t.Errorf("false positive: %s: Find reports %q, encoding/json takes every member by its exact name", b, got)
	}
}

func TestFoldsOracle(t *testing.T) {
	f := NewFolds(reflect.TypeFor[oIn]())
	for _, s := range []string{
		`{"tree":[{"name":"a","kids":[{"NAME":"b"}]}]}`,
		`{"m":{"k":{"name":"a","sub":{"j":{"Name":"b"}}}}}`,
		`{"p":{"ID":1}}`,
		`{"arr":[[],[{"Id":1}]]}`,
		`{"obj":{"ID":1}}`,
		`{"ms":{"x":[null,{"iD":3}]}}`,
		`{"ID":1}`,
		`{"lim":1,"q":2,"id":3}`,
		`{"P\u0041TH":"x"}`,
		`{"raw":{"PATH":1},"any":{"PATH":1}}`,
	} {
		checkOracle(t, []byte(s), f)
	}
}

func FuzzFoldsOracle(fz *testing.F) {
	for _, s := range []string{
		`{"path":"a","tree":[{"name":"a","kids":[{"name":"b"}]}],"m":{"k":{"name":"a"}},"p":{"id":1},"arr":[[],[{"id":1}]]}`,
		`{"obj":{"id":1},"str":"2","ms":{"x":[null,{"id":3}]},"id":1,"q":2,"lim":3,"raw":{"PATH":1},"any":[1]}`,
	} {
		fz.Add([]byte(s))
	}
	f := NewFolds(reflect.TypeFor[oIn]())
	fz.Fuzz(func(t *testing.T, b []byte) { checkOracle(t, b, f) })
}
