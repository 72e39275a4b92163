package mcp

import "net/http"

// trackedWriter notes whether anything of an answer was written, for a
// panic that escapes serving (Handler.recovered).
type trackedWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *trackedWriter) WriteHeader(status int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(status)
}

func (w *trackedWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *trackedWriter) Flush() {
	w.wrote = true
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *trackedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
