package modelstub

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// anthropicRequest is the part of a Messages request the stub reads.
type anthropicRequest struct {
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// anthropic answers POST /v1/messages: the script's turn as a streamed
// message (or a whole one, when the request does not stream).
func (s *Server) anthropic(w http.ResponseWriter, path string, body []byte) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, fmt.Sprintf(`{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, err.Error()), http.StatusBadRequest)
		return
	}
	results := 0
	for _, m := range req.Messages {
		var blocks []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_result" {
					results++
				}
			}
		}
	}
	main := len(req.Tools) > 0
	i, t := s.answer(Anthropic, path, body, main, results)
	id := fmt.Sprintf("msg_stub_%d", len(s.Requests()))
	var block map[string]any
	stop := "end_turn"
	if t.Tool != "" {
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_stub_%d", i), "name": t.Tool, "input": t.Input}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": t.Text}
	}
	usage := map[string]any{"input_tokens": len(body) / 4, "output_tokens": 8, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": "stub",
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	e := startSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "stub", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	if t.Tool != "" {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": t.Tool, "input": map[string]any{}}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": mustJSON(t.Input)}})
	} else {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": t.Text}})
	}
	e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 8}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}
