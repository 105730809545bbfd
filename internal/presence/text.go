package presence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// textKind is which rule a field's characters follow.
type textKind uint8

const (
	// prose is shown to people as it is (a theme, a path): any printable
	// text, but no control character and no bidi control, which would
	// reorder what a reader sees around it.
	prose textKind = iota
	// identifier names something (agent_id, kind, task_ref, tool): no
	// Unicode format character (category Cf: zero-width spaces and
	// joiners, bidi controls, soft hyphens, tags) either, so two names
	// that read the same are the same bytes.
	identifier
)

// checkText enforces presence, length, UTF-8 and the characters kind
// allows: a field is shown on one line everywhere, and reads as it is.
func checkText(name, v string, max int, required bool, kind textKind) error {
	switch {
	case required && strings.TrimSpace(v) == "":
		return Errorf(EINVALID, "%s is required", name)
	case len(v) > max:
		return Errorf(ETOOLARGE, "%s is %d bytes, limit %d", name, len(v), max)
	case !utf8.ValidString(v):
		return Errorf(EINVALID, "%s is not valid UTF-8", name)
	case strings.IndexFunc(v, unicode.IsControl) >= 0:
		return Errorf(EINVALID, "%s contains a control character", name)
	}
	if i := strings.IndexFunc(v, isBidiControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(v[i:])
		return Errorf(EINVALID, "%s contains the bidi control %U, which reorders the text around it", name, r)
	}
	if kind == identifier {
		if i := strings.IndexFunc(v, isFormat); i >= 0 {
			r, _ := utf8.DecodeRuneInString(v[i:])
			return Errorf(EINVALID, "%s contains the invisible format character %U: an identifier must read as it is", name, r)
		}
	}
	return nil
}

// CheckText applies the rule of shown text (valid UTF-8, one line, no bidi
// control, at most max bytes) to a value that did not come in a beat: a
// query parameter, a foreign record's field. The error names the field.
func CheckText(name, v string, max int) error { return checkText(name, v, max, false, prose) }

// CheckIdentifier applies the identifier rule (CheckText's, and no Unicode
// format character) to a value that did not come in a beat.
func CheckIdentifier(name, v string, max int) error {
	return checkText(name, v, max, false, identifier)
}

func isBidiControl(r rune) bool { return unicode.Is(unicode.Bidi_Control, r) }

func isFormat(r rune) bool { return unicode.Is(unicode.Cf, r) }

// SafeID is id as the Hall shows it to a model: the characters agent ids
// are made of (ASCII letters and digits, and - _ . : / @ +) kept, any
// other replaced by "_". A beat's identifier rule refuses only what hides
// or reorders text, and a foreign record's id is whatever its writer put
// there: shown verbatim, an id could carry words for the model to read
// ("ignore previous instructions"). The presence_id beside it stays the
// exact identity.
func SafeID(id string) string {
	if strings.IndexFunc(id, unsafeIDRune) < 0 {
		return id
	}
	return strings.Map(func(r rune) rune {
		if unsafeIDRune(r) {
			return '_'
		}
		return r
	}, id)
}

func unsafeIDRune(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("-_.:/@+", r)
}
