package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/schema"
)

// An accepted form's content is checked against the requestedSchema that
// was asked before any handler reads it (design record 004). The answer
// comes back in a later request, which may reach another replica or this
// one after a restart, so the schema travels in the round's state: not
// the document as asked, but its validation keywords (formKeywords), to
// keep the sealed state small.

// formCache holds compiled form schemas by document text: the document as
// a handler gives it to ElicitForm (asked again for every call that asks)
// and the keywords a state carries (read again on every answer). It is
// bounded: a handler that builds its forms from data (an enum of the
// user's projects) makes a new document per call, and such documents cost
// a compilation each, never memory without end. Each Handler has its own
// (Handler.forms), as a Server has its schema cache: what one endpoint
// asked neither fills nor empties another's. Its zero value is ready.
type formCache struct {
	mu sync.Mutex
	m  map[string]formEntry
}

type formEntry struct {
	keywords []byte         // what a state carries of the document (formKeywords)
	s        *schema.Schema // the document compiled; the keywords validate alike
}

const (
	// maxFormSchemas bounds the documents the cache holds; when full it
	// starts again empty (a form asked again is compiled again).
	maxFormSchemas = 256
	// maxCachedForm bounds a document the cache keeps, in bytes, so that
	// the cache holds at most about 1 MiB of text. A larger one is
	// compiled each time it is asked: its keywords, cached, may still fit
	// a sealed state (mrtr.MaxMintBytes), annotations being left out.
	maxCachedForm = 4 << 10
)

func (c *formCache) get(doc []byte) (formEntry, bool) {
	c.mu.Lock()
	e, ok := c.m[string(doc)]
	c.mu.Unlock()
	return e, ok
}

func (c *formCache) put(doc []byte, e formEntry) {
	if len(doc) > maxCachedForm {
		return
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]formEntry{}
	}
	if _, ok := c.m[string(doc)]; !ok {
		if len(c.m) >= maxFormSchemas {
			clear(c.m)
		}
		c.m[string(doc)] = e
	}
	c.mu.Unlock()
}

// asked compiles a form's requestedSchema as it is asked (so against
// its metaschema: a document that does not compile is the handler's bug,
// refused before the client sees it, rather than a form no answer could
// ever pass) and returns the keywords a state carries to check the answer.
func (c *formCache) asked(doc []byte) ([]byte, error) {
	if e, ok := c.get(doc); ok {
		return e.keywords, nil
	}
	s, err := schema.Compile(doc)
	if err != nil {
		return nil, fmt.Errorf("requestedSchema does not compile: %w", err)
	}
	keywords, err := formKeywords(doc)
	if err != nil {
		return nil, err
	}
	e := formEntry{keywords: keywords, s: s}
	c.put(doc, e)
	c.put(keywords, e)
	return keywords, nil
}

// compiled returns the compiled schema of keywords a state carried.
func (c *formCache) compiled(keywords []byte) (*schema.Schema, error) {
	if e, ok := c.get(keywords); ok {
		return e.s, nil
	}
	s, err := schema.Compile(keywords)
	if err != nil {
		return nil, err
	}
	c.put(keywords, formEntry{keywords: bytes.Clone(keywords), s: s})
	return s, nil
}

// annotationKeywords never decide whether a value is valid, in any draft:
// a state need not carry them. format is not among them (drafts before
// 2019-09 assert it), nor is anything a validator might read.
var annotationKeywords = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "$comment": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
	"enumNames": true, // 2025-06-18's titles of an enum's values; no JSON Schema keyword
}

// Keywords whose value is a subschema or an array of them, and those whose
// value maps names to subschemas: where annotations are looked for below
// a schema. Anything else is kept as it is.
var (
	subschemaKeywords = map[string]bool{
		"items": true, "additionalItems": true, "prefixItems": true, "contains": true,
		"additionalProperties": true, "unevaluatedProperties": true, "unevaluatedItems": true,
		"propertyNames": true, "not": true, "if": true, "then": true, "else": true,
		"allOf": true, "anyOf": true, "oneOf": true,
	}
	subschemaMapKeywords = map[string]bool{
		"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
		"dependentSchemas": true, "dependencies": true,
	}
)

// formKeywords returns doc, a requestedSchema, without its annotations:
// the titles, descriptions and defaults that make most of a form's bytes
// and none of its checks. A document that refers to itself ($ref and its
// kin can point anywhere in it, an annotation's value included) is kept
// whole. The result is compact, its members sorted, spelled as
// json.Marshal spells it (<, > and & escaped), which is how the state's
// plaintext carries it: the memo finds it under the same text on answer.
func formKeywords(doc []byte) ([]byte, error) {
	v, err := schema.Decode(doc, 0)
	if err != nil {
		return nil, err
	}
	if !refers(v) {
		stripAnnotations(v)
	}
	return json.Marshal(v)
}

// refers reports whether a decoded document holds a reference.
func refers(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			if k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef" || refers(sub) {
				return true
			}
		}
	case []any:
		for _, sub := range v {
			if refers(sub) {
				return true
			}
		}
	}
	return false
}

// stripAnnotations removes annotation keywords from the schema s and the
// subschemas below it, in place. Names under properties (and the other
// maps of subschemas) are names, not keywords: a property called "title"
// stays.
func stripAnnotations(s any) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	for k, v := range m {
		switch {
		case annotationKeywords[k]:
			delete(m, k)
		case subschemaKeywords[k]:
			if list, ok := v.([]any); ok {
				for _, sub := range list {
					stripAnnotations(sub)
				}
			} else {
				stripAnnotations(v)
			}
		case subschemaMapKeywords[k]:
			if subs, ok := v.(map[string]any); ok {
				for _, sub := range subs {
					stripAnnotations(sub)
				}
			}
		}
	}
}

// violation checks an accepted answer's content against keywords, the
// form a state carried, and returns its first violation, or "" when it
// conforms. An accept without content submitted no values: it is checked
// as an empty form, so a required property is still missing. err means
// the keywords do not compile, which no state this library sealed holds.
func (c *formCache) violation(keywords, answer []byte, maxValues int) (string, error) {
	s, err := c.compiled(keywords)
	if err != nil {
		return "", err
	}
	content, ok := jsonrpc.Lookup(answer, "content")
	if !ok || jsonrpc.IsNull(content) {
		content = []byte("{}")
	}
	if s.Conforms(content) && (maxValues <= 0 || jsonrpc.CountValues(content, maxValues) <= maxValues) {
		return "", nil
	}
	// content is part of the request body (or of the answer a 2025
	// client posted), read once and never written again.
	decoded, err := schema.DecodeShared(content, maxValues)
	switch {
	case errors.Is(err, jsonrpc.ErrTooManyValues):
		return "more than " + strconv.Itoa(maxValues) + " values", nil
	case errors.Is(err, jsonrpc.ErrNumberTooLarge):
		return "a number with more than " + strconv.Itoa(jsonrpc.MaxNumberDigits) + " digits or an exponent beyond ±" +
			strconv.Itoa(jsonrpc.MaxNumberExponent), nil
	case err != nil:
		return "content is not valid JSON", nil
	}
	if v := s.Validate(decoded, 1); v != nil {
		return v[0], nil
	}
	return "", nil
}

// formMismatch is the refusal of an accepted form whose content the form
// does not allow: -32602 as any malformed answer, naming the key and the
// first violation (a location and what the schema wants, never the value).
func formMismatch(key, violation string) *Error {
	key = key[:jsonrpc.CutText(key, maxInputKey)]
	return NewError(CodeInvalidParams, "Invalid inputResponses").
		WithData(map[string]string{"reason": "invalid_input_responses", "key": key, "violation": violation})
}
