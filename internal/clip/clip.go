// Package clip shortens inputs (flag values, environment variables, strings from files)
// for error messages, so that a message stays one readable line however long the input.
package clip

import (
	"fmt"
	"strconv"
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
