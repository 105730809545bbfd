// Package contract holds the Hall's wire types — the JSON that UI clients,
// pollers, scripts and agents read — and the mapping from the domain to
// them. The JSON field names here are a public contract: change them only
// on purpose, with a note in docs/api.md.
//
// It knows the domain (internal/presence). Of HTTP it knows only the status
// each refusal answers (errors.go), so the handlers and the in-process
// client (internal/hallclient) refuse alike; of SSE nothing.
package contract
