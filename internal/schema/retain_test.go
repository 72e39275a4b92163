package schema

import "testing"

// TestCache_Retain: forgetting documents forgets them in the shared
// compiler too, and a schema handed out before still validates.
func TestCache_Retain(t *testing.T) {
	c := NewCache()
	// $schema: compiled at once, in the compiler the cache shares.
	kept, _, err := c.Compile([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"integer"}`))
	if err != nil {
		t.Fatal(err)
	}
	gone, _, err := c.Compile([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"string"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.c == nil || c.Len() != 2 {
		t.Fatalf("before: compiler %v, %d documents", c.c != nil, c.Len())
	}
	c.Retain(func(s *Schema) bool { return s == kept })
	if c.Len() != 1 || c.c != nil {
		t.Fatalf("after: %d documents, shared compiler kept: %v", c.Len(), c.c != nil)
	}
	if got := gone.Validate("x", 10); got != nil {
		t.Errorf("a forgotten schema handed out before: %v", got)
	}
	if got := gone.Validate(7, 10); got == nil {
		t.Error("a forgotten schema handed out before let a wrong value through")
	}
	again, _, err := c.Compile([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"integer"}`))
	if err != nil || again != kept {
		t.Errorf("a kept document compiled again: %v", err)
	}
	// Nothing forgotten: the shared compiler stays.
	c.Compile([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"boolean"}`))
	shared := c.c
	c.Retain(func(*Schema) bool { return true })
	if c.c != shared || c.Len() != 2 {
		t.Errorf("retaining everything dropped something: %d documents", c.Len())
	}
}
