package redisstore

import (
	"errors"
	"net/url"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ParseURL reads a redis://, rediss:// or unix:// URL into client options,
// like redis.ParseURL, with ContextTimeoutEnabled set (see the package
// comment). Unlike redis.ParseURL, its error never quotes the URL, so it is
// safe to log even when the URL carries a password. A URL with a fragment
// ("#") is refused: Redis URLs have none, so a "#" is a password's
// character left unescaped (write it %23), and taking the rest as a
// fragment would connect elsewhere, without the password. So is a
// negative database number.
func ParseURL(rawURL string) (*redis.Options, error) {
	if strings.ContainsRune(rawURL, '#') {
		return nil, errors.New("redisstore: the Redis URL has a \"#\"; escape it as %23 in a password")
	}
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		// net/url's errors quote the whole URL, and their causes can quote
		// part of the password (an invalid escape).
		if _, ok := errors.AsType[*url.Error](err); ok {
			return nil, errors.New("redisstore: the Redis URL does not parse")
		}
		return nil, errors.New("redisstore: " + withoutQuote(err.Error()))
	}
	if opt.DB < 0 {
		// go-redis selects a database only when its number is positive:
		// "/-1" would share database 0 with whatever uses it.
		return nil, errors.New("redisstore: the Redis URL's database number is negative")
	}
	opt.ContextTimeoutEnabled = true
	return opt, nil
}

// withoutQuote keeps what go-redis's error names (the database, the path,
// the scheme, an option's kind) and drops what it quotes of the URL after
// the colon: a password with an unescaped "/" or "?" ends the authority
// early, and its rest then reads as the path, the database or a query
// option ("redis://u:/pass@host" has the path "/pass@host"). The names
// kept ("invalid dial_timeout duration") are go-redis's own, never the
// URL's.
func withoutQuote(msg string) string {
	rest, ok := strings.CutPrefix(msg, "redis: ")
	if !ok {
		return "the Redis URL does not parse"
	}
	kind, _, _ := strings.Cut(rest, ":")
	return "redis: " + kind
}
