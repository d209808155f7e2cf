package acceptance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mscclpp-bench/mscclpp-bench/internal/bytesize"
	"github.com/mscclpp-bench/mscclpp-bench/internal/safefile"
)

// LoadSpec reads a spec file over base: the settings present in the file replace base's,
// the others are kept (a "collectives" or "network_collectives" list replaces base's whole
// list). The file is YAML
// (.yaml, .yml) or JSON (.json); other extensions are refused. A .json file must be
// strict JSON (no trailing commas, comments or YAML syntax) before its keys are read like
// YAML's. It must be a regular file (a FIFO is refused, never waited on). Keys are the
// snake_case names of Spec's fields, e.g.:
//
//	model: H200 SXM
//	min_port_put_gbs: 320
//	put_bytes: 256M
//	collectives:
//	  - {collective: allreduce, size: 256M, min_bus_bw: 280}
//	min_network_put_gbs: 10 # pairs on different hosts
//	network_collectives:    # on every rank of a job on several hosts
//	  - {collective: allreduce, size: 64M, min_bus_bw: 5}
//	  - {collective: alltoall, size: 64M}
//	network_link_fraction: 0.25 # limits from the links' rates where none is set
//	min_host_to_device_gbs: 40  # a job of one rank
//
// A base without PutBytes (Spec{}) gets DefaultPutBytes unless the file sets put_bytes.
//
// Sizes (put_bytes, size) are numbers of bytes or strings with a K, M or G suffix (powers
// of 1024). Unknown or repeated keys are errors, and the result must pass Validate. Errors
// name the file, and the line and field at fault.
func LoadSpec(path string, base Spec) (Spec, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".yaml", ".yml", ".json":
	default:
		return Spec{}, fmt.Errorf("acceptance: spec %s: extension %q is neither .yaml, .yml nor .json", path, ext)
	}
	data, err := safefile.ReadFile(path)
	if err != nil {
		return Spec{}, fmt.Errorf("acceptance: read spec: %w", err)
	}
	if ext == ".json" {
		if err := checkJSON(data); err != nil {
			return Spec{}, fmt.Errorf("acceptance: spec %s: %w", path, err)
		}
	}
	spec, err := parseSpec(data, base)
	if err != nil {
		return Spec{}, fmt.Errorf("acceptance: spec %s: %w", path, err)
	}
	if err := spec.Validate(); err != nil {
		return Spec{}, fmt.Errorf("acceptance: spec %s: %w", path, err)
	}
	return spec, nil
}

// checkJSON returns an error naming the line of the first JSON syntax error in data.
func checkJSON(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line := 1 + bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n"))
		return fmt.Errorf("line %d: not valid JSON: %v", line, syn)
	}
	if err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	return nil
}

// parseSpec applies the YAML or JSON document in data to a copy of base.
func parseSpec(data []byte, base Spec) (Spec, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return Spec{}, errors.New("the file is empty")
		}
		return Spec{}, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Spec{}, errors.New("the file holds more than one document")
	}
	spec := base
	spec.Collectives = append([]CollectiveLimit(nil), base.Collectives...)
	spec.NetworkCollectives = append([]CollectiveLimit(nil), base.NetworkCollectives...)
	if spec.PutBytes == 0 {
		spec.PutBytes = DefaultPutBytes
	}
	err := eachKey(&doc, "", func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "model":
			spec.Model, err = decodeString(v)
		case "ranks":
			spec.Ranks, err = decodeInt(v)
		case "require_peer_access":
			spec.RequirePeerAccess, err = decodeBool(v)
		case "min_nvlinks":
			spec.MinNVLinks, err = decodeInt(v)
		case "put_bytes":
			spec.PutBytes, err = decodeSize(v)
		case "max_memory_signal_us":
			spec.MaxMemorySignalUs, err = decodeFloat(v)
		case "max_port_signal_us":
			spec.MaxPortSignalUs, err = decodeFloat(v)
		case "min_memory_put_gbs":
			spec.MinMemoryPutGBs, err = decodeFloat(v)
		case "min_port_put_gbs":
			spec.MinPortPutGBs, err = decodeFloat(v)
		case "collectives":
			spec.Collectives, err = decodeLimits(v, key)
		case "max_network_signal_us":
			spec.MaxNetworkSignalUs, err = decodeFloat(v)
		case "min_network_put_gbs":
			spec.MinNetworkPutGBs, err = decodeFloat(v)
		case "network_collectives":
			spec.NetworkCollectives, err = decodeLimits(v, key)
		case "network_link_fraction":
			spec.NetworkLinkFraction, err = decodeFloat(v)
		case "copy_bytes":
			spec.CopyBytes, err = decodeSize(v)
		case "min_host_to_device_gbs":
			spec.MinHostToDeviceGBs, err = decodeFloat(v)
		case "min_device_to_host_gbs":
			spec.MinDeviceToHostGBs, err = decodeFloat(v)
		case "min_device_copy_gbs":
			spec.MinDeviceCopyGBs, err = decodeFloat(v)
		default:
			err = unknownKey(specKeys)
		}
		return err
	})
	return spec, err
}

// The keys of a spec file, and of each item of its collectives list.
var (
	specKeys = []string{
		"model", "ranks", "require_peer_access", "min_nvlinks", "put_bytes", "max_memory_signal_us",
		"max_port_signal_us", "min_memory_put_gbs", "min_port_put_gbs", "collectives",
		"max_network_signal_us", "min_network_put_gbs", "network_collectives", "network_link_fraction",
		"copy_bytes", "min_host_to_device_gbs", "min_device_to_host_gbs", "min_device_copy_gbs",
	}
	limitKeys = []string{"collective", "size", "max_time_us", "min_bus_bw"}
)

// errUnknownKey is wrapped by the errors about keys a spec file may not have.
var errUnknownKey = errors.New("unknown key")

// unknownKey returns an error about an unknown key, listing the known ones.
func unknownKey(known []string) error {
	return fmt.Errorf("%w (want one of %s)", errUnknownKey, strings.Join(known, ", "))
}

// fieldError is an error in the value of one field of a spec file.
type fieldError struct {
	line  int
	field string // e.g. "put_bytes", "collectives[1].size"
	err   error
}

func (e *fieldError) Error() string { return fmt.Sprintf("line %d: %s: %v", e.line, e.field, e.err) }
func (e *fieldError) Unwrap() error { return e.err }

// eachKey calls fn with every key and value of the mapping n, in order. The mapping is
// the value of field ("" for the whole file). Errors from fn, and repeated keys, come
// back as a *fieldError naming the line and field.key; a *fieldError from fn, about a
// nested field, comes back as it is.
func eachKey(n *yaml.Node, field string, fn func(key string, v *yaml.Node) error) error {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		where := "the file"
		if field != "" {
			where = field
		}
		return &fieldError{n.Line, where, fmt.Errorf("want a mapping of keys to values, got %s", describe(n))}
	}
	prefix := ""
	if field != "" {
		prefix = field + "."
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if seen[k.Value] {
			return &fieldError{k.Line, prefix + k.Value, errors.New("given twice")}
		}
		seen[k.Value] = true
		if err := fn(k.Value, v); err != nil {
			var fe *fieldError
			if errors.As(err, &fe) {
				return err
			}
			return &fieldError{k.Line, prefix + k.Value, err}
		}
	}
	return nil
}

// resolve follows YAML aliases and unwraps documents.
func resolve(n *yaml.Node) *yaml.Node {
	for {
		switch {
		case n.Kind == yaml.AliasNode && n.Alias != nil:
			n = n.Alias
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		default:
			return n
		}
	}
}

// describe names a node's kind for error messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "no value"
		}
		return strconv.Quote(n.Value)
	}
	return "nothing usable"
}

// scalar returns v when it is a scalar with one of tags, and an error saying what was
// wanted otherwise.
func scalar(v *yaml.Node, want string, tags ...string) (*yaml.Node, error) {
	if v.Kind == yaml.ScalarNode {
		for _, t := range tags {
			if v.ShortTag() == t {
				return v, nil
			}
		}
	}
	return nil, fmt.Errorf("want %s, got %s", want, describe(v))
}

// decodeString reads a scalar as a string (a model name may look like a number).
func decodeString(v *yaml.Node) (string, error) {
	s, err := scalar(v, "a string", "!!str", "!!int", "!!float")
	if err != nil {
		return "", err
	}
	return s.Value, nil
}

// decodeBool reads true or false.
func decodeBool(v *yaml.Node) (bool, error) {
	s, err := scalar(v, "true or false", "!!bool")
	if err != nil {
		return false, err
	}
	var b bool
	if err := s.Decode(&b); err != nil {
		return false, err
	}
	return b, nil
}

// decodeInt reads a whole number.
func decodeInt(v *yaml.Node) (int, error) {
	s, err := scalar(v, "a whole number", "!!int")
	if err != nil {
		return 0, err
	}
	var i int
	if err := s.Decode(&i); err != nil {
		return 0, fmt.Errorf("want a whole number, got %q", s.Value)
	}
	return i, nil
}

// decodeFloat reads a number, whole or not.
func decodeFloat(v *yaml.Node) (float64, error) {
	s, err := scalar(v, "a number", "!!int", "!!float")
	if err != nil {
		return 0, err
	}
	var f float64
	if err := s.Decode(&f); err != nil {
		return 0, fmt.Errorf("want a number, got %q", s.Value)
	}
	return f, nil
}

// decodeSize reads a byte count: a whole number, or a string bytesize.Parse reads.
func decodeSize(v *yaml.Node) (int64, error) {
	s, err := scalar(v, `a size in bytes such as 268435456 or "256M"`, "!!int", "!!str")
	if err != nil {
		return 0, err
	}
	if s.ShortTag() == "!!int" {
		var i int64
		if err := s.Decode(&i); err != nil {
			return 0, fmt.Errorf("size %q is out of range", s.Value)
		}
		return i, nil
	}
	return bytesize.Parse(s.Value)
}

// decodeLimits reads the list of collective limits in field.
func decodeLimits(v *yaml.Node, field string) ([]CollectiveLimit, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("want a list, got %s", describe(v))
	}
	limits := []CollectiveLimit{}
	for i, item := range v.Content {
		var l CollectiveLimit
		err := eachKey(item, fmt.Sprintf("%s[%d]", field, i), func(key string, v *yaml.Node) error {
			var err error
			switch key {
			case "collective":
				l.Collective, err = decodeString(v)
			case "size":
				l.Size, err = decodeSize(v)
			case "max_time_us":
				l.MaxTimeUs, err = decodeFloat(v)
			case "min_bus_bw":
				l.MinBusBw, err = decodeFloat(v)
			default:
				err = unknownKey(limitKeys)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		limits = append(limits, l)
	}
	return limits, nil
}
