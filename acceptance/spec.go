package acceptance

import (
	"errors"
	"fmt"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bytesize"
	"math"
	"slices"
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
	// NetworkLinkFraction turns on the network limits read from the links (Figures.Links),
	// for every network limit the spec leaves at 0: a pair's put bandwidth must reach this
	// share of the slower of its two ranks' link rates; its signal latency must stay under
	// DefaultNetworkSignalUs for its transport; a network collective of at least
	// LinkFloorBytes must reach this share of the slowest link's rate divided by the most
	// ranks on one host (ranks of a host may share one link). Where a rank's link rate
	// cannot be read (loopback, veth, a driver that reports none), those limits are not
	// set and the checks are reported as SKIP with the reason. 0: no limit from the links.
	NetworkLinkFraction float64 `json:"network_link_fraction" yaml:"network_link_fraction"`

	// A job of one rank (one GPU) measures host↔GPU copies from and to pinned host memory
	// and a copy inside the GPU's memory, each of CopyBytes, through the copy engines
	// (cuMemcpyAsync, as nvbandwidth's memcpy_ce tests), GB/s. 0: not checked (reported
	// as SKIP).
	CopyBytes          int64   `json:"copy_bytes" yaml:"copy_bytes"`
	MinHostToDeviceGBs float64 `json:"min_host_to_device_gbs" yaml:"min_host_to_device_gbs"`
	MinDeviceToHostGBs float64 `json:"min_device_to_host_gbs" yaml:"min_device_to_host_gbs"`
	MinDeviceCopyGBs   float64 `json:"min_device_copy_gbs" yaml:"min_device_copy_gbs"`
}

// CollectiveLimit is what one collective at one size must meet.
type CollectiveLimit struct {
	Collective string  `json:"collective" yaml:"collective"`   // one of Collectives
	Size       int64   `json:"size" yaml:"size"`               // bytes
	MaxTimeUs  float64 `json:"max_time_us" yaml:"max_time_us"` // 0: not checked
	MinBusBw   float64 `json:"min_bus_bw" yaml:"min_bus_bw"`   // GB/s; 0: not checked
}

// Collectives acceptance can measure.
const (
	AllReduce     = "allreduce"
	AllGather     = "allgather"
	ReduceScatter = "reducescatter"
	AllToAll      = "alltoall"
	SendRecv      = "sendrecv"
)

// Measurable lists the collectives a spec may name. Adding one here (a collective of the
// registry that takes float sums) is all a spec needs to measure it; where the job's layout
// has no algorithm for it, its checks are reported as SKIP with the reason.
var Measurable = []string{AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv}

// DefaultPutBytes is the default size of the put-bandwidth measurement: 256 MiB.
const DefaultPutBytes = 256 << 20

// DefaultCopyBytes is the default size of a one-rank job's copy measurements: 256 MiB.
const DefaultCopyBytes = 256 << 20

// DefaultNetworkLinkFraction is the built-in Spec.NetworkLinkFraction: a quarter of the
// link's rate, low enough for TCP through host staging on Ethernet and high enough to
// catch a link that negotiated a tenth of its speed.
const DefaultNetworkLinkFraction = 0.25

// LinkFloorBytes is the smallest network collective that NetworkLinkFraction gives a bus
// bandwidth floor: smaller ones are bound by latency, not by the link.
const LinkFloorBytes = 16 << 20

// DefaultNetworkSignalUs is the most one-way port-channel signal latency, µs, between
// ranks on different hosts when the spec sets none and both ranks' links are known: a
// ceiling on a broken path (retransmits, a stalled proxy), not a tuning target. On
// Ethernet a signal crosses the proxy and a TCP socket each way; on InfiniBand it is an
// RDMA operation.
var DefaultNetworkSignalUs = map[string]float64{"ethernet": 250, "ib": 50}

// networkCollectives are the built-in collectives run on every rank of a job on several
// hosts. A collective with no algorithm for the job's layout is reported as SKIP.
func networkCollectives() []CollectiveLimit {
	return []CollectiveLimit{
		{Collective: AllReduce, Size: 8},
		{Collective: AllReduce, Size: 1 << 20},
		{Collective: AllReduce, Size: 64 << 20},
		{Collective: AllGather, Size: 1 << 10},
		{Collective: AllGather, Size: 64 << 20},
		{Collective: AllToAll, Size: 1 << 10},
		{Collective: AllToAll, Size: 64 << 20},
		{Collective: SendRecv, Size: 8},
		{Collective: SendRecv, Size: 64 << 20},
	}
}

// GenericSpec is the base for GPUs without built-in thresholds, under a --spec file: no
// GPU limit, the default sizes, the built-in network collectives and the limits from the
// links.
func GenericSpec() Spec {
	return Spec{
		PutBytes:            DefaultPutBytes,
		CopyBytes:           DefaultCopyBytes,
		NetworkCollectives:  networkCollectives(),
		NetworkLinkFraction: DefaultNetworkLinkFraction,
	}
}

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
// H100 SXM has the same NVLink 4 (18 links) and NVSwitch fabric and the same floors but
// one, checked against 2×H100 80GB HBM3 (NV18, driver 580) on 2026-11-25: its
// memory-channel signal took 2.19-2.28 µs one way with release/acquire (0.61-0.70 relaxed)
// in seven measurements, so its limit is 3 µs where the H200's is 2; the other figures cleared
// the floors (port signal 4.0-4.8 µs, puts 364 and 394 GB/s, allreduce 8 B 2.8 µs and
// 1 MiB 11.5 µs, allreduce and allgather 256 MiB 349 and 327 GB/s).
//
// A job of one rank is held to copy floors: host↔GPU 40 GB/s each way (both models sit on
// PCIe 5 x16, and a link trained at PCIe 4 gives about 25), and 1000 GB/s for a copy
// inside the GPU's memory (read and write; HBM3 of 3.35 TB/s on H100 SXM, HBM3e of
// 4.8 TB/s on H200). Measured by acceptance itself on one H100 80GB HBM3 (driver 580,
// 2026-11-25, 256 MiB copies): 54.8 GB/s host to GPU, 55.2 GB/s GPU to host, 1491 GB/s
// inside the GPU; pinned copies measured 55 GB/s each way on the 2×H200 machine too.
//
// Between hosts, the limits come from the links (NetworkLinkFraction): the network is
// not the GPU's.
func builtinSpec(model string) Spec {
	return Spec{
		Model:             model,
		RequirePeerAccess: true,
		MinNVLinks:        18,
		PutBytes:          DefaultPutBytes,
		MaxMemorySignalUs: maxMemorySignalUs[model],
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
		NetworkCollectives:  networkCollectives(),
		NetworkLinkFraction: DefaultNetworkLinkFraction,
		CopyBytes:           DefaultCopyBytes,
		MinHostToDeviceGBs:  40,
		MinDeviceToHostGBs:  40,
		MinDeviceCopyGBs:    1000,
	}
}

// maxMemorySignalUs is each model's built-in memory-channel signal limit (builtinSpec).
var maxMemorySignalUs = map[string]float64{ModelH200SXM: 2, ModelH100SXM: 3}

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
// PutBytes, a CopyBytes of at least 0 (positive when copy limits are set), a
// NetworkLinkFraction from 0 to 1, and collective limits naming collectives of Measurable
// at positive sizes, each (collective, size) once. Errors name the field as a spec file spells it.
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
	if s.CopyBytes < 0 {
		return fmt.Errorf("copy_bytes: %d is negative", s.CopyBytes)
	}
	if s.CopyBytes == 0 && (s.MinHostToDeviceGBs > 0 || s.MinDeviceToHostGBs > 0 || s.MinDeviceCopyGBs > 0) {
		return errors.New("copy_bytes: 0, but copy limits are set: give the size of the copies")
	}
	if f := s.NetworkLinkFraction; !(f >= 0 && f <= 1) {
		return fmt.Errorf("network_link_fraction: %v is not from 0 to 1", f)
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
		{"min_host_to_device_gbs", s.MinHostToDeviceGBs},
		{"min_device_to_host_gbs", s.MinDeviceToHostGBs},
		{"min_device_copy_gbs", s.MinDeviceCopyGBs},
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

// validateLimits checks the collective limits of the list name: collectives of Measurable
// at positive sizes, each (collective, size) once.
func validateLimits(name string, list []CollectiveLimit) error {
	seen := map[CollectiveLimit]bool{}
	for i, c := range list {
		field := fmt.Sprintf("%s[%d]", name, i)
		if !slices.Contains(Measurable, c.Collective) {
			return fmt.Errorf("%s.collective: %q is not one of %s", field, c.Collective, strings.Join(Measurable, ", "))
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
