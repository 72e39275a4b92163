package redisstore

import (
	"errors"
	"net/url"

	"github.com/redis/go-redis/v9"
)

// ParseURL reads a redis://, rediss:// or unix:// URL into client options,
// like redis.ParseURL, with ContextTimeoutEnabled set (see the package
// comment). Unlike redis.ParseURL, its error never quotes the URL, so it is
// safe to log even when the URL carries a password.
func ParseURL(rawURL string) (*redis.Options, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		// net/url's errors quote the whole URL, and their causes can quote
		// part of the password (an invalid escape); go-redis's own errors
		// name only the database, path, scheme or a query option.
		if _, ok := errors.AsType[*url.Error](err); ok {
			return nil, errors.New("redisstore: the Redis URL does not parse")
		}
		return nil, errors.New("redisstore: " + err.Error())
	}
	opt.ContextTimeoutEnabled = true
	return opt, nil
}
