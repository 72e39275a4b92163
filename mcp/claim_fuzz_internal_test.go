package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpdual/mcpdual/internal/seam"
)

// FuzzReadRecorded reads outcome summaries as a replay guard hands them
// back from its storage (a Redis key, which any client of that Redis may
// have written). Whatever the bytes: nothing panics; the record read is
// within bounds (a status of 0 to 999, a time before the year 10000) and
// reads back the same once written as the endpoint writes it; what is not
// one JSON object is Unreadable, and so is told as an unknown outcome,
// never as "did not run"; and what a retry and a
// confirmation question say is built from the record alone — valid
// UTF-8 text, and one JSON object of the known members. A summary the
// endpoint wrote (outcomeSummary, from the fuzzed status, flags and time)
// reads back as what it recorded.
func FuzzReadRecorded(f *testing.F) {
	at := time.Date(2026, 12, 7, 6, 0, 0, 0, time.UTC)
	for _, s := range []string{
		outcomeSummary(204, false, false, at), outcomeSummary(0, true, false, at), outcomeSummary(500, false, true, at),
		outcomeSummary(0, false, false, at), `{"executed":false}`,
		`{"executed":true,"status":1000}`, `{"executed":true,"at":253402300800}`, `{"executed":true,"status":2.0}`,
		`{"EXECUTED":true}`, `[]`, `null`, `{"executed":true}}`, "",
	} {
		f.Add([]byte(s), 200, false, false, at.Unix())
	}
	profile := &seam.Profile{OutputSchema: true}
	f.Fuzz(func(t *testing.T, summary []byte, status int, failed, panicked bool, unix int64) {
		o := readRecorded(summary)
		if o.Status < 0 || o.Status > 999 || o.At < 0 || o.At >= maxRecordedAt {
			t.Fatalf("%q read as %+v, out of bounds", summary, o)
		}
		var v any
		if json.Unmarshal(summary, &v) != nil {
			v = nil
		}
		if _, object := v.(map[string]any); !object && o != unreadable {
			t.Errorf("%q is not a JSON object and read as %+v", summary, o)
		}
		if o.Unreadable && o != unreadable {
			t.Errorf("%q is unreadable and read as %+v", summary, o)
		}
		if o.Executed {
			written := outcomeSummary(o.Status, o.Failed, o.Panicked, time.Unix(o.At, 0))
			if again := readRecorded([]byte(written)); !sameRun(again, o) {
				t.Errorf("%q read as %+v, written again as %s, read back as %+v", summary, o, written, again)
			}
		}
		res := alreadyRan(features{Profile: profile}, summary)
		var content []struct{ Text string }
		if err := json.Unmarshal(res.content, &content); err != nil || len(content) != 1 || !utf8.ValidString(content[0].Text) {
			t.Fatalf("%q: content %s (%v)", summary, res.content, err)
		}
		var structured map[string]any
		if err := json.Unmarshal(res.structured, &structured); err != nil {
			t.Fatalf("%q: structuredContent %s: %v", summary, res.structured, err)
		}
		if o.Unreadable != (structured["executed"] == nil) || o.Unreadable && strings.Contains(content[0].Text, "did not run") {
			t.Errorf("%q read as %+v, answered %q %s", summary, o, content[0].Text, res.structured)
		}
		for k := range structured {
			if !strings.Contains(" outcome executed panicked failed status at retryable ", " "+k+" ") {
				t.Errorf("%q: structuredContent has %q", summary, k)
			}
		}
		if note := ranBefore(summary); note != "" && (!o.Executed || !utf8.ValidString(note)) {
			t.Errorf("%q: the question says %q", summary, note)
		}

		// What the endpoint writes reads back as what it recorded.
		if unix < 0 || unix >= maxRecordedAt {
			return
		}
		want := recorded{Executed: true, Panicked: panicked, Failed: failed && !panicked, At: unix}
		if !panicked && !failed && status > 0 && status <= 999 {
			want.Status = status
		}
		written := outcomeSummary(status, failed, panicked, time.Unix(unix, 0))
		if status > 999 && !panicked && !failed {
			return // no route answers such a status: net/http refuses it
		}
		if got := readRecorded([]byte(written)); !bytes.Equal([]byte(written), []byte(outcomeSummary(got.Status, got.Failed, got.Panicked, time.Unix(got.At, 0)))) || got != want {
			t.Errorf("%s read back as %+v, want %+v", written, got, want)
		}
	})
}

// sameRun reports whether two records say the same of a run: a status
// counts only when the call neither panicked nor failed, as the endpoint
// writes it.
func sameRun(a, b recorded) bool {
	norm := func(o recorded) recorded {
		if o.Panicked {
			o.Failed = false
		}
		if o.Panicked || o.Failed {
			o.Status = 0
		}
		return o
	}
	return norm(a) == norm(b)
}

// TestReadRecorded_ExactNames: a summary from the guard's storage is read
// by its exact names, each once. encoding/json matches a struct's names
// without regard to case, and {"executed":false,"EXECUTED":true} read as a
// run; a name given twice is no summary outcomeSummary writes, and reads
// as unreadable (the outcome unknown) whichever comes last.
func TestReadRecorded_ExactNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		summary string
		want    recorded
	}{
		{`{"executed":true,"status":204,"at":1}`, recorded{Executed: true, Status: 204, At: 1}},
		{`{"\u0065xecuted":true}`, recorded{Executed: true}}, // the same name, escaped
		{`{"EXECUTED":true}`, unreadable},
		{`{"executed":false,"Executed":true}`, unreadable},
		{`{"executed":true,"Status":500,"Failed":true}`, recorded{Executed: true}},
		{`{"executed":true,"executed":false}`, unreadable},
		{`{"executed":false,"executed":true}`, unreadable},
		{`{"executed":true,"status":"204"}`, unreadable},
		{`{"executed":true,"other":[1,{"executed":false}]}`, recorded{Executed: true}},
		{`{"executed":false}`, recorded{}}, // what settle writes of a route that never ran
		{`{"status":200,"at":1}`, unreadable},
		{`{}`, unreadable},
	} {
		if got := readRecorded([]byte(tc.summary)); got != tc.want {
			t.Errorf("%s read as %+v, want %+v", tc.summary, got, tc.want)
		}
	}
}
