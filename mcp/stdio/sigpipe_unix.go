//go:build unix

package stdio

import (
	"os"
	"os/signal"
	"syscall"
)

// catchSIGPIPE makes a write to a standard output (or error) whose reader
// has gone fail with EPIPE, as a write to any other pipe does, rather than
// kill the process: the Go runtime raises SIGPIPE for file descriptors 1
// and 2 unless the program catches it. The channel is never read; catching
// is all it is for. release undoes it once the writer has stopped.
func catchSIGPIPE() (release func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGPIPE)
	return func() { signal.Stop(c) }
}
