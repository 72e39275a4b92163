package mcp

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// allowList is an exact allow-list of hosts or origins. Entries match
// exactly (lowercased); loopback mode instead admits any port on a
// loopback name, which is what local development needs and no remote
// page can reach through DNS rebinding.
type allowList struct {
	any      bool
	loopback bool
	exact    map[string]bool
}

// loopbackOnly is the default for both lists.
func loopbackOnly() allowList { return allowList{loopback: true} }

// WithAllowedHosts replaces the default Host allow-list (loopback names on
// any port) with exact host[:port] values, such as "api.example.com" or
// "mcp.example.com:8443". "*" admits any Host; use it only behind a proxy
// that checks Host itself. A request with another Host is answered 403: the
// check defeats DNS rebinding.
func WithAllowedHosts(hosts ...string) HandlerOption {
	l := newAllowList(hosts)
	return handlerOptionFunc(func(c *handlerConfig) { c.hosts = l })
}

// WithAllowedOrigins replaces the default Origin allow-list (http and https
// origins on loopback names, any port) with exact origins such as
// "https://app.example.com": scheme, host and port must all match, after
// lowercasing scheme and host and dropping a default port (so
// "HTTPS://App.example.com:443" is that origin, and ":8443" is another).
// Requests without Origin (non-browser clients) are always admitted;
// "null", a duplicated Origin, an unparsable one or one not listed is 403.
// It panics on an entry that is not an http or https origin.
func WithAllowedOrigins(origins ...string) HandlerOption {
	l := allowList{exact: map[string]bool{}}
	for _, o := range origins {
		if o == "*" {
			l.any = true
			continue
		}
		n, ok := normalizeOrigin(strings.TrimSuffix(o, "/"))
		if !ok {
			panic("mcp: invalid origin " + o)
		}
		l.exact[n] = true
	}
	return handlerOptionFunc(func(c *handlerConfig) { c.origins = l })
}

// normalizeOrigin returns the serialized origin scheme://host[:port] with
// scheme and host lowercased and the scheme's default port dropped; ok is
// false for anything that is not an http or https origin.
func normalizeOrigin(s string) (string, bool) {
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

func newAllowList(entries []string) allowList {
	l := allowList{exact: map[string]bool{}}
	for _, e := range entries {
		if e == "*" {
			l.any = true
			continue
		}
		if e == "" || strings.ContainsAny(e, " \t\r\n/") && !strings.Contains(e, "://") {
			panic("mcp: invalid allow-list entry " + e)
		}
		l.exact[strings.ToLower(strings.TrimSuffix(e, "/"))] = true
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

func (l allowList) allowHost(hostport string) bool {
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

func (l allowList) allowOrigin(origin string) bool {
	if l.any {
		return true
	}
	n, ok := normalizeOrigin(origin)
	if !ok {
		return false
	}
	if l.loopback {
		u, _ := url.Parse(n)
		return isLoopbackName(u.Hostname())
	}
	return l.exact[n]
}

func (h *Handler) checkOrigin(r *http.Request) *Error {
	if !h.cfg.hosts.allowHost(r.Host) {
		return httpError(http.StatusForbidden, codeForbidden, "Forbidden: host not allowed").
			WithData(map[string]string{"reason": "host_not_allowed"})
	}
	origins := r.Header.Values("Origin")
	if len(origins) == 0 {
		return nil
	}
	if len(origins) > 1 || origins[0] == "null" || !h.cfg.origins.allowOrigin(origins[0]) {
		return httpError(http.StatusForbidden, codeForbidden, "Forbidden: origin not allowed").
			WithData(map[string]string{"reason": "origin_not_allowed"})
	}
	return nil
}
