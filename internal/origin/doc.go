// Package origin holds the endpoint's Host and Origin allow-lists: exact
// entries compared after normalizing (lowercased scheme and host, the
// scheme's default port dropped), or any port on a loopback name, which
// is what local development needs and what DNS rebinding cannot reach.
package origin
