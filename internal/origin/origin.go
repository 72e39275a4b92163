package origin

import (
	"net"
	"net/url"
	"strings"
)

// List is an exact allow-list of hosts or origins. Entries match
// exactly (lowercased); loopback mode instead admits any port on a
// loopback name, which is what local development needs and no remote
// page can reach through DNS rebinding.
type List struct {
	any      bool
	loopback bool
	exact    map[string]bool
}

// Loopback is the default for both lists.
func Loopback() List { return List{loopback: true} }

// Normalize returns the serialized origin scheme://host[:port] with
// scheme and host lowercased and the scheme's default port dropped; ok is
// false for anything that is not an http or https origin.
func Normalize(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || u.ForceQuery {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if (scheme != "http" && scheme != "https") || host == "" {
		return "", false
	}
	port := u.Port()
	if port == "" && strings.HasSuffix(u.Host, ":") {
		return "", false
	}
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, true
}

// Hosts is the list of exact host[:port] entries ("*": any). It panics on
// an empty entry or one with white space or a slash, as a misconfigured
// handler option must.
func Hosts(entries []string) List {
	l := List{exact: map[string]bool{}}
	for _, e := range entries {
		if e == "*" {
			l.any = true
			continue
		}
		// A URL ("https://api.example.com") is refused like any entry with
		// a slash: no Host header holds a scheme, so it would match
		// nothing and every request would be 403.
		if e == "" || strings.ContainsAny(e, " \t\r\n/") {
			panic("mcp: invalid allow-list entry " + e + ": a Host is host[:port], without scheme or path")
		}
		l.exact[strings.ToLower(e)] = true
	}
	return l
}

func isLoopbackName(host string) bool {
	switch strings.ToLower(host) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Origins is the list of exact origins ("*": any); bad is the first entry
// that is not an http or https origin ("" when every one is).
func Origins(entries []string) (l List, bad string) {
	l = List{exact: map[string]bool{}}
	for _, o := range entries {
		if o == "*" {
			l.any = true
			continue
		}
		n, ok := Normalize(strings.TrimSuffix(o, "/"))
		if !ok {
			return List{}, o
		}
		l.exact[n] = true
	}
	return l, ""
}

// AllowHost reports whether a request's Host is admitted.
func (l List) AllowHost(hostport string) bool {
	if l.any {
		return true
	}
	if l.loopback {
		host := hostport
		if strings.LastIndexByte(hostport, ':') > strings.LastIndexByte(hostport, ']') {
			if h, _, err := net.SplitHostPort(hostport); err == nil {
				host = h
			}
		}
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		return isLoopbackName(host)
	}
	return l.exact[strings.ToLower(hostport)]
}

// AllowOrigin reports whether an Origin header's value is admitted.
func (l List) AllowOrigin(origin string) bool {
	if l.any {
		return true
	}
	n, ok := Normalize(origin)
	if !ok {
		return false
	}
	if l.loopback {
		u, _ := url.Parse(n)
		return isLoopbackName(u.Hostname())
	}
	return l.exact[n]
}
