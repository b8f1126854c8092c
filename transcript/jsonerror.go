package transcript

import (
	"fmt"
	"strings"
)

// jsonError says why a line the scanner does not read is not JSON, in the
// words fastjson used when the readers were written on it (the warnings of
// logs already reported say so): the innermost reason and the values it
// lies in, without the rest of the line, in at most 120 bytes. It is
// written like fastjson's parser, and only ever runs on a line the scanner
// gave up on; FuzzScanner holds it to fastjson's messages.
func jsonError(line []byte) string {
	s := skipWS(string(line))
	_, tail, err := parseValueError(s, 0)
	var msg string
	switch {
	case err != "":
		msg = err
	case len(skipWS(tail)) > 0:
		msg = fmt.Sprintf("unexpected tail: %q", startEndString(skipWS(tail)))
	default:
		return "" // fastjson reads it
	}
	if i := strings.Index(msg, "; unparsed tail"); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 120 {
		msg = msg[:120] + "…"
	}
	return msg
}

func skipWS(s string) string {
	return strings.TrimLeft(s, " \t\n\r")
}

// startEndString is how fastjson shows a tail: whole, or its first and
// last 40 bytes.
func startEndString(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:40] + "..." + s[len(s)-40:]
}

// quotedStart is fmt's %q of s where only its start can be shown: the
// messages are cut at 120 bytes.
func quotedStart(s string) string {
	if len(s) > 200 {
		s = s[:200]
	}
	return fmt.Sprintf("%q", s)
}

// parseValueError reads one value of s as fastjson's parseValue does and
// returns what is left, or its error message; ok is false on an error.
func parseValueError(s string, depth int) (ok bool, tail string, err string) {
	if len(s) == 0 {
		return false, s, "cannot parse empty string"
	}
	depth++
	if depth > maxScanDepth {
		return false, s, fmt.Sprintf("too big depth for the nested JSON; it exceeds %d", maxScanDepth)
	}
	switch s[0] {
	case '{':
		ok, tail, err := parseObjectError(s[1:], depth)
		if !ok {
			return false, tail, "cannot parse object: " + err
		}
		return true, tail, ""
	case '[':
		ok, tail, err := parseArrayError(s[1:], depth)
		if !ok {
			return false, tail, "cannot parse array: " + err
		}
		return true, tail, ""
	case '"':
		end := stringEnd([]byte(s), 1)
		if end < 0 {
			return false, "", `cannot parse string: missing closing '"'`
		}
		return true, s[end+1:], ""
	case 't', 'f':
		word := "true"
		if s[0] == 'f' {
			word = "false"
		}
		if !strings.HasPrefix(s, word) {
			return false, s, "unexpected value found: " + quotedStart(s)
		}
		return true, s[len(word):], ""
	case 'n':
		if strings.HasPrefix(s, "null") {
			return true, s[4:], ""
		}
		if len(s) >= 3 && strings.EqualFold(s[:3], "nan") {
			return true, s[3:], ""
		}
		return false, s, "unexpected value found: " + quotedStart(s)
	}
	var sc scanner
	sc.reset([]byte(s))
	sc.number()
	if sc.bad {
		return false, s, fmt.Sprintf("cannot parse number: unexpected char: %q", s[:1])
	}
	return true, s[sc.pos:], ""
}

func parseArrayError(s string, depth int) (bool, string, string) {
	s = skipWS(s)
	if len(s) == 0 {
		return false, s, "missing ']'"
	}
	if s[0] == ']' {
		return true, s[1:], ""
	}
	for {
		s = skipWS(s)
		ok, tail, err := parseValueError(s, depth)
		if !ok {
			return false, tail, "cannot parse array value: " + err
		}
		s = skipWS(tail)
		switch {
		case len(s) == 0:
			return false, s, "unexpected end of array"
		case s[0] == ',':
			s = s[1:]
		case s[0] == ']':
			return true, s[1:], ""
		default:
			return false, s, "missing ',' after array value"
		}
	}
}

func parseObjectError(s string, depth int) (bool, string, string) {
	s = skipWS(s)
	if len(s) == 0 {
		return false, s, "missing '}'"
	}
	if s[0] == '}' {
		return true, s[1:], ""
	}
	for {
		s = skipWS(s)
		if len(s) == 0 || s[0] != '"' {
			return false, s, `cannot find opening '"" for object key`
		}
		end := stringEnd([]byte(s), 1)
		if end < 0 {
			return false, "", `cannot parse object key: missing closing '"'`
		}
		s = skipWS(s[end+1:])
		if len(s) == 0 || s[0] != ':' {
			return false, s, "missing ':' after object key"
		}
		s = skipWS(s[1:])
		ok, tail, err := parseValueError(s, depth)
		if !ok {
			return false, tail, "cannot parse object value: " + err
		}
		s = skipWS(tail)
		switch {
		case len(s) == 0:
			return false, s, "unexpected end of object"
		case s[0] == ',':
			s = s[1:]
		case s[0] == '}':
			return true, s[1:], ""
		default:
			return false, s, "missing ',' after object value"
		}
	}
}
