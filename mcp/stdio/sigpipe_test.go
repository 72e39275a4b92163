//go:build unix

package stdio_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/internal/syncbuf"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/stdio"
)

// TestBrokenStdout runs Serve in a child process over its real standard
// input and output, as a host's main would, and closes the reading end of
// its stdout: the next answer's write fails with EPIPE, Serve returns it,
// and the child exits with the status it chose (1) after logging, where
// the Go runtime used to kill it with SIGPIPE (status 141, no log line).
func TestBrokenStdout(t *testing.T) {
	if os.Getenv("STDIO_TEST_CHILD") == "serve" {
		h := mcp.NewHandler(mcp.NewServer(mcp.Implementation{Name: "child", Version: "1"}), []mcp.Era{era2026.New(), era2025.New()})
		err := stdio.Serve(context.Background(), h, os.Stdin, os.Stdout, stdio.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))))
		if err != nil {
			fmt.Fprintln(os.Stderr, "child: Serve returned:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenStdout$")
	cmd.Env = append(os.Environ(), "STDIO_TEST_CHILD=serve")
	stderr := &syncbuf.Buffer{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill() // by its PID: this test's child
			<-exited
		}
	})

	// One answer read, so the child is serving; then nobody reads.
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Scan()
		got <- sc.Text()
	}()
	select {
	case line := <-got:
		if !strings.Contains(line, `"id":1`) {
			t.Fatalf("answer: %q; stderr: %s", line, stderr)
		}
	case <-time.After(wait):
		t.Fatalf("no answer; stderr: %s", stderr)
	}
	out.Close()
	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")

	select {
	case err = <-exited:
		exited <- err // for the cleanup
	case <-time.After(wait):
		t.Fatalf("the child did not exit; stderr: %s", stderr)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("child: %v, want exit status 1; stderr: %s", err, stderr)
	}
	for _, want := range []string{`msg="stdio: the output failed; stopping"`, "child: Serve returned: stdio: writing an answer:", "broken pipe"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q: %s", want, stderr)
		}
	}
}
