package mcptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpdual/mcpdual/mcp"
)

// The shapes of results, written from the facts of each revision's
// schema.ts (2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28): which
// members a result, a content block and a tool definition must have, and
// of which JSON type. Members a schema does not name are allowed (Result
// is open: [key: string]: unknown); members it names are checked when
// present.

// shaper checks one result and files what it finds.
type shaper struct {
	w      *wire
	rev    mcp.Version
	method string
	modern bool
}

func checkResult(w *wire, rev mcp.Version, method string, raw json.RawMessage) {
	s := &shaper{w: w, rev: rev, method: method, modern: rev.Compare(mcp.Version20260728) >= 0}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return // the envelope's row reports a body that does not decode
	}
	res, ok := v.(map[string]any)
	if !ok {
		s.bad(rowResult, "result", v, "an object", "Result")
		return
	}
	s.meta(rowResult, "result._meta", res, true)
	rt := ""
	if s.modern {
		switch x, present := res["resultType"]; {
		case !present:
			s.add(rowResultType, "result: no resultType (Result.resultType)")
		default:
			if str, ok := x.(string); ok {
				rt = str
			} else {
				s.bad(rowResultType, "result.resultType", x, "a string", "Result.resultType: ResultType")
			}
		}
		if rt == "input_required" {
			s.inputRequired(res)
			return
		}
		if rt != "" && rt != "complete" {
			return // an extension's result (tasks: "task"): its own shape
		}
	}
	switch method {
	case "initialize":
		if s.modern {
			return
		}
		s.str(rowResult, "result", res, "protocolVersion", true, "InitializeResult.protocolVersion: string")
		s.object(rowResult, "result", res, "capabilities", true, "InitializeResult.capabilities: ServerCapabilities")
		s.implementation("result.serverInfo", res["serverInfo"], true, "InitializeResult.serverInfo: Implementation")
		s.str(rowResult, "result", res, "instructions", false, "InitializeResult.instructions?: string")
	case "server/discover":
		if !s.modern {
			return
		}
		s.strArray(rowResult, "result", res, "supportedVersions", true, "DiscoverResult.supportedVersions: string[]")
		s.object(rowResult, "result", res, "capabilities", true, "DiscoverResult.capabilities: ServerCapabilities")
		s.str(rowResult, "result", res, "instructions", false, "DiscoverResult.instructions?: string")
		s.cacheable(res, "DiscoverResult")
	case "tools/list":
		tools := s.array(rowResult, "result", res, "tools", true, "ListToolsResult.tools: Tool[]")
		for i, t := range tools {
			s.tool(fmt.Sprintf("result.tools[%d]", i), t)
		}
		s.paginated(res, "ListToolsResult")
	case "tools/call":
		blocks := s.array(rowResult, "result", res, "content", true, "CallToolResult.content: ContentBlock[]")
		for i, c := range blocks {
			s.content(fmt.Sprintf("result.content[%d]", i), c)
		}
		s.boolean(rowResult, "result", res, "isError", false, "CallToolResult.isError?: boolean")
		if sc, ok := res["structuredContent"]; ok && !s.modern && s.rev.Compare(mcp.Version20250618) >= 0 {
			if _, ok := sc.(map[string]any); !ok {
				s.bad(rowResult, "result.structuredContent", sc, "an object", "CallToolResult.structuredContent?: { [key: string]: unknown }")
			}
		}
	case "resources/list":
		for i, r := range s.array(rowResult, "result", res, "resources", true, "ListResourcesResult.resources: Resource[]") {
			s.resource(fmt.Sprintf("result.resources[%d]", i), r, "uri", "Resource")
		}
		s.paginated(res, "ListResourcesResult")
	case "resources/templates/list":
		for i, r := range s.array(rowResult, "result", res, "resourceTemplates", true, "ListResourceTemplatesResult.resourceTemplates: ResourceTemplate[]") {
			s.resource(fmt.Sprintf("result.resourceTemplates[%d]", i), r, "uriTemplate", "ResourceTemplate")
		}
		s.paginated(res, "ListResourceTemplatesResult")
	case "resources/read":
		for i, c := range s.array(rowResult, "result", res, "contents", true, "ReadResourceResult.contents: (TextResourceContents | BlobResourceContents)[]") {
			s.resourceContents(rowResult, fmt.Sprintf("result.contents[%d]", i), c)
		}
		if s.modern {
			s.cacheable(res, "ReadResourceResult")
		}
	case "prompts/list":
		for i, p := range s.array(rowResult, "result", res, "prompts", true, "ListPromptsResult.prompts: Prompt[]") {
			s.prompt(fmt.Sprintf("result.prompts[%d]", i), p)
		}
		s.paginated(res, "ListPromptsResult")
	case "prompts/get":
		s.str(rowResult, "result", res, "description", false, "GetPromptResult.description?: string")
		for i, m := range s.array(rowResult, "result", res, "messages", true, "GetPromptResult.messages: PromptMessage[]") {
			path := fmt.Sprintf("result.messages[%d]", i)
			msg, ok := m.(map[string]any)
			if !ok {
				s.bad(rowResult, path, m, "an object", "PromptMessage")
				continue
			}
			if r, _ := msg["role"].(string); r != "user" && r != "assistant" {
				s.bad(rowResult, path+".role", msg["role"], `"user" or "assistant"`, "PromptMessage.role: Role")
			}
			if c, ok := msg["content"]; ok {
				s.content(path+".content", c)
			} else {
				s.add(rowContent, path+": no content (PromptMessage.content: ContentBlock)")
			}
		}
	}
}

func (s *shaper) add(row, msg string) {
	s.w.add(row, fmt.Sprintf("%s %s: %s", s.rev, s.method, msg))
}

// bad files "path is <what it is>, want <want> (schema.ts <rev> <rule>)".
func (s *shaper) bad(row, path string, got any, want, rule string) {
	s.add(row, fmt.Sprintf("%s is %s, want %s (schema.ts %s %s)", path, kind(got), want, s.rev, rule))
}

func (s *shaper) missing(row, path, member, rule string) {
	s.add(row, fmt.Sprintf("%s has no %s (schema.ts %s %s)", path, member, s.rev, rule))
}

// kind says what a decoded JSON value is, with a glimpse of it.
func kind(v any) string {
	b, _ := json.Marshal(v)
	glimpse := truncate(b)
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean (" + glimpse + ")"
	case string:
		return "a string (" + glimpse + ")"
	case json.Number:
		return "a number (" + glimpse + ")"
	case []any:
		return "an array (" + glimpse + ")"
	case map[string]any:
		return "an object (" + glimpse + ")"
	}
	return fmt.Sprintf("%T", v)
}

func (s *shaper) member(row, path string, m map[string]any, key string, required bool, rule string) (any, bool) {
	v, ok := m[key]
	if !ok {
		if required {
			s.missing(row, path, key, rule)
		}
		return nil, false
	}
	return v, true
}

func (s *shaper) str(row, path string, m map[string]any, key string, required bool, rule string) (string, bool) {
	v, ok := s.member(row, path, m, key, required, rule)
	if !ok {
		return "", false
	}
	str, isStr := v.(string)
	if !isStr {
		s.bad(row, path+"."+key, v, "a string", rule)
	}
	return str, isStr
}

func (s *shaper) boolean(row, path string, m map[string]any, key string, required bool, rule string) {
	if v, ok := s.member(row, path, m, key, required, rule); ok {
		if _, isBool := v.(bool); !isBool {
			s.bad(row, path+"."+key, v, "a boolean", rule)
		}
	}
}

func (s *shaper) number(row, path string, m map[string]any, key string, required bool, rule string) (float64, bool) {
	v, ok := s.member(row, path, m, key, required, rule)
	if !ok {
		return 0, false
	}
	n, isNum := v.(json.Number)
	if !isNum {
		s.bad(row, path+"."+key, v, "a number", rule)
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func (s *shaper) object(row, path string, m map[string]any, key string, required bool, rule string) map[string]any {
	v, ok := s.member(row, path, m, key, required, rule)
	if !ok {
		return nil
	}
	o, isObj := v.(map[string]any)
	if !isObj {
		s.bad(row, path+"."+key, v, "an object", rule)
	}
	return o
}

func (s *shaper) array(row, path string, m map[string]any, key string, required bool, rule string) []any {
	v, ok := s.member(row, path, m, key, required, rule)
	if !ok {
		return nil
	}
	a, isArr := v.([]any)
	if !isArr {
		s.bad(row, path+"."+key, v, "an array", rule)
	}
	return a
}

func (s *shaper) strArray(row, path string, m map[string]any, key string, required bool, rule string) {
	for i, v := range s.array(row, path, m, key, required, rule) {
		if _, ok := v.(string); !ok {
			s.bad(row, fmt.Sprintf("%s.%s[%d]", path, key, i), v, "a string", rule)
		}
	}
}

func (s *shaper) paginated(res map[string]any, typ string) {
	s.str(rowResult, "result", res, "nextCursor", false, "PaginatedResult.nextCursor?: Cursor (a string)")
	if s.modern {
		s.cacheable(res, typ)
	}
}

// cacheable checks the member types of a CacheableResult; the values
// (an integer >= 0, one scope per list) are 2026-07-28/lists' and
// 2026-07-28/discover's.
func (s *shaper) cacheable(res map[string]any, typ string) {
	s.number(rowResult, "result", res, "ttlMs", true, typ+" (CacheableResult).ttlMs: number")
	s.str(rowResult, "result", res, "cacheScope", true, typ+` (CacheableResult).cacheScope: "public" | "private"`)
}

func (s *shaper) inputRequired(res map[string]any) {
	s.str(rowResult, "result", res, "requestState", false, "InputRequiredResult.requestState?: string")
	reqs := s.object(rowResult, "result", res, "inputRequests", false, "InputRequiredResult.inputRequests?: InputRequests")
	for k, v := range reqs {
		path := "result.inputRequests[" + k + "]"
		m, ok := v.(map[string]any)
		if !ok {
			s.bad(rowResult, path, v, "an object", "InputRequests: { [key: string]: InputRequest }")
			continue
		}
		s.str(rowResult, path, m, "method", true, "InputRequest.method: string")
		s.object(rowResult, path, m, "params", false, "InputRequest.params?: object")
	}
}

// metaKey is the grammar of a _meta key (MetaObject): an optional prefix
// of dot-separated labels (a letter first, a letter or digit last,
// letters, digits and hyphens between) and a slash, then a name that is
// empty or starts and ends with a letter or digit (letters, digits, '-',
// '_' and '.' between).
var metaKey = regexp.MustCompile(`^(?:[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)

// meta checks the _meta member of m, when present: an object (2025-03-26
// has _meta only on results), keys of the grammar (2025-06-18 and
// later), and on a 2026-07-28 result its serverInfo an Implementation.
func (s *shaper) meta(row, path string, m map[string]any, result bool) {
	v, ok := m["_meta"]
	if !ok {
		return
	}
	o, isObj := v.(map[string]any)
	if !isObj {
		s.bad(row, path, v, "an object", "MetaObject: { [key: string]: unknown }")
		return
	}
	if s.rev.Compare(mcp.Version20250618) >= 0 {
		for k := range o {
			if !metaKey.MatchString(k) {
				s.add(row, fmt.Sprintf("%s key %q breaks the key grammar (schema.ts %s MetaObject: an optional prefix of dot-separated labels and '/', a name that starts and ends with a letter or digit)", path, k, s.rev))
			}
		}
	}
	if result && s.modern {
		if info, ok := o["io.modelcontextprotocol/serverInfo"]; ok {
			s.implementation(path+`["io.modelcontextprotocol/serverInfo"]`, info, true, "ResultMetaObject[\"io.modelcontextprotocol/serverInfo\"]?: Implementation")
		}
	}
}

func (s *shaper) implementation(path string, v any, required bool, rule string) {
	if v == nil && !required {
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			s.add(rowResult, fmt.Sprintf("%s is missing (schema.ts %s %s)", path, s.rev, rule))
			return
		}
		s.bad(rowResult, path, v, "an object", rule)
		return
	}
	s.str(rowResult, path, m, "name", true, "Implementation.name: string")
	s.str(rowResult, path, m, "version", true, "Implementation.version: string")
	s.str(rowResult, path, m, "title", false, "Implementation.title?: string")
	s.icons(rowResult, path, m)
}

func (s *shaper) icons(row, path string, m map[string]any) {
	for i, ic := range s.array(row, path, m, "icons", false, "Icons.icons?: Icon[]") {
		p := fmt.Sprintf("%s.icons[%d]", path, i)
		o, ok := ic.(map[string]any)
		if !ok {
			s.bad(row, p, ic, "an object", "Icon")
			continue
		}
		s.str(row, p, o, "src", true, "Icon.src: string")
		s.str(row, p, o, "mimeType", false, "Icon.mimeType?: string")
		s.strArray(row, p, o, "sizes", false, "Icon.sizes?: string[]")
		if t, ok := s.str(row, p, o, "theme", false, `Icon.theme?: "light" | "dark"`); ok && t != "light" && t != "dark" {
			s.bad(row, p+".theme", t, `"light" or "dark"`, `Icon.theme?: "light" | "dark"`)
		}
	}
}

func (s *shaper) annotations(row, path string, m map[string]any) {
	a := s.object(row, path, m, "annotations", false, "annotations?: Annotations")
	if a == nil {
		return
	}
	p := path + ".annotations"
	for i, r := range s.array(row, p, a, "audience", false, "Annotations.audience?: Role[]") {
		if r != "user" && r != "assistant" {
			s.bad(row, fmt.Sprintf("%s.audience[%d]", p, i), r, `"user" or "assistant"`, "Annotations.audience?: Role[]")
		}
	}
	if f, ok := s.number(row, p, a, "priority", false, "Annotations.priority?: number (0 to 1)"); ok && (f < 0 || f > 1) {
		s.add(row, fmt.Sprintf("%s.priority is %v, want 0 to 1 (schema.ts %s Annotations.priority)", p, f, s.rev))
	}
	s.str(row, p, a, "lastModified", false, "Annotations.lastModified?: string")
}

// content checks one ContentBlock.
func (s *shaper) content(path string, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		s.bad(rowContent, path, v, "an object", "ContentBlock")
		return
	}
	kinds := "text, image, audio, resource_link, resource"
	if s.rev.Compare(mcp.Version20250618) < 0 {
		kinds = "text, image, audio, resource" // resource_link came with 2025-06-18
	}
	t, ok := s.str(rowContent, path, m, "type", true, "ContentBlock: every block has a type ("+kinds+")")
	if !ok {
		return
	}
	s.annotations(rowContent, path, m)
	s.meta(rowContent, path+"._meta", m, false)
	switch {
	case t == "text":
		s.str(rowContent, path, m, "text", true, "TextContent.text: string")
	case t == "image" || t == "audio":
		typ := map[string]string{"image": "ImageContent", "audio": "AudioContent"}[t]
		s.str(rowContent, path, m, "data", true, typ+".data: string (base64)")
		s.str(rowContent, path, m, "mimeType", true, typ+".mimeType: string")
	case t == "resource_link" && strings.Contains(kinds, "resource_link"):
		s.resourceFields(rowContent, path, m, "uri", "ResourceLink")
	case t == "resource":
		r := s.object(rowContent, path, m, "resource", true, "EmbeddedResource.resource: TextResourceContents | BlobResourceContents")
		if r != nil {
			s.resourceContents(rowContent, path+".resource", r)
		}
	default:
		s.add(rowContent, fmt.Sprintf("%s.type is %q, not a %s content block (schema.ts %s ContentBlock: %s)", path, t, s.rev, s.rev, kinds))
	}
}

func (s *shaper) resourceContents(row, path string, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		s.bad(row, path, v, "an object", "TextResourceContents | BlobResourceContents")
		return
	}
	s.str(row, path, m, "uri", true, "ResourceContents.uri: string")
	s.str(row, path, m, "mimeType", false, "ResourceContents.mimeType?: string")
	s.meta(row, path+"._meta", m, false)
	_, text := m["text"]
	_, blob := m["blob"]
	switch {
	case text:
		s.str(row, path, m, "text", true, "TextResourceContents.text: string")
	case blob:
		s.str(row, path, m, "blob", true, "BlobResourceContents.blob: string (base64)")
	default:
		s.add(row, fmt.Sprintf("%s has neither text nor blob (schema.ts %s TextResourceContents.text: string | BlobResourceContents.blob: string)", path, s.rev))
	}
}

func (s *shaper) resource(path string, v any, id, typ string) {
	m, ok := v.(map[string]any)
	if !ok {
		s.bad(rowResult, path, v, "an object", typ)
		return
	}
	s.resourceFields(rowResult, path, m, id, typ)
}

// resourceFields checks the members of a Resource (uri), a
// ResourceTemplate (uriTemplate) or a ResourceLink.
func (s *shaper) resourceFields(row, path string, m map[string]any, id, typ string) {
	s.str(row, path, m, id, true, typ+"."+id+": string")
	s.str(row, path, m, "name", true, "BaseMetadata.name: string")
	s.str(row, path, m, "title", false, "BaseMetadata.title?: string")
	s.str(row, path, m, "description", false, typ+".description?: string")
	s.str(row, path, m, "mimeType", false, typ+".mimeType?: string")
	if id == "uri" {
		s.number(row, path, m, "size", false, typ+".size?: number")
	}
	s.annotations(row, path, m)
	s.meta(row, path+"._meta", m, false)
	s.icons(row, path, m)
}

func (s *shaper) prompt(path string, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		s.bad(rowResult, path, v, "an object", "Prompt")
		return
	}
	s.str(rowResult, path, m, "name", true, "BaseMetadata.name: string")
	s.str(rowResult, path, m, "title", false, "BaseMetadata.title?: string")
	s.str(rowResult, path, m, "description", false, "Prompt.description?: string")
	s.meta(rowResult, path+"._meta", m, false)
	s.icons(rowResult, path, m)
	for i, a := range s.array(rowResult, path, m, "arguments", false, "Prompt.arguments?: PromptArgument[]") {
		p := fmt.Sprintf("%s.arguments[%d]", path, i)
		am, ok := a.(map[string]any)
		if !ok {
			s.bad(rowResult, p, a, "an object", "PromptArgument")
			continue
		}
		s.str(rowResult, p, am, "name", true, "PromptArgument.name: string")
		s.str(rowResult, p, am, "description", false, "PromptArgument.description?: string")
		s.boolean(rowResult, p, am, "required", false, "PromptArgument.required?: boolean")
	}
}

// tool checks one Tool definition.
func (s *shaper) tool(path string, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		s.bad(rowTool, path, v, "an object", "Tool")
		return
	}
	name, _ := s.str(rowTool, path, m, "name", true, "BaseMetadata.name: string")
	if name != "" {
		path = fmt.Sprintf("%s (%q)", path, name)
	}
	s.str(rowTool, path, m, "title", false, "BaseMetadata.title?: string")
	s.str(rowTool, path, m, "description", false, "Tool.description?: string")
	s.meta(rowTool, path+"._meta", m, false)
	s.icons(rowTool, path, m)
	if a := s.object(rowTool, path, m, "annotations", false, "Tool.annotations?: ToolAnnotations"); a != nil {
		s.str(rowTool, path+".annotations", a, "title", false, "ToolAnnotations.title?: string")
		for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			s.boolean(rowTool, path+".annotations", a, k, false, "ToolAnnotations."+k+"?: boolean")
		}
	}
	in := s.object(rowTool, path, m, "inputSchema", true, `Tool.inputSchema: {type: "object", ...}`)
	if in != nil {
		s.schemaRoot(path+".inputSchema", in, "inputSchema", true)
	}
	if out := s.object(rowTool, path, m, "outputSchema", false, "Tool.outputSchema?: object"); out != nil {
		// 2025 revisions type outputSchema as an object schema of type
		// object; 2026-07-28 lets it be any schema object.
		s.schemaRoot(path+".outputSchema", out, "outputSchema", !s.modern)
	}
}

// schemaRoot checks a tool's inputSchema or outputSchema: type "object"
// where the revision says so, $schema a string, required a list of
// strings, and every subschema an object.
func (s *shaper) schemaRoot(path string, sch map[string]any, member string, wantObject bool) {
	if wantObject && sch["type"] != "object" {
		s.bad(rowTool, path+".type", sch["type"], `"object"`, "Tool."+member+`: {type: "object", ...}`)
	}
	s.str(rowTool, path, sch, "$schema", false, "Tool."+member+".$schema?: string")
	s.strArray(rowTool, path, sch, "required", false, "Tool."+member+".required?: string[]")
	budget := 10000
	s.subschemas(path, sch, member, 0, &budget)
}

// subschemas checks that every subschema in the places clients read as
// schema objects is an object: the values of properties,
// patternProperties, $defs and definitions, items (or each of its
// members, in the array form), and the members of allOf, anyOf, oneOf and
// prefixItems. 2025-03-26 to 2025-11-25 type a property schema as object
// ({ [key: string]: object }) and the TypeScript SDK's client refuses a
// list that breaks it; a boolean there is valid JSON Schema 2020-12 but
// not an MCP tool definition. additionalProperties: false stays allowed.
// It recurses through every object subschema, bounded in depth and
// count.
func (s *shaper) subschemas(path string, sch map[string]any, member string, depth int, budget *int) {
	if depth > 64 || *budget <= 0 {
		return
	}
	*budget--
	rule := "Tool." + member + ".properties: { [key: string]: object }, and every subschema clients read as a schema object"
	if s.modern {
		// 2026-07-28 leaves the subschemas untyped; its clients read the
		// same lists as the earlier revisions', which type them.
		rule = "Tool." + member + ": its subschemas are schema objects, as 2025-03-26 to 2025-11-25 type Tool.inputSchema.properties ({ [key: string]: object }) and clients read them"
	}
	need := func(p string, v any) {
		o, ok := v.(map[string]any)
		if !ok {
			s.bad(rowTool, p, v, "a schema object (a boolean schema is not one)", rule)
			return
		}
		s.subschemas(p, o, member, depth+1, budget)
	}
	for _, kw := range []string{"properties", "patternProperties", "$defs", "definitions"} {
		v, ok := sch[kw]
		if !ok {
			continue
		}
		m, isObj := v.(map[string]any)
		if !isObj {
			s.bad(rowTool, path+"."+kw, v, "an object", rule)
			continue
		}
		for _, k := range sortedKeys(m) {
			need(path+"."+kw+"."+k, m[k])
		}
	}
	if v, ok := sch["items"]; ok {
		if arr, isArr := v.([]any); isArr {
			for i, it := range arr {
				need(fmt.Sprintf("%s.items[%d]", path, i), it)
			}
		} else {
			need(path+".items", v)
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
		v, ok := sch[kw]
		if !ok {
			continue
		}
		arr, isArr := v.([]any)
		if !isArr {
			s.bad(rowTool, path+"."+kw, v, "an array of schema objects", rule)
			continue
		}
		for i, it := range arr {
			need(fmt.Sprintf("%s.%s[%d]", path, kw, i), it)
		}
	}
	// Elsewhere a boolean is allowed (additionalProperties: false), and an
	// object is searched for the places above.
	for _, kw := range []string{"additionalProperties", "unevaluatedProperties", "unevaluatedItems", "additionalItems", "contains", "not", "if", "then", "else", "propertyNames"} {
		if o, ok := sch[kw].(map[string]any); ok {
			s.subschemas(path+"."+kw, o, member, depth+1, budget)
		}
	}
	if ds, ok := sch["dependentSchemas"].(map[string]any); ok {
		for _, k := range sortedKeys(ds) {
			if o, ok := ds[k].(map[string]any); ok {
				s.subschemas(path+".dependentSchemas."+k, o, member, depth+1, budget)
			}
		}
	}
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
