package redisstore_test

import (
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp/redisstore"
)

func TestParseURL(t *testing.T) {
	t.Parallel()
	const password = "S3cret-pa55word"
	opt, err := redisstore.ParseURL("rediss://app:" + password + "@127.0.0.1:6380/2")
	if err != nil || opt.Username != "app" || opt.Password != password || opt.Addr != "127.0.0.1:6380" || opt.DB != 2 ||
		opt.TLSConfig == nil || !opt.ContextTimeoutEnabled {
		t.Errorf("%+v, %v", opt, err)
	}
	for _, bad := range []string{
		"redis://:" + password + "@127.0.0.1:notaport/0", // net/url quotes the URL
		"redis://:" + password + "%zz@127.0.0.1/0",       // and the bad escape
		"redis://:" + password + "@127.0.0.1:6379/x",
		"redis://:" + password + "@127.0.0.1:6379/0?dial_timeout=soon",
		"redis://:" + password + "@127.0.0.1:6379/0?password=" + password,
		"http://:" + password + "@127.0.0.1/0",
		"",
	} {
		_, err := redisstore.ParseURL(bad)
		if err == nil || !strings.HasPrefix(err.Error(), "redisstore: ") || strings.Contains(err.Error(), password) || strings.Contains(err.Error(), "S3c") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestParseURL_PasswordWithReservedCharacters: a password with an
// unescaped "/", "?" or "#" (base64 passwords have "/") ends the URL's
// authority early, and its rest reads as the path, the database, a query
// option or a fragment; no error quotes it, and a fragment, which would
// drop the password and connect to a host made of the username and the
// password's head, is refused.
func TestParseURL_PasswordWithReservedCharacters(t *testing.T) {
	t.Parallel()
	const secret = "Zq8vKx3Wm"
	for _, c := range []struct{ url, want string }{
		{"redis://app:/" + secret + "@127.0.0.1:6379/0", "redisstore: redis: invalid URL path"},
		{"redis://:/" + secret + "@127.0.0.1:6379", "redisstore: redis: invalid database number"},
		{"redis://app:12/" + secret + "@127.0.0.1:6379", "redisstore: redis: invalid database number"},
		{"rediss://app:12?" + secret + "@127.0.0.1:6379", "redisstore: redis: unexpected option"},
		{"redis://app:12#" + secret + "@127.0.0.1:6379", "redisstore: the Redis URL has a \"#\"; escape it as %23 in a password"},
		{"redis://127.0.0.1:6379/0?dial_timeout=" + secret, "redisstore: redis: invalid dial_timeout duration"},
		{"unix://:" + secret + "@/run/redis.sock?db=" + secret, "redisstore: redis: invalid database number"},
	} {
		opt, err := redisstore.ParseURL(c.url)
		if err == nil {
			t.Errorf("%q: parsed, to %q with password %q", c.url, opt.Addr, opt.Password)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%q: %q, want %q", c.url, err, c.want)
		}
		for i := 0; i+3 <= len(secret); i++ {
			if strings.Contains(err.Error(), secret[i:i+3]) {
				t.Errorf("%q: the error %q quotes %q of the password", c.url, err, secret[i:i+3])
			}
		}
	}
	// Escaped, the same characters are the password's.
	opt, err := redisstore.ParseURL("redis://app:12%2F" + secret + "%23%3F@127.0.0.1:6379/1")
	if err != nil || opt.Password != "12/"+secret+"#?" || opt.Addr != "127.0.0.1:6379" || opt.DB != 1 {
		t.Errorf("escaped: %+v, %v", opt, err)
	}
}

// TestParseURL_NegativeDatabase: a negative database number is refused,
// in the path or the query, on TCP and on a unix socket; go-redis would
// take it as database 0 (it selects only a positive one), and replicas
// meant to be kept apart by database would share it.
func TestParseURL_NegativeDatabase(t *testing.T) {
	t.Parallel()
	for _, u := range []string{
		"redis://127.0.0.1:6379/-1",
		"rediss://app:pw@127.0.0.1:6380/?db=-4",
		"unix:///run/redis.sock?db=-2",
	} {
		opt, err := redisstore.ParseURL(u)
		if err == nil {
			t.Errorf("%q: parsed, database %d", u, opt.DB)
		} else if want := "redisstore: the Redis URL's database number is negative"; err.Error() != want {
			t.Errorf("%q: %q, want %q", u, err, want)
		}
	}
	for u, db := range map[string]int{"redis://127.0.0.1:6379/0": 0, "redis://127.0.0.1:6379/15": 15, "unix:///run/redis.sock?db=3": 3} {
		if opt, err := redisstore.ParseURL(u); err != nil || opt.DB != db {
			t.Errorf("%q: %+v, %v; want database %d", u, opt, err, db)
		}
	}
}
