// Package hookforward is the lean command hook, the hall-hook command: it
// hands an agent's hook payload, as the agent wrote it on stdin, to the
// Hall's HTTP hook endpoint (POST /api/hooks/{agent}) and prints the
// answer, which is the agent's own hook output. The Hall does the rest as
// for an HTTP hook: it reads the payload, completes the place from its cwd,
// beats (or leaves) and answers with the presence's collisions.
//
// A command hook starts a process on every tool call, so what the process
// links is what the agent waits for. This package speaks HTTP/1.0 over a
// plain socket instead of importing net/http: net/http, with crypto/tls,
// x509 and http2 behind it, made each call ~5 ms slower to start on the
// project's machine (docs/performance.md#hooks). It imports nothing of the
// Hall's but packages cli and autostart (which starts a Hall only when a
// connection is refused), and a test holds it to that.
package hookforward

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// MaxPayload is what is read of a payload; the Hall refuses more (413).
// It is the Hall's own bound (hook.MaxPayload; a test holds them equal).
const MaxPayload = 4 << 20

// maxAnswer bounds what is read of the Hall's answer: five north lines and
// an ask are a few kilobytes.
const maxAnswer = 1 << 20

// Request is one payload to hand to a Hall.
type Request struct {
	Hall        string // the Hall's base URL: http://127.0.0.1:7433
	Agent       string // "claude", "codex", "cursor" or "gemini": /api/hooks/{agent}
	Token       string // sent as a bearer token when set
	OnCollision string // "warn" or "ask"; "" leaves the Hall's default (warn)
	Payload     []byte // the agent's hook payload, as read
}

// Forward posts the payload to the Hall and returns its answer: the
// agent's hook output, or nil when there is nothing to say (the Hall
// answers {}). A Hall that cannot be reached, that answers other than 200,
// or whose answer cannot be read is an error; the call ends with ctx.
func Forward(ctx context.Context, r Request) ([]byte, error) {
	host, target, err := endpoint(r)
	if err != nil {
		return nil, err
	}
	if strings.ContainsFunc(r.Token, func(c rune) bool { return c < ' ' || c == 0x7f }) {
		return nil, errors.New("the token holds a control character: it cannot be sent in a header")
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, fmt.Errorf("reach the Hall at %s: %w", r.Hall, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	// HTTP/1.0: the Hall answers with the whole body and closes the
	// connection, so the answer is everything read until EOF (no
	// keep-alive, no chunks to decode).
	var head bytes.Buffer
	fmt.Fprintf(&head, "POST %s HTTP/1.0\r\nHost: %s\r\nUser-Agent: hall-hook\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", target, host, len(r.Payload))
	if r.Token != "" {
		fmt.Fprintf(&head, "Authorization: Bearer %s\r\n", r.Token)
	}
	head.WriteString("\r\n")
	bufs := net.Buffers{head.Bytes(), r.Payload}
	if _, err := bufs.WriteTo(conn); err != nil {
		return nil, fmt.Errorf("send the payload to the Hall: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(conn, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("read the Hall's answer: %w", err)
	}
	if len(raw) > maxAnswer {
		return nil, fmt.Errorf("the Hall's answer is over %d bytes", maxAnswer)
	}
	status, body, err := parseResponse(raw)
	if err != nil {
		return nil, err
	}
	body = bytes.TrimSpace(body)
	if status != 200 {
		return nil, &statusError{code: status, body: clip(body, 300)}
	}
	if string(body) == "{}" || len(body) == 0 {
		return nil, nil
	}
	return body, nil
}

// endpoint is the address to dial and the request target for r.
func endpoint(r Request) (host, target string, err error) {
	u, err := url.Parse(r.Hall)
	if err != nil {
		return "", "", fmt.Errorf("--hall %q: %w", r.Hall, err)
	}
	if u.Scheme != "http" || u.Host == "" {
		return "", "", fmt.Errorf("--hall %q: hall-hook speaks plain http to a Hall on this machine (http://host:port); for https, run hall beat --hook", r.Hall)
	}
	host = u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "80")
	}
	target = strings.TrimRight(u.EscapedPath(), "/") + "/api/hooks/" + url.PathEscape(r.Agent)
	if r.OnCollision != "" {
		target += "?on_collision=" + url.QueryEscape(r.OnCollision)
	}
	return host, target, nil
}

// parseResponse splits an HTTP/1.x response read whole into its status
// code and body. A Content-Length, when given, must be met; a chunked body
// (which a server does not send an HTTP/1.0 client) is refused.
func parseResponse(raw []byte) (status int, body []byte, err error) {
	head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		return 0, nil, errors.New("the Hall's answer ended inside its headers")
	}
	lines := strings.Split(string(head), "\r\n")
	proto, rest, _ := strings.Cut(lines[0], " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err = strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil || status < 100 || status > 999 {
		return 0, nil, fmt.Errorf("the Hall's answer is not HTTP: %q", clip([]byte(lines[0]), 80))
	}
	for _, l := range lines[1:] {
		name, value, _ := strings.Cut(l, ":")
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-length":
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 {
				return 0, nil, fmt.Errorf("the Hall's answer has a bad Content-Length %q", value)
			}
			if len(body) < n {
				return 0, nil, fmt.Errorf("the Hall's answer was cut short: %d of %d bytes", len(body), n)
			}
			body = body[:n]
		case "transfer-encoding":
			if !strings.EqualFold(value, "identity") {
				return 0, nil, fmt.Errorf("the Hall's answer is %s-encoded", value)
			}
		}
	}
	return status, body, nil
}

// clip shortens b for an error message.
func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
