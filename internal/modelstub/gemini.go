package modelstub

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// geminiRequest is the part of a generateContent request the stub reads.
type geminiRequest struct {
	Contents []struct {
		Parts []map[string]json.RawMessage `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

// gemini answers :streamGenerateContent (as server-sent events, alt=sse)
// and :generateContent with the script's turn. A side request asking for
// JSON (Gemini CLI's router and checks) gets {}: no opinion.
func (s *Server) gemini(w http.ResponseWriter, path string, body []byte, stream bool) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, fmt.Sprintf(`{"error":{"code":400,"message":%q,"status":"INVALID_ARGUMENT"}}`, err.Error()), http.StatusBadRequest)
		return
	}
	results, decls := 0, 0
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if _, ok := p["functionResponse"]; ok {
				results++
			}
		}
	}
	for _, t := range req.Tools {
		decls += len(t.FunctionDeclarations)
	}
	main := decls > 0
	_, t := s.answer(Gemini, path, body, main, results)
	if !main && req.GenerationConfig.ResponseMimeType == "application/json" {
		t = Say("{}") // a side request that wants JSON (the model router)
	}
	part := map[string]any{"text": t.Text}
	if t.Tool != "" {
		part = map[string]any{"functionCall": map[string]any{"name": t.Tool, "args": t.Input}}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": len(body) / 4, "candidatesTokenCount": 8, "totalTokenCount": len(body)/4 + 8},
		"modelVersion":  "stub",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	startSSE(w).event("", resp)
}
