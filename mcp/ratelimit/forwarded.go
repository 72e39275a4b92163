package ratelimit

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/mcpdual/mcpdual/internal/httpsyntax"
)

// ForwardedFor returns a key function for mcp.WithClientRateLimit behind
// hops reverse proxies: the client's address as the outermost proxy saw
// it, read from X-Forwarded-For.
//
// Each proxy appends the address of its peer, so the entry the outermost
// of hops proxies added is the hops-th from the right, counted over every
// X-Forwarded-For line in order: a client can put anything to the left of
// it, in the same line or in lines of its own (a proxy such as HAProxy
// adds a new line rather than extending the client's), and nothing it
// sends there changes the key. The first line alone, which
// Header.Get returns, is the client's to choose.
//
// The header is read only from a peer (the RemoteAddr's address) inside
// proxies, the networks the nearest proxy connects from; a request from
// any other peer is keyed by the peer's own address. The same happens
// when the header holds fewer than hops entries (the request passed fewer
// proxies than configured, so the entries cannot all be vouched for) or
// the chosen entry is not an IP address ("unknown", an obfuscated name):
// such requests share the nearest proxy's budget rather than name their
// own. A key is an address alone, without its port (a client's ports are
// free to vary), IPv4-mapped IPv6 addresses as IPv4 and IPv6 without a
// zone, so one client has one key however it is written. ClientKey then
// groups IPv6 addresses by /64 (IPv6Prefix chooses another length).
//
// hops must be the number of proxies every request passes: with too many
// the key is a proxy's address, with too few it is an entry the client
// wrote. It panics unless hops is positive and proxies names at least one
// network (trusting every peer is explicit: 0.0.0.0/0 and ::/0).
func ForwardedFor(hops int, proxies ...netip.Prefix) func(*http.Request) string {
	return forwardedKey("ForwardedFor", "X-Forwarded-For", false, hops, proxies, forEntry)
}

// Forwarded is ForwardedFor for the Forwarded header (RFC 7239): the
// entry is the for= parameter of the hops-th element from the right,
// counted over every Forwarded line, with quoted values (`for="[2001:db8::1]:4711"`)
// read as the RFC writes them. An element without for=, or whose node
// is "unknown" or an obfuscated identifier, keys the request by its peer.
func Forwarded(hops int, proxies ...netip.Prefix) func(*http.Request) string {
	return forwardedKey("Forwarded", "Forwarded", true, hops, proxies, forwardedEntry)
}

// forwardedKey builds the key function both headers share; entry reads
// the address of one comma-separated element, and quotes says whether the
// header has quoted strings, whose commas separate nothing.
func forwardedKey(fn, header string, quotes bool, hops int, proxies []netip.Prefix, entry func(string) (netip.Addr, bool)) func(*http.Request) string {
	if hops <= 0 {
		panic("ratelimit: " + fn + " needs a positive number of proxies")
	}
	if len(proxies) == 0 {
		panic("ratelimit: " + fn + " needs the networks the nearest proxy connects from")
	}
	nets := make([]netip.Prefix, len(proxies))
	for i, p := range proxies {
		if !p.IsValid() {
			panic("ratelimit: " + fn + " was given an invalid network")
		}
		if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
			// Peers are compared unmapped, so their networks are too.
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		nets[i] = p.Masked()
	}
	header = http.CanonicalHeaderKey(header)
	return func(r *http.Request) string {
		peer, ok := addr(r.RemoteAddr)
		if !ok {
			return peerKey(r.RemoteAddr)
		}
		if !contains(nets, peer) {
			return peer.String()
		}
		e, ok := nth(r.Header[header], hops, quotes)
		if !ok {
			return peer.String()
		}
		client, ok := entry(e)
		if !ok {
			return peer.String()
		}
		return client.String()
	}
}

// peerKey is the key of a RemoteAddr that is not an address and port,
// as the endpoint's default key reads it.
func peerKey(remote string) string {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return host
	}
	return remote
}

func contains(nets []netip.Prefix, a netip.Addr) bool {
	for _, n := range nets {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// nth returns the n-th comma-separated element from the right, counted
// over every line in order. With quotes, a comma inside a quoted string
// separates nothing. The scan runs from the right, through what the
// proxies wrote first, so a quote a client leaves open further left
// cannot join their entries into one.
func nth(lines []string, n int, quotes bool) (string, bool) {
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		for {
			cut := lastComma(line, quotes)
			if n--; n == 0 {
				return line[cut+1:], true
			}
			if cut < 0 {
				break
			}
			line = line[:cut]
		}
	}
	return "", false
}

// lastComma returns the index of the last comma of s, outside quoted
// strings when quotes is set; -1 for none.
func lastComma(s string, quotes bool) int {
	if !quotes || !strings.Contains(s, `"`) {
		return strings.LastIndexByte(s, ',')
	}
	quoted := false
	for i := len(s) - 1; i >= 0; i-- {
		switch c := s[i]; {
		case c == '"' && (i == 0 || s[i-1] != '\\'):
			quoted = !quoted
		case c == ',' && !quoted:
			return i
		}
	}
	return -1
}

// forEntry reads an X-Forwarded-For entry: an address, with or without a
// port, IPv6 possibly in brackets.
func forEntry(e string) (netip.Addr, bool) {
	return addr(strings.Trim(e, " \t"))
}

// forwardedEntry reads the for= node of a Forwarded element.
func forwardedEntry(e string) (netip.Addr, bool) {
	for len(e) > 0 {
		var pair string
		pair, e = httpsyntax.CutUnquoted(e, ';')
		name, value, ok := strings.Cut(strings.Trim(pair, " \t"), "=")
		if !ok || !strings.EqualFold(name, "for") {
			continue
		}
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			value = unquote(value[1 : len(value)-1])
		}
		return addr(value)
	}
	return netip.Addr{}, false
}

// unquote undoes a quoted string's quoted pairs.
func unquote(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// addr reads an address, with or without a port, IPv6 possibly in
// brackets, as one form per client: IPv4-mapped addresses unmapped, no
// zone.
func addr(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = s[1 : len(s)-1]
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}
