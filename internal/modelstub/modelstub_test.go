package modelstub

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// post sends body to the stub at path and returns the answer's data
// lines (the JSON of each event, or the whole body when not streamed).
func post(t *testing.T, s *Server, path, body string) []string {
	t.Helper()
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", path, resp.Status)
	}
	var out []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, d)
		} else if strings.HasPrefix(line, "{") {
			out = append(out, line)
		}
	}
	return out
}

func start(t *testing.T, script Script) *Server {
	t.Helper()
	s, err := Start(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestTurnsFollowToolResults: each API's conversation gets the turn at
// the number of tool results it carries (a repeated request the same
// one), a request offering no tools a side answer that takes no turn,
// and past the script "done".
func TestTurnsFollowToolResults(t *testing.T) {
	script := Script{Call("Bash", map[string]any{"command": "true"}), Say("finished")}
	for _, c := range []struct {
		name, path, first, second, side string
		want                            []string
	}{
		{"anthropic", "/v1/messages",
			`{"stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hi"}]}`,
			`{"stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use"}]},{"role":"user","content":[{"type":"tool_result","content":"HOOK TEXT"}]}]}`,
			`{"messages":[{"role":"user","content":"title?"}]}`,
			[]string{`"name":"Bash"`, `"text":"finished","type":"text_delta"`, `"text":"ok"`}},
		{"openai", "/v1/responses",
			`{"tools":[{"type":"function","name":"Bash"}],"input":[{"type":"message","content":"hi"}]}`,
			`{"tools":[{"type":"function","name":"Bash"}],"input":[{"type":"message","content":"hi"},{"type":"function_call"},{"type":"function_call_output","output":"HOOK TEXT"}]}`,
			`{"input":[{"type":"message","content":"side"}]}`,
			[]string{`"name":"Bash"`, `"text":"finished"`, `"text":"ok"`}},
		{"gemini", "/v1beta/models/m:streamGenerateContent",
			`{"tools":[{"functionDeclarations":[{"name":"Bash"}]}],"contents":[{"parts":[{"text":"hi"}]}]}`,
			`{"tools":[{"functionDeclarations":[{"name":"Bash"}]}],"contents":[{"parts":[{"text":"hi"}]},{"parts":[{"functionCall":{}}]},{"parts":[{"functionResponse":{"response":{"output":"HOOK TEXT"}}}]}]}`,
			`{"contents":[{"parts":[{"text":"route?"}]}],"generationConfig":{"responseMimeType":"text/plain"}}`,
			[]string{`"name":"Bash"`, `"text":"finished"`, `"text":"ok"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := start(t, script)
			for i, body := range []string{c.first, c.first, c.second, c.side} {
				got := strings.Join(post(t, s, c.path, body), "\n")
				want := c.want[0]
				switch i {
				case 2:
					want = c.want[1]
				case 3:
					want = c.want[2]
				}
				if !strings.Contains(got, want) {
					t.Errorf("request %d: answer %s; want it to hold %s", i, got, want)
				}
			}
			reqs, main := s.Requests(), s.Main()
			if len(reqs) != 4 || len(main) != 3 || reqs[3].Main || reqs[3].Turn != -1 {
				t.Fatalf("recorded %d requests, %d of the conversation; want 4 and 3, the last a side request", len(reqs), len(main))
			}
			if main[0].Turn != 0 || main[1].Turn != 0 || main[2].Turn != 1 {
				t.Errorf("turns %d %d %d; want 0 0 1", main[0].Turn, main[1].Turn, main[2].Turn)
			}
			if n, first := s.Count("HOOK TEXT"), s.First("HOOK TEXT"); n != 1 || first != 2 {
				t.Errorf("HOOK TEXT: %d times, first in request %d; want once, in request 2", n, first)
			}
			if got := post(t, s, c.path, strings.Replace(c.second, "HOOK TEXT", "x", 1)+""); len(got) == 0 {
				t.Error("no answer past the script")
			}
		})
	}
}

// TestWaitHoldsTheTurn: a turn's Wait runs before the turn is answered.
func TestWaitHoldsTheTurn(t *testing.T) {
	waited := false
	s := start(t, Script{{Text: "after", Wait: func() { waited = true }}})
	got := strings.Join(post(t, s, "/v1/messages", `{"stream":true,"tools":[{"name":"Bash"}],"messages":[]}`), "\n")
	if !waited || !strings.Contains(got, `"text":"after"`) {
		t.Errorf("waited %v, answer %s; want the wait run, then the turn", waited, got)
	}
}
