package era2026

import (
	"bytes"
	"errors"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/protocol"
)

// The params._meta keys of this revision.
const (
	metaProtocolVersion    = seam.MetaProtocolVersion
	metaClientCapabilities = seam.MetaClientCapabilities
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaLogLevel           = seam.MetaLogLevel
)

var metaKeys = []string{metaProtocolVersion, metaClientCapabilities, metaClientInfo, metaLogLevel, "progressToken"}

var paramKeys = []string{"_meta", "name", "arguments", "uri", "cursor", "requestState", "inputResponses"}

// namedVersion is the revision params._meta names, if it names one, which
// MCP-Protocol-Version must repeat (a local message has no headers: _meta
// alone names it).
func namedVersion(req *seam.Request) (string, bool, error) {
	claim, ok := req.MetaParam(metaProtocolVersion)
	if !ok {
		return "", false, nil
	}
	v, isStr := versionString(claim)
	if !isStr {
		return "", false, seam.InvalidParams("Invalid params: _meta "+metaProtocolVersion+" must be a string", nil)
	}
	hv, err := headers.Get(req.HTTP.Header, headers.ProtocolVersion)
	switch {
	case err == headers.ErrMissing && req.Local:
	case err == headers.ErrMissing:
		return "", false, seam.HeaderMismatch(headers.ProtocolVersion, "missing", "MCP-Protocol-Version header is required")
	case hv != v:
		return "", false, seam.HeaderMismatch(headers.ProtocolVersion, "mismatch", "MCP-Protocol-Version does not match _meta "+metaProtocolVersion)
	}
	return v, true, nil
}

// versionString decodes the revision a request names; a known one, as
// sent every time, is returned without copying it.
func versionString(raw []byte) (string, bool) {
	if len(raw) == len(protocol.Version20260728)+2 && raw[0] == '"' {
		for _, v := range [...]protocol.Version{protocol.Version20260728, protocol.Version20251125, protocol.Version20250618, protocol.Version20250326} {
			if string(raw[1:len(raw)-1]) == string(v) {
				return string(v), true
			}
		}
	}
	return jsonrpc.String(raw)
}

// unnamed refuses a request that names this revision only in
// MCP-Protocol-Version.
func unnamed(version string) error {
	return seam.InvalidParams("Invalid params: revision "+version+" requires params._meta with "+metaProtocolVersion+" and "+metaClientCapabilities,
		map[string][]string{"missing": {"_meta." + metaProtocolVersion}})
}

// checkEnvelope validates what every request carries before its method is
// looked up: the per-request envelope (clientCapabilities is required and
// must be an object; clientInfo is optional; a logLevel must be a known
// level) and Mcp-Method. It returns the declared capabilities.
func checkEnvelope(req *seam.Request) ([]byte, error) {
	if got, want, found := req.CaseVariant(false, paramKeys); found {
		return nil, seam.InvalidParams("Invalid params: member "+jsonrpc.QuoteName(got)+" differs from "+jsonrpc.QuoteName(want)+" only in case", nil)
	}
	if got, want, found := req.CaseVariant(true, metaKeys); found {
		return nil, seam.InvalidParams("Invalid params: _meta member "+jsonrpc.QuoteName(got)+" differs from "+jsonrpc.QuoteName(want)+" only in case", nil)
	}
	caps, ok := req.MetaParam(metaClientCapabilities)
	if !ok || len(caps) == 0 || caps[0] != '{' {
		return nil, seam.InvalidParams("Invalid params: _meta "+metaClientCapabilities+" is required and must be an object",
			map[string][]string{"missing": {"_meta." + metaClientCapabilities}})
	}
	if info, ok := req.MetaParam(metaClientInfo); ok && (len(info) == 0 || info[0] != '{') {
		return nil, seam.InvalidParams("Invalid params: _meta "+metaClientInfo+" must be an object", nil)
	}
	if lv, ok := req.MetaParam(metaLogLevel); ok {
		s, isStr := jsonrpc.String(lv)
		if _, known := seam.LogLevels[s]; !isStr || !known {
			return nil, seam.InvalidParams("Invalid params: _meta "+metaLogLevel+" is not a log level", nil)
		}
	}
	if req.Local {
		return caps, nil // no headers: the body is all there is
	}
	if err := checkHeader(req, headers.Method, req.Name); err != nil {
		return nil, err
	}
	return caps, nil
}

// checkTarget checks the routing headers of a known method: Mcp-Name
// against the member its row names, and the Mcp-Param-* headers of a
// method whose arguments they mirror.
func checkTarget(req *seam.Request) error {
	m := req.Method
	if m.Member == "" || req.Local {
		return nil
	}
	name, err := checkName(req, m.Member)
	if err != nil || !m.Arguments {
		return err
	}
	return checkParams(req, name)
}

// checkHeader compares a header that must repeat want exactly.
func checkHeader(req *seam.Request, name, want string) error {
	v, err := headers.Get(req.HTTP.Header, name)
	if err != nil {
		return seam.HeaderMismatch(name, reasonOf(err), name+" header "+err.Error())
	}
	if v != want {
		return seam.HeaderMismatch(name, "mismatch", name+" header does not match the body")
	}
	return nil
}

// checkName compares Mcp-Name with params.<member> after sentinel
// decoding and returns it.
func checkName(req *seam.Request, member string) (string, error) {
	raw, ok := req.Param(member)
	if !ok || len(raw) < 2 || raw[0] != '"' {
		return "", seam.InvalidParams("Invalid params: "+member+" must be a string", nil)
	}
	v, err := headers.Get(req.HTTP.Header, headers.Name)
	if err != nil {
		return "", seam.HeaderMismatch(headers.Name, reasonOf(err), "Mcp-Name header "+err.Error())
	}
	dec, err := headers.Decode(v)
	if err != nil {
		return "", seam.HeaderMismatch(headers.Name, reasonOf(err), "Mcp-Name header has "+err.Error())
	}
	// Compared without copying the name out of the body when it has no
	// escapes; the header's decoded value then is the name.
	same := false
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
		same = dec == string(inner)
	} else {
		name, _ := jsonrpc.String(raw)
		same = dec == name
	}
	if !same {
		return "", seam.HeaderMismatch(headers.Name, "mismatch", "Mcp-Name header does not match params."+member)
	}
	return dec, nil
}

// checkParams compares every Mcp-Param-* header the tool declares with the
// argument it mirrors. An unknown tool is left to dispatch (-32602).
func checkParams(req *seam.Request, name string) error {
	params, ok := req.Core.HeaderParams(name)
	if !ok || len(params) == 0 {
		return nil
	}
	args, _ := req.Param("arguments")
	for _, p := range params {
		val, present, imitation := lookupPath(args, p.Path)
		if imitation != "" {
			return seam.HeaderMismatch(p.Header, "ambiguous", "arguments member "+jsonrpc.QuoteName(imitation)+
				" differs from "+jsonrpc.QuoteName(p.Path[len(p.Path)-1])+", which "+p.Header+" mirrors, only in case: a decoder behind the tool may take either")
		}
		present = present && string(val) != "null"
		hv, err := headers.Get(req.HTTP.Header, p.Header)
		switch {
		case errors.Is(err, headers.ErrMissing) && !present:
			continue
		case errors.Is(err, headers.ErrMissing):
			return seam.HeaderMismatch(p.Header, "missing", p.Header+" header is required when the argument is present")
		case err != nil:
			return seam.HeaderMismatch(p.Header, reasonOf(err), p.Header+" header "+err.Error())
		case !present:
			return seam.HeaderMismatch(p.Header, "mismatch", p.Header+" header sent for an absent argument")
		}
		dec, err := headers.Decode(hv)
		if err != nil {
			return seam.HeaderMismatch(p.Header, reasonOf(err), p.Header+" header has "+err.Error())
		}
		if !headers.Match(dec, val) {
			return seam.HeaderMismatch(p.Header, "mismatch", p.Header+" header does not match the argument")
		}
	}
	return nil
}

// lookupPath returns the value at path in obj. imitation is a member on
// the way that differs from the path's name only in case, Unicode's
// included (ſ for s, the Kelvin sign for k): encoding/json matches names
// so, and the last one wins, so a tool decoding its arguments with it
// could act on that member rather than the one the header was checked
// against.
func lookupPath(obj []byte, path []string) (val []byte, present bool, imitation string) {
	cur := obj
	for _, k := range path {
		if len(cur) == 0 || cur[0] != '{' {
			return nil, false, ""
		}
		it := jsonrpc.NewIter(cur)
		var next []byte
		found := false
		for {
			name, v, ok := it.Next()
			if !ok {
				break
			}
			switch {
			case string(name) == k:
				next, found = v, true
			case bytes.EqualFold(name, []byte(k)):
				return nil, false, string(name)
			}
		}
		if !found {
			return nil, false, ""
		}
		cur = next
	}
	return cur, true, ""
}

func reasonOf(err error) string {
	switch {
	case errors.Is(err, headers.ErrMissing):
		return "missing"
	case errors.Is(err, headers.ErrDuplicate):
		return "duplicate"
	case errors.Is(err, headers.ErrInvalid):
		return "invalid_chars"
	case errors.Is(err, headers.ErrEncoding):
		return "bad_encoding"
	}
	return "mismatch"
}
