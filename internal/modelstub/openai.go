package modelstub

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// openaiRequest is the part of a Responses request the stub reads.
type openaiRequest struct {
	Tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
	Input []struct {
		Type string `json:"type"`
	} `json:"input"`
}

// openai answers POST /v1/responses with the script's turn, streamed as
// the Responses API does: response.created, the output item, then
// response.completed (Codex fails a stream that ends without it). A tool
// Codex offers as a freeform "custom" tool (apply_patch) is called with
// a custom_tool_call and the turn's Raw input; any other with a
// function_call and its Input as JSON arguments.
func (s *Server) openai(w http.ResponseWriter, path string, body []byte) {
	var req openaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, fmt.Sprintf(`{"error":{"message":%q}}`, err.Error()), http.StatusBadRequest)
		return
	}
	results := 0
	for _, in := range req.Input {
		if in.Type == "function_call_output" || in.Type == "custom_tool_call_output" {
			results++
		}
	}
	main := len(req.Tools) > 0
	i, t := s.answer(OpenAI, path, body, main, results)
	custom := false
	for _, tool := range req.Tools {
		if tool.Name == t.Tool && tool.Type == "custom" {
			custom = true
		}
	}
	n := len(s.Requests())
	respID := fmt.Sprintf("resp_stub_%d", n)
	var item map[string]any
	switch {
	case t.Tool != "" && custom:
		item = map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_stub_%d", n), "status": "completed",
			"call_id": fmt.Sprintf("call_stub_%d", i), "name": t.Tool, "input": t.Raw}
	case t.Tool != "":
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_stub_%d", n), "status": "completed",
			"call_id": fmt.Sprintf("call_stub_%d", i), "name": t.Tool, "arguments": mustJSON(t.Input)}
	default:
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_stub_%d", n), "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": t.Text, "annotations": []any{}}}}
	}
	e := startSSE(w)
	e.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": respID, "status": "in_progress"}})
	e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	if t.Tool == "" {
		e.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": item["id"], "delta": t.Text})
	}
	e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	e.event("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": respID, "status": "completed", "output": []any{item},
		"usage": map[string]any{"input_tokens": len(body) / 4, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 8, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": len(body)/4 + 8}}})
}
