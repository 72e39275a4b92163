package era2026

import (
	"errors"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/mcp"
)

var metaKeys = []string{mcp.MetaProtocolVersion, mcp.MetaClientCapabilities, mcp.MetaClientInfo, mcp.MetaLogLevel, "progressToken"}

var paramKeys = []string{"_meta", "name", "arguments", "uri", "cursor", "requestState", "inputResponses"}

// checkMeta validates the per-request envelope: clientCapabilities is
// required and must be an object; clientInfo is optional; a logLevel must
// be a known level.
func checkMeta(req *mcp.Request) error {
	if got, want, found := mcp.CaseVariant(req.Params(), paramKeys...); found {
		return mcp.Reject(mcp.CodeInvalidParams, "Invalid params: member "+quote(got)+" differs from "+quote(want)+" only in case")
	}
	meta := req.Meta()
	if got, want, found := mcp.CaseVariant(meta, metaKeys...); found {
		return mcp.Reject(mcp.CodeInvalidParams, "Invalid params: _meta member "+quote(got)+" differs from "+quote(want)+" only in case")
	}
	caps, ok := mcp.Lookup(meta, mcp.MetaClientCapabilities)
	if !ok || len(caps) == 0 || caps[0] != '{' {
		return mcp.Reject(mcp.CodeInvalidParams, "Invalid params: _meta "+mcp.MetaClientCapabilities+" is required and must be an object").
			WithData(map[string][]string{"missing": {"_meta." + mcp.MetaClientCapabilities}})
	}
	req.SetClientCapabilities(caps)
	if info, ok := mcp.Lookup(meta, mcp.MetaClientInfo); ok && (len(info) == 0 || info[0] != '{') {
		return mcp.Reject(mcp.CodeInvalidParams, "Invalid params: _meta "+mcp.MetaClientInfo+" must be an object")
	}
	if lv, ok := mcp.Lookup(meta, mcp.MetaLogLevel); ok {
		if s, isStr := mcp.String(lv); !isStr || !mcp.IsLogLevel(s) {
			return mcp.Reject(mcp.CodeInvalidParams, "Invalid params: _meta "+mcp.MetaLogLevel+" is not a log level")
		}
	}
	return nil
}

// checkHeader compares a header that must repeat want exactly.
func checkHeader(req *mcp.Request, name, want string) error {
	v, err := headers.Get(req.HTTP().Header, name)
	if err != nil {
		return mismatch(name, reasonOf(err), name+" header "+err.Error())
	}
	if v != want {
		return mismatch(name, "mismatch", name+" header does not match the body")
	}
	return nil
}

// checkName compares Mcp-Name with params.name (params.uri for
// resources/read) after sentinel decoding and returns it.
func checkName(req *mcp.Request, member string) (string, error) {
	raw, ok := req.Param(member)
	name, isStr := mcp.String(raw)
	if !ok || !isStr {
		return "", mcp.Reject(mcp.CodeInvalidParams, "Invalid params: "+member+" must be a string")
	}
	v, err := headers.Get(req.HTTP().Header, headers.Name)
	if err != nil {
		return "", mismatch(headers.Name, reasonOf(err), "Mcp-Name header "+err.Error())
	}
	dec, err := headers.Decode(v)
	if err != nil {
		return "", mismatch(headers.Name, reasonOf(err), "Mcp-Name header has "+err.Error())
	}
	if dec != name {
		return "", mismatch(headers.Name, "mismatch", "Mcp-Name header does not match params."+member)
	}
	return name, nil
}

// checkParams compares every Mcp-Param-* header the tool declares with the
// argument it mirrors. An unknown tool is left to dispatch (-32602).
func checkParams(req *mcp.Request, name string) error {
	params, ok := req.Server().HeaderParams(req, name)
	if !ok || len(params) == 0 {
		return nil
	}
	args, _ := req.Param("arguments")
	for _, p := range params {
		val, present := lookupPath(args, p.Path)
		present = present && string(val) != "null"
		hv, err := headers.Get(req.HTTP().Header, p.Header)
		switch {
		case errors.Is(err, headers.ErrMissing) && !present:
			continue
		case errors.Is(err, headers.ErrMissing):
			return mismatch(p.Header, "missing", p.Header+" header is required when the argument is present")
		case err != nil:
			return mismatch(p.Header, reasonOf(err), p.Header+" header "+err.Error())
		case !present:
			return mismatch(p.Header, "mismatch", p.Header+" header sent for an absent argument")
		}
		dec, err := headers.Decode(hv)
		if err != nil {
			return mismatch(p.Header, reasonOf(err), p.Header+" header has "+err.Error())
		}
		if !headers.Match(dec, val) {
			return mismatch(p.Header, "mismatch", p.Header+" header does not match the argument")
		}
	}
	return nil
}

func lookupPath(obj []byte, path []string) ([]byte, bool) {
	cur := obj
	for _, k := range path {
		if len(cur) == 0 || cur[0] != '{' {
			return nil, false
		}
		v, ok := mcp.Lookup(cur, k)
		if !ok {
			return nil, false
		}
		cur = v
	}
	return cur, true
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

func mismatch(header, reason, detail string) error { return mcp.HeaderMismatch(header, reason, detail) }

func quote(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	b := []byte{'"'}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b = append(b, c)
		} else {
			b = append(b, '?')
		}
	}
	return string(append(b, '"'))
}
