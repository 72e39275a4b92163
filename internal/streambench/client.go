package streambench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Stream is one open subscriptions/listen stream, on a TCP connection of
// its own (HTTP/1.1, written and read by hand: no pool between them).
type Stream struct {
	conn net.Conn
	r    *bufio.Reader // the response's body, de-chunked
}

// Message is one JSON-RPC message of a stream.
type Message struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// ListenBody is the body of a 2026-07-28 subscriptions/listen with id
// asking for notes, the JSON object of params.notifications.
func ListenBody(id int, notes string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"subscriptions/listen","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},` +
		`"notifications":` + notes + `}}`)
}

// loopbackHost is u's host:port when url is http on a loopback IP.
func loopbackHost(url string) (*neturl.URL, error) {
	u, err := neturl.Parse(url)
	if err != nil {
		return nil, err
	}
	ip := net.ParseIP(u.Hostname())
	if u.Scheme != "http" || ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("streambench: %q is not http on a loopback address", url)
	}
	return u, nil
}

// Listen opens a listen stream with id asking for notes on url (the
// endpoint, http://127.0.0.1:PORT/mcp), reads its acknowledgement within
// timeout and returns the stream and the acknowledged
// params.notifications.
func Listen(url string, id int, notes string, timeout time.Duration) (*Stream, json.RawMessage, error) {
	u, err := loopbackHost(url)
	if err != nil {
		return nil, nil, err
	}
	conn, err := net.DialTimeout("tcp", u.Host, timeout)
	if err != nil {
		return nil, nil, err
	}
	s, ack, err := listenOn(conn, u, id, notes, timeout)
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("listen %d: %w", id, err)
	}
	return s, ack, nil
}

func listenOn(conn net.Conn, u *neturl.URL, id int, notes string, timeout time.Duration) (*Stream, json.RawMessage, error) {
	conn.SetDeadline(time.Now().Add(timeout))
	body := ListenBody(id, notes)
	var req bytes.Buffer
	fmt.Fprintf(&req, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"+
		"Mcp-Method: subscriptions/listen\r\nContent-Length: %d\r\n\r\n", u.Path, u.Host, len(body))
	req.Write(body)
	if _, err := conn.Write(req.Bytes()); err != nil {
		return nil, nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 1024), nil)
	if err != nil {
		return nil, nil, err
	}
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return nil, nil, fmt.Errorf("HTTP %d %s: %s", resp.StatusCode, ct, b)
	}
	s := &Stream{conn: conn, r: bufio.NewReaderSize(resp.Body, 1024)}
	m, err := s.Next()
	if err != nil {
		return nil, nil, err
	}
	if m.Method != "notifications/subscriptions/acknowledged" {
		return nil, nil, fmt.Errorf("first message is not the acknowledgement: %+v", m)
	}
	var ack struct {
		Notifications json.RawMessage `json:"notifications"`
	}
	if err := json.Unmarshal(m.Params, &ack); err != nil {
		return nil, nil, err
	}
	conn.SetDeadline(time.Time{})
	return s, ack.Notifications, nil
}

// maxEventLines bounds the lines of one event, comments included.
const maxEventLines = 64

// Next reads the stream's next message event; comments (keep-alives)
// are skipped. It fails at the end of the stream.
func (s *Stream) Next() (Message, error) {
	var data []byte
	for lines := 0; ; lines++ {
		if lines == maxEventLines {
			return Message{}, errors.New("an event of more than 64 lines")
		}
		line, err := s.r.ReadBytes('\n')
		if err != nil {
			return Message{}, err
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if data == nil {
				lines = -1 // a comment's event ended; the next may be long
				continue
			}
			var m Message
			if err := json.Unmarshal(data, &m); err != nil {
				return Message{}, fmt.Errorf("event data %q: %w", data, err)
			}
			return m, nil
		case bytes.HasPrefix(line, []byte("data:")):
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
	}
}

// Close closes the stream's connection.
func (s *Stream) Close() error { return s.conn.Close() }

// debugClient asks a server's debug routes.
var debugClient = &http.Client{Timeout: 30 * time.Second}

// GetMem asks the server at url (its /mcp endpoint) for its memory.
func GetMem(url string) (Mem, error) {
	var m Mem
	if _, err := loopbackHost(url); err != nil {
		return m, err
	}
	resp, err := debugClient.Get(base(url) + "/debug/mem")
	if err != nil {
		return m, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return m, fmt.Errorf("GET /debug/mem: HTTP %d", resp.StatusCode)
	}
	return m, json.NewDecoder(resp.Body).Decode(&m)
}

// NotifyUpdated asks the server at url to publish an update of uri.
func NotifyUpdated(url, uri string) error {
	if _, err := loopbackHost(url); err != nil {
		return err
	}
	resp, err := debugClient.Post(base(url)+"/debug/notify?uri="+neturl.QueryEscape(uri), "text/plain", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("POST /debug/notify: HTTP %d", resp.StatusCode)
	}
	return nil
}

// saveProfiles saves the server's heap profile (after a GC) and its
// goroutines, grouped by stack, into dir.
func saveProfiles(url, dir string) error {
	for _, p := range [...]struct{ path, file string }{
		{"/debug/pprof/heap?gc=1", "heap.pprof"},
		{"/debug/pprof/goroutine?debug=1", "goroutine.txt"},
	} {
		resp, err := debugClient.Get(base(url) + p.path)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: HTTP %d", p.path, resp.StatusCode)
		}
		if err := os.WriteFile(filepath.Join(dir, p.file), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
