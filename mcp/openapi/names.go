package openapi

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Tool names. MCP allows 1 to 128 of A-Z a-z 0-9 _ - . in a tool name;
// third-party documents use other characters ("repos/get"), omit the
// operationId, or give two operations names that differ only in what a
// tool name cannot hold. The rule, applied in this order:
//
//  1. Override.Name, as given (an invalid one fails).
//  2. WithNamer's name, as given (an invalid one fails; "" goes on).
//  3. The operationId, each run of other characters replaced by one "_"
//     ("repos/get" -> "repos_get", "Pet.find by-id" -> "Pet.find_by-id"),
//     leading and trailing "_" trimmed.
//  4. Without an operationId (or when nothing is left of it): the
//     lower-case method and the path's segments, each made valid the same
//     way, joined by "_" ("GET /pets/{id}" -> "get_pets_id").
//
// A name longer than 128 characters keeps its first 119 and ends in "_"
// and 8 hex digits of the SHA-256 of the whole name, so it stays the same
// from one run to the next. When two tools would get one name, the first
// in registration order keeps it and each later one ends in "_" and 8 hex
// digits of the SHA-256 of its "METHOD /path" (stable however the
// document is reordered), noted in its Report entry.

const maxName = 128

func validChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.'
}

// sanitize replaces each run of characters a tool name cannot hold by one
// "_", and trims "_" at both ends.
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	gap := false
	for _, r := range s {
		if validChar(r) {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			gap = false
			b.WriteRune(r)
			continue
		}
		gap = true
	}
	return strings.Trim(b.String(), "_")
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// fit shortens a name over 128 characters with a stable suffix.
func fit(name string) string {
	if len(name) <= maxName {
		return name
	}
	return name[:maxName-9] + "_" + shortHash(name)
}

// derivedName is the rule's name for o, without the host's choices.
func derivedName(o *operation) string {
	if n := sanitize(o.id); n != "" {
		return fit(n)
	}
	parts := []string{strings.ToLower(o.method)}
	for _, seg := range strings.Split(o.path, "/") {
		if s := sanitize(seg); s != "" {
			parts = append(parts, s)
		}
	}
	return fit(strings.Join(parts, "_"))
}

// Where a tool's name comes from. Whether srv takes a name is srv's to
// say (see tool.refusal); a name the host chose that it refuses fails
// Register.
const (
	namedByRule   = iota // the operationId or the method and path
	namedNamer           // WithNamer
	namedOverride        // Override.Name: never changed by the collision rule
)

// baseName is the tool name o asks for, before collisions are resolved,
// and where it comes from.
func (r *registrar) baseName(o *operation, ov Override) (name string, named int) {
	if ov.Name != "" {
		return ov.Name, namedOverride
	}
	if r.cfg.namer != nil {
		if n := r.cfg.namer(o.public()); n != "" {
			return n, namedNamer
		}
	}
	return derivedName(o), namedByRule
}

// public is o as WithNamer and WithConfirm see it.
func (o *operation) public() Operation {
	return Operation{Method: o.method, Path: o.path, OperationID: o.id, Summary: o.op.Summary, Tags: o.op.Tags}
}

// assignNames gives every tool its final name: Override names first (two
// alike fail), then the others (a namer's and the rule's) in order, a
// taken name made unique with the hash of the operation.
func assignNames(tools []*tool) error {
	taken := make(map[string]*tool, len(tools))
	for _, t := range tools {
		if t.named != namedOverride {
			continue
		}
		if other, dup := taken[t.def.Name]; dup {
			return fmt.Errorf("openapi: Override.Name gives %s and %s one name, %q", other.op.label(), t.op.label(), t.def.Name)
		}
		taken[t.def.Name] = t
	}
	for _, t := range tools {
		if t.named == namedOverride {
			continue
		}
		name := t.def.Name
		if other, dup := taken[name]; dup {
			suffix := "_" + shortHash(t.op.key())
			unique := name
			if len(unique)+len(suffix) > maxName {
				unique = unique[:maxName-len(suffix)]
			}
			unique += suffix
			for i := 2; taken[unique] != nil; i++ {
				// Only a hash collision gets here.
				unique = fmt.Sprintf("%s_%d", unique[:min(len(unique), maxName-4)], i)
			}
			t.notes = append(t.notes, fmt.Sprintf("named %q: %q is the name of %s", unique, name, other.op.label()))
			name = unique
		}
		t.def.Name = name
		taken[name] = t
	}
	return nil
}
