package redisstore

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// What the stores read back from Redis is read as untrusted: Redis
// trusts every client it has, so a key may hold what no replica wrote.

// sessionHash is the hash Subscribe and SetLevel write for uris and level
// ("": none): a "u:" field per URI, valued "1", and "l".
func sessionHash(uris []string, level string) map[string]string {
	fields := map[string]string{}
	for _, u := range uris {
		fields["u:"+u] = "1"
	}
	if level != "" {
		fields["l"] = level
	}
	return fields
}

// FuzzLoadFields reads session hashes spelled as NUL-separated field and
// value pairs. Load returns exactly what Subscribe and SetLevel can have
// written: each "u:" field's URI of 1 to 2048 bytes, sorted, and an "l" of
// 1 to 16 bytes; anything else in the hash is left out. What it returns,
// written again, reads back the same.
func FuzzLoadFields(f *testing.F) {
	f.Add("u:mail://w1/inbox\x001\x00l\x00debug")
	f.Add("u:w1\nmail://w1/inbox\x001\x00u:docs://readme\x001")
	f.Add("l\x00emergency\x00u:" + strings.Repeat("u", maxSessionURI) + "\x001")
	f.Add("u:\x001\x00l\x00" + strings.Repeat("l", maxSessionLevel+1))
	f.Add("x\x00y\x00u:" + strings.Repeat("u", maxSessionURI+1) + "\x001")
	f.Fuzz(func(t *testing.T, hash string) {
		parts := strings.Split(hash, "\x00")
		fields := map[string]string{}
		for i := 0; i+1 < len(parts); i += 2 {
			fields[parts[i]] = parts[i+1]
		}
		uris, level := loadFields(fields)
		if !slices.IsSorted(uris) {
			t.Errorf("uris not sorted: %q", uris)
		}
		var want []string
		for f := range fields {
			if u, ok := strings.CutPrefix(f, "u:"); ok && u != "" && len(u) <= maxSessionURI {
				want = append(want, u)
			}
		}
		slices.Sort(want)
		if !slices.Equal(uris, want) {
			t.Errorf("uris %.200q, want %.200q", uris, want)
		}
		if l, ok := fields["l"]; ok && l != "" && len(l) <= maxSessionLevel {
			if level != l {
				t.Errorf("level %q, want %q", level, l)
			}
		} else if level != "" {
			t.Errorf("level %.40q from a hash whose l is %.40q, which SetLevel never writes", level, l)
		}
		again, l := loadFields(sessionHash(uris, level))
		if !slices.Equal(again, uris) || l != level {
			t.Errorf("written again, %.200q %q read back as %.200q %q", uris, level, again, l)
		}
	})
}

// FuzzClaimAnswer reads answers of the claim script: a state, then up to
// three more elements (the first the outcome, a string, or an integer
// when asInt). Only the script's three answers are taken — {1}, {0} and
// {2, a non-empty outcome} — each as what it means; any other is an
// error, never a claim or an outcome.
func FuzzClaimAnswer(f *testing.F) {
	f.Add(int64(1), uint8(0), "", false)
	f.Add(int64(0), uint8(0), "", false)
	f.Add(int64(2), uint8(1), `{"executed":true,"status":204,"at":1765000000}`, false)
	f.Add(int64(2), uint8(1), `{"executed":false}`, false)
	f.Add(int64(2), uint8(1), "", false)
	f.Add(int64(1), uint8(2), "x", false)
	f.Add(int64(2), uint8(1), "7", true)
	f.Fuzz(func(t *testing.T, state int64, more uint8, outcome string, asInt bool) {
		res := []any{state}
		for i := range more % 4 {
			switch {
			case i > 0:
				res = append(res, "extra")
			case asInt:
				res = append(res, int64(len(outcome)))
			default:
				res = append(res, outcome)
			}
		}
		claimed, got, err := claimAnswer(res)
		script := len(res) == 1 && (state == 0 || state == 1) ||
			len(res) == 2 && state == 2 && !asInt && outcome != ""
		switch {
		case !script:
			if err == nil {
				t.Errorf("%#v: taken (claimed %v, outcome %q), which the script never answers", res, claimed, got)
			}
		case err != nil:
			t.Errorf("%#v: %v", res, err)
		case claimed != (state == 1) || (state == 2) != (got != nil) || got != nil && !bytes.Equal(got, []byte(outcome)):
			t.Errorf("%#v: claimed %v, outcome %q", res, claimed, got)
		}
	})
}
