package mrtr

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func randomSecret(t *testing.T) []byte {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseKeys_Forms(t *testing.T) {
	t.Parallel()
	s1, s2, s3, s4 := randomSecret(t), randomSecret(t), randomSecret(t), randomSecret(t)
	// Every form the usual tools print, with the white space a file or a
	// YAML block adds.
	text := " k4:" + base64.StdEncoding.EncodeToString(s4) + ",\n\tk3 : " + base64.RawStdEncoding.EncodeToString(s3) +
		",k2:" + base64.URLEncoding.EncodeToString(s2) + " , k1:" + base64.RawURLEncoding.EncodeToString(s1) + "\r\n"
	keys, err := ParseKeys(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []Key{{"k4", s4}, {"k3", s3}, {"k2", s2}, {"k1", s1}}
	if len(keys) != len(want) {
		t.Fatalf("got %d keys, want %d", len(keys), len(want))
	}
	for i := range want {
		if keys[i].ID != want[i].ID || !bytes.Equal(keys[i].Secret, want[i].Secret) {
			t.Errorf("key %d: got id %q, want %q (or its secret differs)", i, keys[i].ID, want[i].ID)
		}
	}
}

// A state sealed by a replica that built its ring from Key values opens on
// one that parsed the same ring from text, and the first key seals.
func TestParseKeys_SameRingAsKeys(t *testing.T) {
	t.Parallel()
	s1, s2 := randomSecret(t), randomSecret(t)
	keys, err := ParseKeys("new:" + base64.StdEncoding.EncodeToString(s2) + ",old:" + base64.StdEncoding.EncodeToString(s1))
	if err != nil {
		t.Fatal(err)
	}
	parsed := NewSealer(ring(t, keys...))
	onlyNew := NewSealer(ring(t, Key{"new", s2}))
	state, _, err := parsed.Seal(base, []byte("p"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := onlyNew.Open(base, state); err != nil {
		t.Fatalf("the first key did not seal: %v (%s)", err, Reason(err))
	}
}

// Every refusal is precise and quotes no secret, nor anything that may be
// one (the text before a colon, when the entry is written backwards).
func TestParseKeys_Refuses(t *testing.T) {
	t.Parallel()
	good := base64.StdEncoding.EncodeToString(randomSecret(t))
	other := base64.StdEncoding.EncodeToString(randomSecret(t))
	short := base64.StdEncoding.EncodeToString(randomSecret(t)[:31])
	long := base64.StdEncoding.EncodeToString(append(randomSecret(t), 1))
	zeros := base64.StdEncoding.EncodeToString(make([]byte, 32))
	password := base64.StdEncoding.EncodeToString([]byte("correct horse battery staple!!!!"))
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "mrtr: key ring: no keys"},
		{"blank", " \n ", "mrtr: key ring: no keys"},
		{"trailing comma", "k1:" + good + ",", "entry 2 of 2: empty"},
		{"no colon", good, "entry 1 of 1: want id:secret"},
		{"backwards", good + ":k1", "entry 1 of 1: the key id before the colon must be 1 to 8 characters"},
		{"id too long", "key123456:" + good, "must be 1 to 8 characters from A-Z a-z 0-9 (it has 9 characters)"},
		{"id with a dash", "k-1:" + good, "entry 1 of 1: the key id"},
		{"byte-order mark", "\uFEFFk1:" + good, "mrtr: key ring: the text starts with a byte-order mark (U+FEFF)"},
		{"id not ASCII", "clé:" + good, "(it has 3 characters)"},
		{"no secret", "k1:", `entry 1 of 1: key "k1": the secret after the colon is empty`},
		{"not base64", "k1:" + good[:20] + "!" + good[21:], `key "k1": the secret is not valid base64`},
		{"mixed alphabets", "k1:-+" + good[2:], "not valid base64"},
		{"bad padding", "k1:" + good + "=", "not valid base64"},
		{"line break inside", "k1:" + good[:22] + "\n" + good[22:], `key "k1": the secret holds white space (a line break?)`},
		{"carriage return inside", "k1:" + good[:22] + "\r\n" + good[22:], "holds white space"},
		{"space inside", "k1:" + good[:22] + " " + good[22:], "holds white space"},
		{"short", "k1:" + short, `key "k1": the secret decodes to 31 bytes; it must be exactly 32 random bytes`},
		{"long", "k1:" + long, "decodes to 33 bytes"},
		{"placeholder", "k1:" + zeros, `key "k1": the secret does not look random (1 distinct byte values)`},
		{"password", "k1:" + password, "does not look random"},
		{"duplicate id", "k1:" + good + ",k1:" + other, `entry 2 of 2: key id "k1" appears twice`},
		{"same secret", "k2:" + good + ",k1:" + good, `keys "k2" and "k1" have the same secret`},
	} {
		keys, err := ParseKeys(tc.text)
		if err == nil {
			t.Errorf("%s: accepted (%d keys)", tc.name, len(keys))
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, "mrtr: key ring: ") {
			t.Errorf("%s: %q, want it to contain %q", tc.name, msg, tc.want)
		}
		for _, secret := range []string{good, other, short, long, password} {
			if leaks(msg, secret) {
				t.Errorf("%s: the error quotes part of a secret: %q", tc.name, msg)
			}
		}
	}
}

// leaks reports whether msg holds 8 or more consecutive characters of
// secret.
func leaks(msg, secret string) bool {
	for i := 0; i+8 <= len(secret); i++ {
		if strings.Contains(msg, secret[i:i+8]) {
			return true
		}
	}
	return false
}

// The three documented steps of a rotation, each rolled out one replica
// at a time: during each rollout replicas of two adjacent steps serve side
// by side, and every state either of them seals opens on the other.
// Promoting the new key before every replica holds it is what refuses
// states.
func TestParseKeys_RotationSteps(t *testing.T) {
	t.Parallel()
	old, next := base64.StdEncoding.EncodeToString(randomSecret(t)), base64.StdEncoding.EncodeToString(randomSecret(t))
	steps := []string{
		"k1:" + old,                 // before
		"k1:" + old + ",k2:" + next, // 1: the new key second everywhere
		"k2:" + next + ",k1:" + old, // 2: then first everywhere
		"k2:" + next,                // 3: the old one retired, once no state it sealed can still open
	}
	sealers := make([]*Sealer, len(steps))
	for i, text := range steps {
		keys, err := ParseKeys(text)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		sealers[i] = NewSealer(ring(t, keys...))
	}
	opens := func(from, to int) error {
		state, _, err := sealers[from].Seal(base, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = sealers[to].Open(base, state)
		return err
	}
	for i := 0; i+1 < len(steps); i++ {
		for _, pair := range [][2]int{{i, i + 1}, {i + 1, i}} {
			if err := opens(pair[0], pair[1]); err != nil {
				t.Errorf("sealed at step %d, opened at step %d: %v (%s)", pair[0], pair[1], err, Reason(err))
			}
		}
	}
	// Skipping step 1: a replica already sealing with k2 beside one that
	// has never heard of it.
	if err := opens(2, 0); Reason(err) != "unknown_key" {
		t.Errorf("sealed at step 2, opened before the rotation: %v (%s), want unknown_key", err, Reason(err))
	}
}

func TestLoadKeys(t *testing.T) {
	// t.Setenv: not parallel.
	const env = "MRTR_TEST_STATE_KEYS"
	good := "k1:" + base64.StdEncoding.EncodeToString(randomSecret(t))
	dir := t.TempDir()
	file := filepath.Join(dir, "keys")
	if err := os.WriteFile(file, []byte(good+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A file of exactly the bound is read; one byte more is refused
	// unread, though the ring in it is the same good one.
	const bound = 64 << 10
	padded := []byte(good + "\n" + strings.Repeat(" ", bound-len(good)-1))
	atBound, big := filepath.Join(dir, "at-bound"), filepath.Join(dir, "big")
	if err := os.WriteFile(atBound, padded, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, append(padded, ' '), 0o600); err != nil {
		t.Fatal(err)
	}
	unset := func() {
		// t.Setenv restores at the end of the test; unset for this case.
		t.Setenv(env, "")
		t.Setenv(env+"_FILE", "")
		os.Unsetenv(env)
		os.Unsetenv(env + "_FILE")
	}

	unset()
	if keys, err := LoadKeys(env); keys != nil || err != nil {
		t.Errorf("nothing set: %v keys, %v; want none and no error", len(keys), err)
	}

	for _, tc := range []struct {
		name        string
		inline, ref *string
		want        string // "" means success
	}{
		{"inline", &good, nil, ""},
		{"file", nil, &file, ""},
		{"both", &good, &file, "mrtr: both MRTR_TEST_STATE_KEYS and MRTR_TEST_STATE_KEYS_FILE are set; set one"},
		{"empty", ptr(""), nil, "mrtr: MRTR_TEST_STATE_KEYS is set but empty"},
		{"blank", ptr("  "), nil, "mrtr: MRTR_TEST_STATE_KEYS is set but empty"},
		{"empty file name", nil, ptr(""), "mrtr: MRTR_TEST_STATE_KEYS_FILE is set but empty"},
		{"bad inline", ptr("k1"), nil, "mrtr: MRTR_TEST_STATE_KEYS: entry 1 of 1: want id:secret"},
		{"missing file", nil, ptr(filepath.Join(dir, "none")), "mrtr: MRTR_TEST_STATE_KEYS_FILE: open "},
		{"file of 64 KiB", nil, &atBound, ""},
		{"file of 64 KiB and a byte", nil, &big, "larger than 64 KiB"},
	} {
		unset()
		if tc.inline != nil {
			t.Setenv(env, *tc.inline)
		}
		if tc.ref != nil {
			t.Setenv(env+"_FILE", *tc.ref)
		}
		keys, err := LoadKeys(env)
		switch {
		case tc.want == "" && (err != nil || len(keys) != 1 || keys[0].ID != "k1"):
			t.Errorf("%s: %d keys, %v", tc.name, len(keys), err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		case tc.want != "" && leaks(err.Error(), good):
			t.Errorf("%s: the error quotes the secret: %v", tc.name, err)
		}
	}

	// A file with a bad ring names the file.
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("k1:"+base64.StdEncoding.EncodeToString(make([]byte, 32))), 0o600)
	unset()
	t.Setenv(env+"_FILE", bad)
	if _, err := LoadKeys(env); err == nil || !strings.Contains(err.Error(), "MRTR_TEST_STATE_KEYS_FILE ("+bad+"): entry 1 of 1") {
		t.Errorf("bad file: %v", err)
	}
}

func ptr(s string) *string { return &s }
