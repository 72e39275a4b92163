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

func (w *trackedWriter) Flush() { _ = w.FlushError() }

// FlushError is what http.ResponseController.Flush calls: the stream
// writes (streamWrite) learn from a failed flush that their client is
// gone or stopped reading (a write deadline passed), as they do from
// net/http's own writer.
func (w *trackedWriter) FlushError() error {
	w.wrote = true
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *trackedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
