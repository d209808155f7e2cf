package bootstrap

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mscclpp-bench/mscclpp-bench/internal/clip"
)

// maxNodes bounds a whole host list (every item and bracket together).
const maxNodes = 1 << 16

// ExpandNodeList expands a Slurm host list such as "node[01-04,07],gpu-a[1-2]-ib,login"
// into host names, in order. A bracket holds numbers and ranges separated by commas; a
// range keeps the zero padding of its lower bound ("[08-10]" gives 08 09 10). Several
// brackets in one name expand as a product ("r[1-2]n[1-2]": r1n1 r1n2 r2n1 r2n2). A list
// of more than 65,536 hosts in all is an error, found from its ranges before any host is
// made.
func ExpandNodeList(list string) ([]string, error) {
	items, err := parseNodeList(list)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, it := range items {
		it.walk("", func(host string) bool {
			out = append(out, host)
			return true
		})
	}
	return out, nil
}

// FirstNode returns the first host of a Slurm host list. It checks the whole list as
// ExpandNodeList does, but makes only the first host.
func FirstNode(list string) (string, error) {
	items, err := parseNodeList(list)
	if err != nil {
		return "", err
	}
	first := ""
	items[0].walk("", func(host string) bool {
		first = host
		return false
	})
	return first, nil
}

// numRange is one number or range of a bracket: lo to hi, printed width digits wide at
// least (the zero padding of the lower bound).
type numRange struct {
	lo, hi, width int
}

// nodePart is a literal piece of a host name (ranges nil) or a bracket's ranges.
type nodePart struct {
	lit    string
	ranges []numRange
}

// nodeItem is one comma-separated item of a list: its parts, as a product.
type nodeItem []nodePart

// parseNodeList checks the syntax of the whole list and that it names at most maxNodes
// hosts in all, counting ranges without expanding them.
func parseNodeList(list string) ([]nodeItem, error) {
	strs, err := splitNodeList(list)
	if err != nil {
		return nil, err
	}
	items := make([]nodeItem, 0, len(strs))
	total := 0
	for _, s := range strs {
		it, err := parseNodeItem(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", clip.Quote(s), err)
		}
		items = append(items, it)
		// Both factors are at most maxNodes+1, so neither sum nor product overflows.
		if total += it.count(); total > maxNodes {
			return nil, fmt.Errorf("the list names more than %d hosts", maxNodes)
		}
	}
	return items, nil
}

// count is how many hosts the item names, or maxNodes+1 for more than maxNodes.
func (it nodeItem) count() int {
	n := 1
	for _, p := range it {
		if p.ranges == nil {
			continue
		}
		m := 0
		for _, r := range p.ranges {
			if m += r.hi - r.lo + 1; m > maxNodes {
				return maxNodes + 1
			}
		}
		if n *= m; n > maxNodes {
			return maxNodes + 1
		}
	}
	return n
}

// walk calls fn with prefix followed by every host of the item, in order, until fn
// returns false (walk then returns false too).
func (it nodeItem) walk(prefix string, fn func(string) bool) bool {
	if len(it) == 0 {
		return fn(prefix)
	}
	p, rest := it[0], it[1:]
	if p.ranges == nil {
		return rest.walk(prefix+p.lit, fn)
	}
	for _, r := range p.ranges {
		for v := r.lo; v <= r.hi; v++ {
			if !rest.walk(prefix+fmt.Sprintf("%0*d", r.width, v), fn) {
				return false
			}
		}
	}
	return true
}

// splitNodeList splits at the commas outside brackets.
func splitNodeList(list string) ([]string, error) {
	var items []string
	depth, start := 0, 0
	for i, c := range list {
		switch c {
		case '[':
			if depth++; depth > 1 {
				return nil, errors.New("nested '['")
			}
		case ']':
			if depth--; depth < 0 {
				return nil, errors.New("']' without '['")
			}
		case ',':
			if depth == 0 {
				items = append(items, list[start:i])
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, errors.New("'[' without ']'")
	}
	items = append(items, list[start:])
	for _, it := range items {
		if strings.TrimSpace(it) == "" {
			return nil, errors.New("empty host name")
		}
	}
	return items, nil
}

// parseNodeItem turns "a[1-2]b[3]" into the parts a, [1-2], b, [3].
func parseNodeItem(item string) (nodeItem, error) {
	var parts nodeItem
	for item != "" {
		open := strings.IndexByte(item, '[')
		if open < 0 {
			parts = append(parts, nodePart{lit: item})
			break
		}
		if open > 0 {
			parts = append(parts, nodePart{lit: item[:open]})
		}
		end := strings.IndexByte(item, ']')
		ranges, err := parseBracket(item[open+1 : end])
		if err != nil {
			return nil, err
		}
		parts = append(parts, nodePart{ranges: ranges})
		item = item[end+1:]
	}
	return parts, nil
}

// parseBracket reads "01-04,07" as the ranges 01-04 and 07-07.
func parseBracket(s string) ([]numRange, error) {
	var out []numRange
	for r := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		if !digits(lo) || !digits(hi) {
			return nil, fmt.Errorf("[%s]: %s is not a number or range", clip.String(s), clip.Quote(r))
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a > b {
			return nil, fmt.Errorf("[%s]: bad range %s", clip.String(s), clip.Quote(r))
		}
		if b-a >= maxNodes {
			return nil, fmt.Errorf("[%s]: the range %s names more than %d hosts", clip.String(s), clip.Quote(r), maxNodes)
		}
		out = append(out, numRange{a, b, len(lo)})
	}
	return out, nil
}

func digits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
