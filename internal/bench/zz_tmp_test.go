package bench

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

func BenchmarkZRouteOnly(b *testing.B) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Text string `json:"text"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "invalid JSON body", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte(in.Text))
	})
	body := []byte(`{"text":"hello-mcp"}`)
	rd := bytes.NewReader(body)
	req, _ := http.NewRequest("POST", "http://127.0.0.1/echo", nil)
	w := &sink{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		req.Body = io.NopCloser(rd)
		w.h = http.Header{}
		w.body.Reset()
		mux.ServeHTTP(w, req)
	}
}

func BenchmarkZUnmarshalFloor(b *testing.B) {
	body := AppendToolsCall(nil, Proto2025, 1, "hello-mcp")
	var req floorRequest
	b.ReportAllocs()
	for b.Loop() {
		req = floorRequest{ID: req.ID[:0]}
		json.Unmarshal(body, &req)
	}
}
