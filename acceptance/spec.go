package acceptance

import (
	"errors"
	"fmt"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bytesize"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Spec is what a node must meet to pass acceptance. Zero limits are not checked.
type Spec struct {
	// Model is the GPU model every GPU must be, e.g. "H200 SXM"; a family such as "H100"
	// accepts every variant. Empty: not checked.
	Model string `json:"model" yaml:"model"`
	// Ranks is the expected number of ranks (one per GPU); 0: any.
	Ranks int `json:"ranks" yaml:"ranks"`
	// RequirePeerAccess asks every GPU used by a rank to reach every other one's memory.
	RequirePeerAccess bool `json:"require_peer_access" yaml:"require_peer_access"`
	// MinNVLinks is the least number of NVLinks between every two GPUs; 0: not checked.
	MinNVLinks int `json:"min_nvlinks" yaml:"min_nvlinks"`
	// PutBytes is the size of the put-bandwidth measurement in bytes.
	PutBytes int64 `json:"put_bytes" yaml:"put_bytes"`
	// Most one-way signal latency per pair, µs.
	MaxMemorySignalUs float64 `json:"max_memory_signal_us" yaml:"max_memory_signal_us"`
	MaxPortSignalUs   float64 `json:"max_port_signal_us" yaml:"max_port_signal_us"`
	// Least one-way put bandwidth per pair at PutBytes, GB/s.
	MinMemoryPutGBs float64 `json:"min_memory_put_gbs" yaml:"min_memory_put_gbs"`
	MinPortPutGBs   float64 `json:"min_port_put_gbs" yaml:"min_port_put_gbs"`
	// Collectives are the collective measurements and their limits. On several hosts
	// each host runs them on its own ranks.
	Collectives []CollectiveLimit `json:"collectives" yaml:"collectives"`
	// Between hosts (jobs on several hosts only): the most one-way signal latency and the
	// least put bandwidth at PutBytes of every pair of ranks on different hosts, over port
	// channels (the network), and the collectives run on every rank. 0: not checked
	// (the figures are still measured, verified and reported).
	MaxNetworkSignalUs float64           `json:"max_network_signal_us" yaml:"max_network_signal_us"`
	MinNetworkPutGBs   float64           `json:"min_network_put_gbs" yaml:"min_network_put_gbs"`
	NetworkCollectives []CollectiveLimit `json:"network_collectives" yaml:"network_collectives"`
}

// CollectiveLimit is what one collective at one size must meet.
type CollectiveLimit struct {
	Collective string  `json:"collective" yaml:"collective"`   // "allreduce" or "allgather"
	Size       int64   `json:"size" yaml:"size"`               // bytes
	MaxTimeUs  float64 `json:"max_time_us" yaml:"max_time_us"` // 0: not checked
	MinBusBw   float64 `json:"min_bus_bw" yaml:"min_bus_bw"`   // GB/s; 0: not checked
}

// Collectives acceptance can measure.
const (
	AllReduce = "allreduce"
	AllGather = "allgather"
)

// DefaultPutBytes is the default size of the put-bandwidth measurement: 256 MiB.
const DefaultPutBytes = 256 << 20

// Models DefaultSpec has thresholds for.
const (
	ModelH200SXM = "H200 SXM"
	ModelH100SXM = "H100 SXM"
)

// ErrNoBuiltinSpec is wrapped by DefaultSpec's error for GPUs without built-in thresholds.
var ErrNoBuiltinSpec = errors.New("acceptance: no built-in thresholds")

// builtinSpec returns the built-in thresholds for model (ModelH200SXM or ModelH100SXM).
//
// They are conservative floors from measurements on 2×H200 SXM (NVLink 4, NV18) taken on
// 2026-11-22 (docs/performance.md), where:
//
//   - memory-channel signal was 0.6-0.77 µs one way (relaxed; 1.2-1.38 µs with
//     release/acquire, which acceptance measures), port-channel signal 3.9 µs (host tokens,
//     as acceptance measures it; 7.1 µs with tokens in GPU memory);
//   - put of 256 MiB reached 364 GB/s over memory channels and 392 GB/s over port channels;
//   - allreduce 256 MiB reached 341 GB/s bus bandwidth, allgather 256 MiB 348 GB/s
//     (about 380 GB/s at 1-2 GiB);
//   - allreduce 8 B took about 2.5 µs, allreduce 1 MiB 11 µs, allgather 1 KiB 2.5 µs, all with
//     CUDA graphs. Without graphs, launch jitter adds several µs (7 µs for allreduce 8 B,
//     12 µs for allgather 1 KiB), so the latency limits assume graph timing.
//
// H100 SXM has the same NVLink 4 (18 links) and NVSwitch fabric; its values are derived
// from the H200 ones (the same floors), not measured.
func builtinSpec(model string) Spec {
	return Spec{
		Model:             model,
		RequirePeerAccess: true,
		MinNVLinks:        18,
		PutBytes:          DefaultPutBytes,
		MaxMemorySignalUs: 2,
		MaxPortSignalUs:   15,
		MinMemoryPutGBs:   300,
		MinPortPutGBs:     320,
		Collectives: []CollectiveLimit{
			{Collective: AllReduce, Size: 8, MaxTimeUs: 10},
			{Collective: AllReduce, Size: 1 << 20, MaxTimeUs: 30},
			{Collective: AllReduce, Size: 256 << 20, MinBusBw: 280},
			{Collective: AllGather, Size: 1 << 10, MaxTimeUs: 10},
			{Collective: AllGather, Size: 256 << 20, MinBusBw: 300},
		},
		// The network between hosts is not the GPU's: measured and verified, not judged.
		NetworkCollectives: []CollectiveLimit{
			{Collective: AllReduce, Size: 8},
			{Collective: AllReduce, Size: 1 << 20},
			{Collective: AllReduce, Size: 64 << 20},
			{Collective: AllGather, Size: 1 << 10},
			{Collective: AllGather, Size: 64 << 20},
		},
	}
}

// DefaultSpec returns the built-in thresholds for the GPU named gpuName, as CUDA or NVML
// name it ("NVIDIA H200", "NVIDIA H100 80GB HBM3") or as Model returns it ("H200 SXM").
// Only H200 SXM and H100 SXM have built-in thresholds; for any other GPU the error wraps
// ErrNoBuiltinSpec and tells to use --spec FILE.
func DefaultSpec(gpuName string) (Spec, error) {
	model, known := Model(gpuName)
	switch {
	case model == ModelH200SXM || model == ModelH100SXM:
		return builtinSpec(model), nil
	case known:
		return Spec{}, fmt.Errorf("%w for %s (GPU %q); use --spec FILE", ErrNoBuiltinSpec, model, gpuName)
	default:
		return Spec{}, fmt.Errorf("%w for GPU %q; use --spec FILE", ErrNoBuiltinSpec, gpuName)
	}
}

// Model returns the model that a GPU name as CUDA or NVML report it stands for, and
// whether it knows the name: "H200 SXM" for "NVIDIA H200", "H100 SXM" for
// "NVIDIA H100 80GB HBM3" or "NVIDIA H100 SXM5 80GB", "H100 PCIe", "H100 NVL", "H200 NVL".
// Unknown names give "" and false.
func Model(gpuName string) (string, bool) {
	t := nameTokens(gpuName)
	if len(t) == 0 {
		return "", false
	}
	has := func(word string) bool {
		for _, w := range t[1:] {
			if tokenMatches(word, w) {
				return true
			}
		}
		return false
	}
	switch t[0] {
	case "h200":
		switch {
		case has("nvl"):
			return "H200 NVL", true
		case has("pcie"):
			return "", false
		default: // the SXM H200 calls itself just "NVIDIA H200"
			return ModelH200SXM, true
		}
	case "h100":
		switch {
		case has("nvl"):
			return "H100 NVL", true
		case has("pcie"):
			return "H100 PCIe", true
		case has("sxm") || has("hbm3"):
			return ModelH100SXM, true
		}
	}
	return "", false
}

// matchesModel reports whether the GPU named gpuName is of model, a model or a family
// such as "H100": every word of model must appear in the GPU's model (Model's answer, or
// the name itself when Model does not know it), where "sxm" also matches "sxm4".
func matchesModel(model, gpuName string) bool {
	have := nameTokens(gpuName)
	if m, ok := Model(gpuName); ok {
		have = nameTokens(m)
	}
	for _, want := range nameTokens(model) {
		found := false
		for _, h := range have {
			if tokenMatches(want, h) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// nameTokens splits a GPU or model name into lower-case words of letters and digits,
// without the vendor: "NVIDIA A100-SXM4-80GB" gives a100, sxm4, 80gb.
func nameTokens(name string) []string {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := words[:0]
	for _, w := range words {
		if w != "nvidia" {
			out = append(out, w)
		}
	}
	return out
}

// tokenMatches reports whether the name word have is want or, when want ends with a
// letter, want followed by digits: "sxm" matches "sxm" and "sxm5", "a100" not "a1000".
func tokenMatches(want, have string) bool {
	if want == have {
		return true
	}
	rest, ok := strings.CutPrefix(have, want)
	last, _ := utf8.DecodeLastRuneInString(want)
	return ok && unicode.IsLetter(last) && strings.TrimFunc(rest, unicode.IsDigit) == ""
}

// Validate checks that s makes sense: no negative or non-finite limits, a positive
// PutBytes, and collective limits naming allreduce or allgather at positive sizes, each
// (collective, size) once. Errors name the field as a spec file spells it.
func (s Spec) Validate() error {
	if s.Ranks < 0 {
		return fmt.Errorf("ranks: %d is negative", s.Ranks)
	}
	if s.MinNVLinks < 0 {
		return fmt.Errorf("min_nvlinks: %d is negative", s.MinNVLinks)
	}
	if s.PutBytes <= 0 {
		return fmt.Errorf("put_bytes: %d is not positive", s.PutBytes)
	}
	limits := []struct {
		field string
		v     float64
	}{
		{"max_memory_signal_us", s.MaxMemorySignalUs},
		{"max_port_signal_us", s.MaxPortSignalUs},
		{"min_memory_put_gbs", s.MinMemoryPutGBs},
		{"min_port_put_gbs", s.MinPortPutGBs},
		{"max_network_signal_us", s.MaxNetworkSignalUs},
		{"min_network_put_gbs", s.MinNetworkPutGBs},
	}
	for _, l := range limits {
		if err := checkLimit(l.v); err != nil {
			return fmt.Errorf("%s: %w", l.field, err)
		}
	}
	if err := validateLimits("collectives", s.Collectives); err != nil {
		return err
	}
	return validateLimits("network_collectives", s.NetworkCollectives)
}

// validateLimits checks the collective limits of the list name: allreduce or allgather at
// positive sizes, each (collective, size) once.
func validateLimits(name string, list []CollectiveLimit) error {
	seen := map[CollectiveLimit]bool{}
	for i, c := range list {
		field := fmt.Sprintf("%s[%d]", name, i)
		if c.Collective != AllReduce && c.Collective != AllGather {
			return fmt.Errorf("%s.collective: %q is not %s or %s", field, c.Collective, AllReduce, AllGather)
		}
		if c.Size <= 0 {
			return fmt.Errorf("%s.size: %d is not positive", field, c.Size)
		}
		if err := checkLimit(c.MaxTimeUs); err != nil {
			return fmt.Errorf("%s.max_time_us: %w", field, err)
		}
		if err := checkLimit(c.MinBusBw); err != nil {
			return fmt.Errorf("%s.min_bus_bw: %w", field, err)
		}
		key := CollectiveLimit{Collective: c.Collective, Size: c.Size}
		if seen[key] {
			return fmt.Errorf("%s: %s %s is listed twice", field, c.Collective, bytesize.Format(c.Size))
		}
		seen[key] = true
	}
	return nil
}

// checkLimit returns an error when v cannot be a limit: negative, NaN or infinite.
func checkLimit(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%v is not a finite number", v)
	}
	if v < 0 {
		return fmt.Errorf("%v is negative", v)
	}
	return nil
}
