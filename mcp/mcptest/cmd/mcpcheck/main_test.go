package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

func server(opts ...mcp.HandlerOption) http.Handler {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: mcp.Annotations{ReadOnly: true}},
		"GET /hello", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`"hi"`)) }))
	return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, opts...)
}

// brokenIDs echoes every id as 1, a MUST violation.
func brokenIDs(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		var m map[string]json.RawMessage
		if json.Unmarshal(rec.Body.Bytes(), &m) == nil && m["id"] != nil {
			m["id"] = json.RawMessage(`1`)
			b, _ := json.Marshal(m)
			w.Write(b)
			return
		}
		w.Write(rec.Body.Bytes())
	})
}

func TestRun(t *testing.T) {
	good := httptest.NewServer(server())
	defer good.Close()
	// The reference server's contract: every batch refused, a MUST of
	// 2025-03-26 it declares as a deviation.
	refusing := httptest.NewServer(server(mcp.WithoutBatches()))
	defer refusing.Close()
	bad := httptest.NewServer(brokenIDs(server()))
	defer bad.Close()
	h := server()
	locked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer locked.Close()
	// A redirect to another host: never followed, with or without
	// -follow, so the -H header and the body never reach it.
	var leaked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { leaked.Add(1) }))
	defer other.Close()
	away := httptest.NewServer(http.RedirectHandler(other.URL+"/mcp", http.StatusTemporaryRedirect))
	defer away.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/old", http.RedirectHandler("/mcp", http.StatusPermanentRedirect))
	moved := httptest.NewServer(mux)
	defer moved.Close()
	// A tools/list cut short: a failed check, not a crash.
	truncated := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		b := rec.Body.Bytes()
		if bytes.Contains(b, []byte(`"tools":[`)) {
			b = b[:len(b)/2]
		}
		w.Write(b)
	}))
	defer truncated.Close()
	// Mcp-Name's Base64 form not decoded (refused as a mismatch), and a
	// sentinel that is not Base64 taken as the tool's name: two findings
	// of 2026-07-28/base64-name.
	undecoded := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch v := r.Header.Get("Mcp-Name"); {
		case v == "=?base64?not base64!?=":
			r.Header.Set("Mcp-Name", "hello")
		case strings.HasPrefix(v, "=?base64?"):
			r.Header.Set("Mcp-Name", "not-hello")
		}
		h.ServeHTTP(w, r)
	}))
	defer undecoded.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	closed := gone.URL + "/mcp"
	gone.Close() // the port is free: nothing listens
	// TLS with a certificate of the test's own: trusted with -cacert only.
	secure := httptest.NewTLSServer(server())
	defer secure.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: secure.Certificate().Raw}), 0o600)
	// Every httptest TLS server has the same certificate: another CA is
	// made here.
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "another CA"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	wrongCA := filepath.Join(t.TempDir(), "other.pem")
	os.WriteFile(wrongCA, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	notPEM := filepath.Join(t.TempDir(), "not.pem")
	os.WriteFile(notPEM, []byte("not a certificate"), 0o600)
	examples := filepath.Join(t.TempDir(), "ex.json")
	os.WriteFile(examples, []byte(`{"hello":{}}`), 0o600)
	deviation := "-deviation=2025-03-26/batch=refused in every revision"
	cases := []struct {
		name   string
		args   []string
		status int
		says   []string
	}{
		{"default level", []string{good.URL}, 0, []string{"STATUS", "pass    MUST", "2025-06-18/ping", "2025-06-18 Utilities, Ping", "pass    MUST     2025-03-26/batch", "0 failed"}},
		{"strict", []string{"-strict", "-q", "-examples", examples, good.URL}, 0, []string{"0 failed", "0 deviated as declared"}},
		{"batches refused", []string{refusing.URL}, 1, []string{"FAIL    MUST     2025-03-26/batch", "1 failed"}},
		{"batches refused, with the deviation", []string{deviation, refusing.URL}, 0, []string{"0 failed", "1 deviated as declared"}},
		{"strict with it", []string{"-strict", "-q", "-examples", examples, deviation, refusing.URL}, 0, []string{"deviation  MUST", "refused in every revision", "0 failed", "1 deviated as declared"}},
		{"a MUST failure", []string{"-q", bad.URL}, 1, []string{"FAIL", "JSON-RPC 2.0 §5 Response object", "echoed as 1"}},
		{"one revision", []string{"-revision", "2026-07-28", "-strict", good.URL}, 0, []string{"revision 2025-06-18 left out by mcptest.Revisions"}},
		{"credentials missing", []string{locked.URL}, 1, []string{"endpoint/answers", "it wants credentials"}},
		{"credentials given", []string{"-H", "Authorization: Bearer t", locked.URL}, 0, []string{"0 failed"}},
		{"redirect to another host", []string{"-H", "X-Secret: s", away.URL}, 1, []string{"endpoint/answers", "HTTP 307 redirect to " + other.URL + "/mcp, not followed", "-follow"}},
		{"redirect to another host, -follow", []string{"-follow", "-H", "X-Secret: s", away.URL}, 1, []string{"endpoint/answers", "never followed"}},
		{"redirect on the same host", []string{moved.URL + "/old"}, 1, []string{"endpoint/answers", "HTTP 308 redirect to /mcp"}},
		{"redirect on the same host, -follow", []string{"-follow", moved.URL + "/old"}, 0, []string{"0 failed"}},
		{"truncated tools/list", []string{"-q", truncated.URL}, 1, []string{"tools/unknown-tool", "read to learn the tools", "wire/jsonrpc", "not a JSON-RPC message"}},
		// A typo left out every revision's checks, and the run passed.
		{"a revision no check exercises", []string{"-q", "-revision", "2026-7-28", good.URL}, 1, []string{"FAIL    MUST     mcptest/revisions", `mcptest.Revisions("2026-7-28") names no revision of the battery (2025-03-26, 2025-06-18, 2026-07-28)`, "1 failed"}},
		{"nothing listening", []string{"-q", closed}, 1, []string{"endpoint/answers", `server/discover (no response: Post "` + closed + `": dial tcp`}},
		{"TLS, a CA the system does not trust", []string{"-q", secure.URL}, 1, []string{"endpoint/answers", "certificate"}},
		{"TLS, -cacert", []string{"-q", "-cacert", ca, secure.URL}, 0, []string{"0 failed"}},
		{"TLS, -cacert of another CA", []string{"-q", "-cacert", wrongCA, secure.URL}, 1, []string{"endpoint/answers", "certificate"}},
		{"-cacert not PEM", []string{"-cacert", notPEM, secure.URL}, 2, nil},
		{"-cacert missing", []string{"-cacert", notPEM + ".missing", secure.URL}, 2, nil},
		{"a URL without a scheme", []string{strings.TrimPrefix(good.URL, "http://")}, 2, nil},
		{"a URL of another scheme", []string{"ftp://127.0.0.1/mcp"}, 2, nil},
		{"no URL", nil, 2, nil},
		{"bad header", []string{"-H", "nocolon", good.URL}, 2, nil},
		{"bad deviation", []string{"-deviation", "x", good.URL}, 2, nil},
		// The phrase quotes the finding, '=' and all: the reason follows
		// the last '='. Cut at the first, the phrase was `"`, which every
		// finding of the check contains, and both were excused.
		{"a phrase with '='", []string{"-q", "-deviation", `2026-07-28/base64-name: "=?base64?not base64!?="=an undecodable name is taken as the body's`, undecoded.URL},
			1, []string{"2026-07-28/base64-name", "1 failed", "the Base64 form of \"hello\") refused as a mismatch", "1 finding excused by the declared deviation (an undecodable name is taken as the body's)"}},
		{"an empty phrase", []string{"-deviation", "2025-03-26/batch: =refused in every revision", refusing.URL}, 2, nil},
		{"a phrase without a reason", []string{"-deviation", "2025-03-26/batch: refused", refusing.URL}, 2, nil},
		{"a blank reason", []string{"-deviation", "2025-03-26/batch=  ", refusing.URL}, 2, nil},
	}
	defer func() {
		if n := leaked.Load(); n != 0 {
			t.Errorf("the other host got %d requests", n)
		}
	}()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if got := run(tc.args, &out, &errOut); got != tc.status {
				t.Fatalf("exit %d, want %d\n%s%s", got, tc.status, out.String(), errOut.String())
			}
			for _, s := range tc.says {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output does not say %q:\n%s", s, out.String())
				}
			}
		})
	}
}
