package results

import (
	"bytes"
	"io"
)

// commentWriter prefixes every line written through it with "# ".
type commentWriter struct {
	w         io.Writer
	lineStart bool
}

// NewCommentWriter returns a writer that prefixes each line with "# " (a
// bare "#" for empty lines), turning any text, such as a WriteBestSummary
// table, into comment lines that nccl-tests parsers skip.
func NewCommentWriter(w io.Writer) io.Writer {
	return &commentWriter{w: w, lineStart: true}
}

// Write implements io.Writer. It reports len(p) on success.
func (c *commentWriter) Write(p []byte) (int, error) {
	var out bytes.Buffer
	for _, b := range p {
		if c.lineStart {
			if b == '\n' {
				out.WriteByte('#')
			} else {
				out.WriteString("# ")
			}
		}
		out.WriteByte(b)
		c.lineStart = b == '\n'
	}
	if _, err := c.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}
