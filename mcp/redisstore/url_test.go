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
