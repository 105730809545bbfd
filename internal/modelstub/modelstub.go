// Package modelstub is a scripted model server for tests that run the real
// agent CLIs (Claude Code, Codex CLI, Gemini CLI) against it: it listens on
// 127.0.0.1:0 and speaks, well enough for each CLI, the Anthropic Messages
// API (POST /v1/messages, streamed), the OpenAI Responses API (POST
// /v1/responses, streamed) and the Gemini API (:streamGenerateContent?alt=sse
// and :generateContent).
//
// A Script is a list of turns, each a tool call or a closing text. The
// server answers a conversation's request with the turn whose index is
// the number of tool results the request already carries: a retried or
// repeated request gets the same answer, and a side request the CLI makes
// on its own (a title, a quota probe, a router's choice: a request that
// offers the model no tools) gets a short harmless answer and takes no
// turn. Every request is recorded, so a test asks which text the model
// received in which request, and how many times over the session.
//
// Nothing here is used outside tests.
package modelstub

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// Turn is one answer of the model: a tool call (Tool set) or a text that
// ends the turn.
type Turn struct {
	// Tool is the tool the model calls, by the CLI's name for it
	// (Claude Code's Bash, Write, Edit; Codex's exec_command, shell,
	// apply_patch; Gemini CLI's run_shell_command, write_file).
	Tool string
	// Input is the tool's arguments. For a Codex freeform tool
	// (apply_patch offered as a "custom" tool) Raw is sent instead.
	Input map[string]any
	// Raw is a freeform tool's input, sent as it is.
	Raw string
	// Text is the model's closing text, when Tool is empty.
	Text string
	// Wait, when set, runs before the turn is answered: a test holds
	// the model there until what it waits for has happened (the Hall's
	// scanner has seen a change), so the next hook's answer does not
	// depend on how fast the machine is. It runs again for a request
	// the CLI repeats.
	Wait func()
}

// Call is a turn calling tool with input.
func Call(tool string, input map[string]any) Turn { return Turn{Tool: tool, Input: input} }

// Say is a turn ending with text.
func Say(text string) Turn { return Turn{Text: text} }

// Script is the turns of one conversation, in order. Past its end the
// model says "done".
type Script []Turn

// API names the protocol a request came in on.
type API string

// The APIs the server speaks.
const (
	Anthropic API = "anthropic"
	OpenAI    API = "openai"
	Gemini    API = "gemini"
)

// Request is one request the server received.
type Request struct {
	API  API
	Path string
	Body []byte
	// Main: the request offered the model tools, so it is the
	// conversation's (side requests offer none).
	Main bool
	// Turn is the script's turn the answer played (-1 for a side
	// request, len(script) and past for the closing "done").
	Turn int
	// Text is every string of the conversation the request carries (its
	// system text and messages, not its tool definitions), JSON
	// unescaped, one a line: what the model reads.
	Text string
}

// Server is a running stub.
type Server struct {
	// URL is the server's base, http://127.0.0.1:port.
	URL string

	script Script
	srv    *http.Server
	ln     net.Listener

	mu   sync.Mutex
	reqs []Request
}

// Start runs a stub playing script on 127.0.0.1:0; Close stops it.
func Start(script Script) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("modelstub: listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), script: script, ln: ln}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error {
	if err := s.srv.Close(); err != nil {
		return fmt.Errorf("modelstub: close: %w", err)
	}
	return nil
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Main returns the conversation's requests (those that offered tools), in
// order.
func (s *Server) Main() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Main {
			out = append(out, r)
		}
	}
	return out
}

// Count is how many times text occurs in the last conversation request,
// which carries the whole session so far: how many times the model was
// given text over the session. 0 with no request.
func (s *Server) Count(text string) int {
	m := s.Main()
	if len(m) == 0 {
		return 0
	}
	return strings.Count(m[len(m)-1].Text, text)
}

// First is the index, among Main(), of the first conversation request
// carrying text; -1 when none does.
func (s *Server) First(text string) int {
	for i, r := range s.Main() {
		if strings.Contains(r.Text, text) {
			return i
		}
	}
	return -1
}

// serve routes a request to its API by path.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/v1/messages"):
		s.anthropic(w, p, body)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		s.openai(w, p, body)
	case r.Method == http.MethodPost && (strings.HasSuffix(p, ":streamGenerateContent") || strings.HasSuffix(p, ":generateContent")):
		s.gemini(w, p, body, strings.HasSuffix(p, ":streamGenerateContent"))
	case r.Method == http.MethodPost && strings.HasSuffix(p, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": len(body) / 4})
	case strings.HasSuffix(p, "/v1/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": len(body) / 4})
	case strings.HasSuffix(p, "/models") || strings.Contains(p, "/models/"):
		// A CLI listing or probing models: one model, the stub.
		writeJSON(w, map[string]any{"data": []any{map[string]any{"id": "stub", "type": "model"}}, "models": []any{}})
	default:
		// Anything else a CLI probes at start (settings, metrics,
		// feature flags): an empty object, harmless.
		writeJSON(w, map[string]any{})
	}
}

// answer keeps a request and returns the turn to play, with its index:
// the script's turn at the number of tool results the request carries,
// or for a side request (one that offers no tools: a title, a route)
// a harmless "ok" at index -1, which uses up no turn.
func (s *Server) answer(api API, path string, body []byte, main bool, results int) (int, Turn) {
	i := s.record(api, path, body, main, results)
	if !main {
		return i, Say("ok")
	}
	return i, s.turn(i)
}

// record keeps a request and returns its turn's index: the number of
// tool results it carries, or -1 for a side request.
func (s *Server) record(api API, path string, body []byte, main bool, results int) int {
	turn := -1
	if main {
		turn = results
	}
	var doc map[string]any
	_ = json.Unmarshal(body, &doc)
	var b strings.Builder
	for _, k := range conversationKeys[api] {
		walkStrings(doc[k], func(str string) { b.WriteString(str); b.WriteByte('\n') })
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{API: api, Path: path, Body: body, Main: main, Turn: turn, Text: b.String()})
	s.mu.Unlock()
	return turn
}

// conversationKeys are the fields of each API's request that hold what
// the model reads, in the order it reads them.
var conversationKeys = map[API][]string{
	Anthropic: {"system", "messages"},
	OpenAI:    {"instructions", "input"},
	Gemini:    {"systemInstruction", "contents"},
}

// turn returns the script's turn i, or the closing "done" past its end.
func (s *Server) turn(i int) Turn {
	if i >= 0 && i < len(s.script) {
		if w := s.script[i].Wait; w != nil {
			w()
		}
		return s.script[i]
	}
	return Say("done")
}

// walkStrings calls f on every string value of v, in the order of the
// document for arrays and of the keys, sorted, for objects.
func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case []any:
		for _, e := range x {
			walkStrings(e, f)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkStrings(x[k], f)
		}
	}
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// sse streams server-sent events.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return sse{w: w, f: f}
}

// event writes one event: its name (none when empty) and data as JSON.
func (e sse) event(name string, data any) {
	b, _ := json.Marshal(data)
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", b)
	if e.f != nil {
		e.f.Flush()
	}
}

// mustJSON is v as a JSON string.
func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
