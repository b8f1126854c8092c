package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// maxName is the longest name EscapeName makes, within every common file
// system's limit of 255 bytes.
const maxName = 240

// EscapeName makes s one file name, injectively: ASCII letters, digits,
// '.', '-' and '_' stay, so the names of ordinary ids are the harness's
// own; every other byte becomes ~XX (hex); "", "." and ".." become "~",
// "~2E" and "~2E~2E". A name longer than maxName keeps its start and ends
// in ~ and 16 hex digits of its SHA-256.
func EscapeName(s string) string {
	switch s {
	case "":
		return "~"
	case ".":
		return "~2E"
	case "..":
		return "~2E~2E"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; safeByte(c) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "~%02X", c)
		}
	}
	out := b.String()
	if len(out) > maxName {
		sum := sha256.Sum256([]byte(s))
		out = out[:maxName-17] + "~" + hex.EncodeToString(sum[:8])
	}
	return out
}

func safeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
}

// ValidName reports whether e could have come from EscapeName: one path
// element that names nothing but itself.
func ValidName(e string) bool {
	if e == "" || e == "." || e == ".." || len(e) > maxName {
		return false
	}
	for i := 0; i < len(e); i++ {
		if c := e[i]; !safeByte(c) && c != '~' {
			return false
		}
	}
	return true
}
