// Package clip makes inputs (flag values, environment variables, strings from files) safe
// to print: shortened in error messages, so that a message stays one readable line however
// long the input, and with control characters escaped where they are printed or drawn.
package clip

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Max is how many bytes of an input a message shows.
const Max = 80

// String returns s when it is at most Max bytes long, else its first Max bytes (cut at a
// character boundary), an ellipsis and the full length in bytes.
func String(s string) string {
	if len(s) <= Max {
		return s
	}
	n := Max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:n], len(s))
}

// Quote is String for a quoted input: strconv.Quote of the kept part, then the ellipsis
// and length outside the quotes, so a shortened value does not read as the whole one.
func Quote(s string) string {
	if len(s) <= Max {
		return strconv.Quote(s)
	}
	n := Max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:n]), len(s))
}

// MessageMax is the longest quoted string or word that Message leaves whole.
const MessageMax = 160

// Message shortens, in an error message, every double-quoted string (as %q writes it) and
// every other run of non-space bytes longer than MessageMax: the place where an input too
// long to read was echoed keeps its start, an ellipsis and its length. Messages that quote
// their inputs with Quote come out unchanged; this is the net under those that do not
// (a library's message, a flag parser's).
func Message(s string) string {
	if len(s) <= MessageMax {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '"':
			end := closingQuote(s, i)
			lit := s[i:end]
			if len(lit) > MessageMax {
				n := MessageMax
				for n > 1 && !utf8.RuneStart(lit[n]) {
					n--
				}
				slashes := 0
				for k := n - 1; k > 0 && lit[k] == '\\'; k-- {
					slashes++
				}
				if slashes%2 == 1 { // do not end inside an escape
					n--
				}
				lit = fmt.Sprintf("%s\"… (%d bytes)", lit[:n], len(lit))
			}
			b.WriteString(lit)
			i = end
		case s[i] == ' ':
			b.WriteByte(' ')
			i++
		default:
			end := i
			for end < len(s) && s[end] != ' ' && s[end] != '"' {
				end++
			}
			word := s[i:end]
			body := strings.TrimRight(word, ":;,.)")
			if len(body) > MessageMax {
				n := MessageMax
				for n > 0 && !utf8.RuneStart(body[n]) {
					n--
				}
				word = fmt.Sprintf("%s… (%d bytes)%s", body[:n], len(body), word[len(body):])
			}
			b.WriteString(word)
			i = end
		}
	}
	return b.String()
}

// closingQuote returns the index just past the double quote that closes the one at s[i],
// or len(s) when none does.
func closingQuote(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(s)
}

// Printable returns s with everything that a terminal or an XML document must not get raw
// written as a Go escape: control characters (ESC, and so every escape sequence; NUL; CR,
// LF, tab), bytes that are not UTF-8 (\xff), the non-characters U+FFFE and U+FFFF, and the
// bidirectional controls that make text read in another order than it is (U+202E). For
// strings from files and flags, where they are printed or drawn.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !plain(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 { // a byte that is not UTF-8
				fmt.Fprintf(&b, "\\x%02x", s[i])
			} else {
				b.WriteRune(r) // U+FFFD itself
			}
		case !plain(r):
			q := strconv.QuoteRuneToASCII(r) // '\x1b', '\n', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plain reports whether r may be printed as it is.
func plain(r rune) bool {
	return !unicode.IsControl(r) && r != 0xFFFE && r != 0xFFFF && !unicode.Is(unicode.Bidi_Control, r)
}
