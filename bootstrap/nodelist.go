package bootstrap

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxNodes bounds ExpandNodeList.
const maxNodes = 1 << 16

// ExpandNodeList expands a Slurm host list such as "node[01-04,07],gpu-a[1-2]-ib,login"
// into host names, in order. A bracket holds numbers and ranges separated by commas; a
// range keeps the zero padding of its lower bound ("[08-10]" gives 08 09 10). Several
// brackets in one name expand as a product ("r[1-2]n[1-2]": r1n1 r1n2 r2n1 r2n2).
func ExpandNodeList(list string) ([]string, error) {
	var out []string
	err := walkNodeList(list, func(host string) bool {
		out = append(out, host)
		return len(out) < maxNodes+1
	})
	if err == nil && len(out) > maxNodes {
		err = fmt.Errorf("more than %d hosts", maxNodes)
	}
	return out, err
}

// FirstNode returns the first host of a Slurm host list.
func FirstNode(list string) (string, error) {
	first := ""
	err := walkNodeList(list, func(host string) bool {
		first = host
		return false
	})
	if err == nil && first == "" {
		err = errors.New("empty host list")
	}
	return first, err
}

// walkNodeList calls fn with each host until fn returns false. It checks the syntax of
// the whole list first.
func walkNodeList(list string, fn func(string) bool) error {
	items, err := splitNodeList(list)
	if err != nil {
		return err
	}
	var groups [][][]string
	for _, item := range items {
		parts, err := parseNodeItem(item)
		if err != nil {
			return fmt.Errorf("%q: %w", item, err)
		}
		groups = append(groups, parts)
	}
	for _, parts := range groups {
		if !product("", parts, fn) {
			return nil
		}
	}
	return nil
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

// parseNodeItem turns "a[1-2]b[3]" into [[a] [1 2] [b] [3]]: literal parts have one choice.
func parseNodeItem(item string) ([][]string, error) {
	var parts [][]string
	for item != "" {
		open := strings.IndexByte(item, '[')
		if open < 0 {
			parts = append(parts, []string{item})
			break
		}
		if open > 0 {
			parts = append(parts, []string{item[:open]})
		}
		end := strings.IndexByte(item, ']')
		nums, err := expandBracket(item[open+1 : end])
		if err != nil {
			return nil, err
		}
		parts = append(parts, nums)
		item = item[end+1:]
	}
	return parts, nil
}

// expandBracket expands "01-04,07" into 01 02 03 04 07.
func expandBracket(s string) ([]string, error) {
	var out []string
	for _, r := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		if !digits(lo) || !digits(hi) {
			return nil, fmt.Errorf("[%s]: %q is not a number or range", s, r)
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a > b || b-a >= maxNodes {
			return nil, fmt.Errorf("[%s]: bad range %q", s, r)
		}
		for v := a; v <= b; v++ {
			out = append(out, fmt.Sprintf("%0*d", len(lo), v))
		}
	}
	return out, nil
}

func digits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// product calls fn with prefix followed by every combination of the parts' choices, in
// order, until fn returns false (product then returns false too).
func product(prefix string, parts [][]string, fn func(string) bool) bool {
	if len(parts) == 0 {
		return fn(prefix)
	}
	for _, choice := range parts[0] {
		if !product(prefix+choice, parts[1:], fn) {
			return false
		}
	}
	return true
}
