package schema

import (
	"strings"
	"testing"
)

func TestCompileAndValidate(t *testing.T) {
	t.Parallel()
	s, err := Compile([]byte(`{"type":"object","properties":{"id":{"type":"string","minLength":1},"n":{"type":"integer","maximum":10}},"required":["id"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	ok, _ := Decode([]byte(`{"id":"a","n":3}`), 0)
	if v := s.Validate(ok, 10); v != nil {
		t.Errorf("valid value refused: %v", v)
	}
	bad, _ := Decode([]byte(`{"n":12345678901234567890,"x":1}`), 0)
	v := s.Validate(bad, 10)
	if len(v) < 2 {
		t.Fatalf("violations = %v", v)
	}
	joined := strings.Join(v, "\n")
	for _, want := range []string{"/n", "id", "x"} {
		if !strings.Contains(joined, want) {
			t.Errorf("violations %q do not mention %q", joined, want)
		}
	}
	if got := s.Validate(bad, 1); len(got) != 2 || !strings.HasPrefix(got[1], "(") {
		t.Errorf("cap: %v", got)
	}
}

func TestCompile_Refuses(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"not json":    `{`,
		"not object":  `[]`,
		"network ref": `{"$ref":"https://example.com/s.json"}`,
		"file ref":    `{"$ref":"file:///etc/passwd"}`,
		"bad type":    `{"type":"nope"}`,
		"bad dialect": `{"$schema":"https://example.com/unknown-dialect"}`,
	} {
		if _, err := Compile([]byte(doc)); err == nil {
			t.Errorf("%s: compiled", name)
		}
	}
}

func TestCompile_Draft2020Default(t *testing.T) {
	t.Parallel()
	// prefixItems exists only in 2020-12; under an older draft it is ignored.
	s, err := Compile([]byte(`{"type":"array","prefixItems":[{"type":"string"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := Decode([]byte(`[1]`), 0)
	if s.Validate(v, 5) == nil {
		t.Error("prefixItems not applied: default dialect is not 2020-12")
	}
}

// TestValidate_Bounded: a value with thousands of violations yields max
// lines and a count, each line capped in size, in order of location.
func TestValidate_Bounded(t *testing.T) {
	t.Parallel()
	s, err := Compile([]byte(`{"type":"array","items":{"type":"string","pattern":"^a$"}}`))
	if err != nil {
		t.Fatal(err)
	}
	items := make([]string, 5000)
	for i := range items {
		items[i] = `"` + strings.Repeat("b", 1000) + `"`
	}
	v, err := Decode([]byte("["+strings.Join(items, ",")+"]"), 0)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Validate(v, 10)
	if len(got) != 11 || got[10] != "(4990 more)" || !strings.HasPrefix(got[0], "/0: ") {
		t.Fatalf("violations: %d lines, first %q, last %q", len(got), got[0], got[len(got)-1])
	}
	for _, line := range got {
		if len(line) > maxMessage+len("…") {
			t.Errorf("line of %d bytes", len(line))
		}
	}
}

// TestCache_CompactKey: a spaced-out copy of a document finds what the
// compact one compiled.
func TestCache_CompactKey(t *testing.T) {
	t.Parallel()
	c := NewCache()
	a, _, err := c.Compile([]byte(`{"description":"a b","type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := c.Compile([]byte("{ \"description\": \"a b\",\n  \"type\": \"object\" }"))
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("the spaced-out copy was compiled again")
	}
}

// TestValidate_NeverQuotesTheValue: a violation says what the schema wants
// and where, never the value that violated it (it may be a password or a
// PIN): each keyword that would quote it is named with its bound.
func TestValidate_NeverQuotesTheValue(t *testing.T) {
	t.Parallel()
	const secret, pin = "S3cret-hunter2", "7331975318642"
	s, err := Compile([]byte(`{"type":"object","properties":{` +
		`"pattern":{"type":"string","pattern":"^[0-9]+$"},` +
		`"min":{"type":"integer","minimum":9000000000000},"max":{"type":"integer","maximum":9999},` +
		`"emin":{"type":"integer","exclusiveMinimum":9000000000000},"emax":{"type":"integer","exclusiveMaximum":9999},` +
		`"mult":{"type":"integer","multipleOf":1000},` +
		`"const":{"const":"sk-1"},"enum":{"enum":["a","b"]},"long":{"type":"string","maxLength":4}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := Decode([]byte(`{"pattern":"`+secret+`","min":`+pin+`,"max":`+pin+`,"emin":`+pin+`,"emax":`+pin+`,"mult":`+pin+
		`,"const":"`+secret+`","enum":"`+secret+`","long":"`+secret+`"}`), 0)
	got := strings.Join(s.Validate(v, 20), "\n")
	want := []string{
		"/const: value must be 'sk-1'", "/emax: exclusiveMaximum: want below 9,999", "/emin: exclusiveMinimum: want above 9×10¹²",
		"/enum: value must be one of 'a', 'b'", "/long: maxLength: got 14, want 4", "/max: maximum: want 9,999",
		"/min: minimum: want 9×10¹²", "/mult: multipleOf: want a multiple of 1,000", "/pattern: does not match pattern '^[0-9]+$'",
	}
	if got != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	// The number's digits after its first: it is printed grouped or as
	// 7.331975318642×10¹².
	for _, leak := range []string{secret, pin[1:], "975,318"} {
		if strings.Contains(got, leak) {
			t.Errorf("the violations quote %s:\n%s", leak, got)
		}
	}
}

// TestValidate_PropertyNamesSayWhere: a member name that its object's
// propertyNames refuses is reported at the object, naming the member, so
// that the model can tell which name to change; the subschema's own
// location ("/", the name as an instance of its own) would read as if the
// whole value had to match the pattern.
func TestValidate_PropertyNamesSayWhere(t *testing.T) {
	t.Parallel()
	s, err := Compile([]byte(`{"type":"object","properties":{"labels":{"type":"object",` +
		`"propertyNames":{"pattern":"^[a-z]+$","maxLength":8}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := Decode([]byte(`{"labels":{"ok":1,"Team-1":2}}`), 0)
	got := strings.Join(s.Validate(v, 20), "\n")
	if want := "/labels: property name 'Team-1' does not match pattern '^[a-z]+$'"; got != want {
		t.Errorf("violations:\n%s\nwant\n%s", got, want)
	}
	v, _ = Decode([]byte(`{"labels":{"waytoolong":1}}`), 0)
	if got, want := strings.Join(s.Validate(v, 20), "\n"), "/labels: property name 'waytoolong' maxLength: got 10, want 8"; got != want {
		t.Errorf("violations:\n%s\nwant\n%s", got, want)
	}
}

// TestValidate_ConstChoicesSayEveryChoice: a oneOf or anyOf whose branches
// are all consts (a form's titled choices) that no branch matches is one
// violation listing every choice, as an enum's is: each branch's own says
// "value must be 'red'", and the first of them, all a client is shown of
// a refused answer, read as if red were the only choice. A choice of
// anything but consts keeps its branches' violations.
func TestValidate_ConstChoicesSayEveryChoice(t *testing.T) {
	t.Parallel()
	s, err := Compile([]byte(`{"type":"object","properties":{` +
		`"one":{"type":"string","oneOf":[{"const":"red","title":"Red"},{"const":"blue","title":"Blue"}]},` +
		`"any":{"type":"array","items":{"anyOf":[{"const":"go","title":"Go"},{"const":"c"}]}},` +
		`"mixed":{"oneOf":[{"const":"x"},{"type":"integer"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := Decode([]byte(`{"one":"green","any":["go","rust"],"mixed":"y"}`), 0)
	got := strings.Join(s.Validate(v, 20), "\n")
	want := strings.Join([]string{
		"/any/1: value must be one of 'go', 'c'",
		"/mixed: value must be 'x'", "/mixed: got string, want integer",
		"/one: value must be one of 'red', 'blue'",
	}, "\n")
	if got != want {
		t.Errorf("violations:\n%s\nwant\n%s", got, want)
	}
	// A member's name against a choice is placed at its object, as any
	// propertyNames violation is.
	s, err = Compile([]byte(`{"type":"object","properties":{"names":{"type":"object","propertyNames":{"anyOf":[{"const":"a"},{"const":"b"}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v, _ = Decode([]byte(`{"names":{"a":1,"z":2}}`), 0)
	if got, want := strings.Join(s.Validate(v, 20), "\n"), "/names: property name 'z' value must be one of 'a', 'b'"; got != want {
		t.Errorf("violations:\n%s\nwant\n%s", got, want)
	}
}
