package acceptance

import (
	"fmt"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bytesize"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Check is one comparison of a measured figure, or a fact about the node, with the spec.
type Check struct {
	Name    string  `json:"name"`              // e.g. "memory signal latency"
	Pair    string  `json:"pair,omitempty"`    // rank pair, "0-1"; "" for node and collective checks
	Subject string  `json:"subject,omitempty"` // e.g. "allreduce 256M", "GPU 3", "GPU 0-1", the hostname
	Value   float64 `json:"value"`             // the measured figure
	Limit   float64 `json:"limit"`
	Unit    string  `json:"unit,omitempty"` // of Value and Limit, e.g. "us", "GB/s"
	Cmp     string  `json:"cmp,omitempty"`  // how Value must compare with Limit: "<=", ">=", "=="
	Pass    bool    `json:"pass"`
	// Skip says the check was not made (Pass is false, and Detail says why): no
	// threshold could be set, or nothing of the layout could run it. A skipped check
	// neither passes nor fails the run.
	Skip bool `json:"skip,omitempty"`
	// Detail says why the check failed or was skipped, e.g. "12 bytes wrong", "peer access
	// 0->1 missing", or the measurement's error.
	Detail string `json:"detail,omitempty"`
	// ValueText and LimitText replace Value and Limit in tables and summaries when the
	// check is not about a number: a GPU name, "yes" or "no", "error".
	ValueText string `json:"value_text,omitempty"`
	LimitText string `json:"limit_text,omitempty"`
}

// Comparisons a Check makes.
const (
	AtMost  = "<="
	AtLeast = ">="
	Equal   = "=="
)

// Names of the checks Evaluate makes.
const (
	CheckRanks          = "ranks"
	CheckCoverage       = "GPUs tested"
	CheckGPUModel       = "GPU model"
	CheckPeerAccess     = "peer access"
	CheckNVLinks        = "NVLinks"
	CheckMemorySignal   = "memory signal latency"
	CheckPortSignal     = "port signal latency"
	CheckMemoryPut      = "memory put bandwidth"
	CheckPortPut        = "port put bandwidth"
	CheckVerification   = "data verification"
	CheckMeasurement    = "measurement"
	CheckCollectiveTime = "time"
	CheckBusBw          = "bus bandwidth"
	CheckNetworkSignal  = "network signal latency"
	CheckNetworkPut     = "network put bandwidth"
	CheckAlgorithm      = "algorithm"
	CheckHostToDevice   = "host-to-device copy"
	CheckDeviceToHost   = "device-to-host copy"
	CheckDeviceCopy     = "device copy"
)

// Evaluate compares the figures with the spec and returns every check made, in order:
// node checks, then pair checks, then collective checks. Limits of 0 are not checked.
//
// Node checks: the rank count (when Spec.Ranks is set); every GPU's model against
// Spec.Model (against GPU 0's name when Model is empty); peer access both ways between
// every two GPUs used by ranks (when RequirePeerAccess); NVLinks between them (when
// MinNVLinks is set; unknown NVLink counts fail with NVMLError).
//
// Pair checks, for every PairFigures: the signal latencies and put bandwidths against
// their limits, and data verification (Wrong must be 0). A pair whose Err is set fails a
// "measurement" check instead of the figure checks. When any pair limit is set, a rank
// pair without figures fails a "measurement" check too.
//
// Collective checks, for every CollectiveLimit: the figures of that collective and size
// must exist, carry no Err and no wrong bytes; the fastest of them (when several
// algorithms were measured) must meet MaxTimeUs, the one with the highest bus bandwidth
// MinBusBw. Figures no limit asks for still fail on Err or wrong bytes.
//
// Latencies and times of 0 or less, and figures that are NaN or infinite, fail.
//
// On several hosts (Figures.Hosts): the node checks are made for every host (subjects
// start with the host's name), each host's collective figures (Host) are checked against
// Collectives, pairs across hosts against the network limits (MaxNetworkSignalUs on
// PortSignalUs, MinNetworkPutGBs on PortPutGBs) instead of the others, and the collectives
// run across hosts (AcrossHosts) against NetworkCollectives. A host of one rank (Node.Ranks)
// has no collective checks of its own. Network limits the spec leaves at 0 come from the
// ranks' links (see Spec.NetworkLinkFraction); a network limit that neither the spec nor
// the links give is a skipped check that says why, never a silent pass.
//
// A collective figure with Skip set (no algorithm for the layout) gives a skipped
// "algorithm" check instead of its limits. A one-rank job has no pair or collective
// checks: its copies (Figures.Copies) are checked against the copy limits (skipped where
// 0) and verified.
func Evaluate(spec Spec, f Figures) []Check {
	var checks []Check
	checks = append(checks, nodeChecks(spec, f)...)
	checks = append(checks, pairChecks(spec, f)...)
	if f.Copies != nil {
		checks = append(checks, copyChecks(spec, *f.Copies)...)
	}
	if len(f.Hosts) < 2 {
		limits := spec.Collectives
		if f.Ranks == 1 {
			limits = nil // one rank runs no collective: its copies stand for them
		}
		return append(checks, collectiveChecks(limits, f.Collectives, "", nil)...)
	}
	byHost := map[string][]CollectiveFigure{}
	var across []CollectiveFigure
	for _, cf := range f.Collectives {
		if cf.AcrossHosts {
			across = append(across, cf)
		} else {
			byHost[cf.Host] = append(byHost[cf.Host], cf)
		}
	}
	for _, n := range f.Hosts {
		limits := spec.Collectives
		if len(n.Ranks) == 1 {
			limits = nil // a host of one rank runs no collective of its own
		}
		checks = append(checks, collectiveChecks(limits, byHost[n.Hostname], " on "+n.Hostname, nil)...)
		delete(byHost, n.Hostname)
	}
	for host, figs := range byHost { // figures of no known host still fail on errors
		checks = append(checks, collectiveChecks(nil, figs, " on "+orNode(host), nil)...)
	}
	return append(checks, collectiveChecks(spec.NetworkCollectives, across, " across hosts", linkBusBwFloor(spec, f))...)
}

// orNode returns host, or "node" when it is empty.
func orNode(host string) string {
	if host == "" {
		return "node"
	}
	return host
}

// Passed reports whether every check passed, skipped ones aside. No check made (none at
// all, or only skipped ones) is not a pass.
func Passed(checks []Check) bool {
	made := 0
	for _, c := range checks {
		switch {
		case c.Skip:
		case !c.Pass:
			return false
		default:
			made++
		}
	}
	return made > 0
}

// compare returns the check that value cmp limit, with the detail of why it failed when
// the value is not a usable figure.
func compare(name, pair, subject string, value, limit float64, unit, cmp string) Check {
	c := Check{Name: name, Pair: pair, Subject: subject, Value: value, Limit: limit, Unit: unit, Cmp: cmp}
	switch {
	case math.IsNaN(value) || math.IsInf(value, 0):
		c.Detail = "the figure is not a finite number"
	case cmp == AtMost && value <= 0:
		c.Detail = "the figure is not positive, so it was not measured"
	case cmp == AtMost:
		c.Pass = value <= limit
	case cmp == AtLeast:
		c.Pass = value >= limit
	case cmp == Equal:
		c.Pass = value == limit
	}
	return c
}

// skipped returns a check that was not made, and why.
func skipped(name, pair, subject, why string) Check {
	return Check{Name: name, Pair: pair, Subject: subject, ValueText: "-", Skip: true, Detail: why}
}

// failure returns a failing check about something that is not a number.
func failure(name, pair, subject, valueText, detail string) Check {
	return Check{Name: name, Pair: pair, Subject: subject, ValueText: valueText, Detail: detail}
}

// pairName writes a pair of ranks or GPUs as "a-b".
func pairName(a, b int) string { return fmt.Sprintf("%d-%d", a, b) }

// gpuRef is a GPU of Node.GPUs: its position there, which indexes Node.PeerAccess and
// Node.NVLinks, and its CUDA index, which names it in checks.
type gpuRef struct{ pos, index int }

// usedGPUs returns the GPUs used by ranks, in order, leaving out repeats of a GPU (the
// same bus id) that several ranks share.
func usedGPUs(gpus []GPU) []gpuRef {
	var used []gpuRef
	seen := map[string]bool{}
	for pos, g := range gpus {
		if g.Rank < 0 || (g.BusID != "" && seen[g.BusID]) {
			continue
		}
		seen[g.BusID] = true
		used = append(used, gpuRef{pos, g.Index})
	}
	return used
}

// idleGPUs names the GPUs no rank uses, here or (by UUID) on another host: simulated
// hosts on one machine (MSCCLPP_BENCH_HOSTID) each list all of its GPUs, and the ranks of
// the others use some of them.
func idleGPUs(gpus []GPU, usedElsewhere map[string]bool) []string {
	var idle []string
	for _, g := range gpus {
		if g.Rank < 0 && (g.UUID == "" || !usedElsewhere[g.UUID]) {
			idle = append(idle, strconv.Itoa(g.Index))
		}
	}
	return idle
}

// usedUUIDs is the set of UUIDs of the GPUs some rank uses, on any host.
func usedUUIDs(nodes []Node) map[string]bool {
	used := map[string]bool{}
	for _, n := range nodes {
		for _, g := range n.GPUs {
			if g.Rank >= 0 && g.UUID != "" {
				used[g.UUID] = true
			}
		}
	}
	return used
}

// at returns m[i][j] and whether it exists.
func at[T any](m [][]T, i, j int) (T, bool) {
	var zero T
	if i < 0 || i >= len(m) || j < 0 || j >= len(m[i]) {
		return zero, false
	}
	return m[i][j], true
}

func nodeChecks(spec Spec, f Figures) []Check {
	var checks []Check
	nodes := f.Nodes()
	if spec.Ranks > 0 {
		where := orNode(f.Node.Hostname)
		if len(nodes) > 1 {
			where = fmt.Sprintf("%d hosts", len(nodes))
		}
		checks = append(checks, compare(CheckRanks, "", where, float64(f.Ranks), float64(spec.Ranks), "", Equal))
	}
	used := usedUUIDs(nodes)
	for _, node := range nodes {
		prefix := ""
		if len(nodes) > 1 {
			prefix = orNode(node.Hostname) + " "
		}
		checks = append(checks, hostChecks(spec, node, prefix, used)...)
	}
	return checks
}

// hostChecks are the checks of one node; prefix starts every subject but the host's own
// name (the host's name and a space, on several hosts). inUse holds the UUIDs of the GPUs
// the job's ranks use on every host (usedUUIDs).
func hostChecks(spec Spec, node Node, prefix string, inUse map[string]bool) []Check {
	host := orNode(node.Hostname)
	var checks []Check
	if idle := idleGPUs(node.GPUs, inUse); spec.Ranks == 0 && len(idle) > 0 {
		// Without an expected rank count, every GPU of the node must be tested.
		c := compare(CheckCoverage, "", host, float64(len(node.GPUs)-len(idle)), float64(len(node.GPUs)), "GPUs", Equal)
		c.Detail = fmt.Sprintf("no rank uses GPU %s: launch one rank per GPU (mpirun -np %d), or set ranks in the spec", strings.Join(idle, ", "), len(node.GPUs))
		checks = append(checks, c)
	}
	for _, c := range modelChecks(spec.Model, host, node.GPUs) {
		if c.Subject != host {
			c.Subject = prefix + c.Subject
		}
		checks = append(checks, c)
	}

	used := usedGPUs(node.GPUs)
	if len(used) < 2 {
		return checks
	}
	if spec.RequirePeerAccess {
		if node.PeerAccess == nil {
			checks = append(checks, failure(CheckPeerAccess, "", host, "unknown", "peer access was not probed"))
		} else {
			for i, a := range used {
				for _, b := range used[i+1:] {
					c := peerAccessCheck(node.PeerAccess, a, b)
					c.Subject = prefix + c.Subject
					checks = append(checks, c)
				}
			}
		}
	}
	if spec.MinNVLinks > 0 {
		if node.NVLinks == nil {
			detail := node.NVMLError
			if detail == "" {
				detail = "NVLink counts unknown"
			}
			c := failure(CheckNVLinks, "", host, "unknown", detail)
			c.Limit, c.Unit, c.Cmp = float64(spec.MinNVLinks), "links", AtLeast
			checks = append(checks, c)
		} else {
			for i, a := range used {
				for _, b := range used[i+1:] {
					c := nvlinkCheck(node.NVLinks, a, b, spec.MinNVLinks)
					c.Subject = prefix + c.Subject
					checks = append(checks, c)
				}
			}
		}
	}
	return checks
}

// modelChecks checks every GPU's name against model, or against GPU 0's name when model
// is empty and there are several GPUs.
func modelChecks(model, host string, gpus []GPU) []Check {
	want, matches := model, func(name string) bool { return matchesModel(model, name) }
	if model == "" {
		if len(gpus) < 2 {
			return nil
		}
		want = gpus[0].Name
		matches = func(name string) bool { return strings.TrimSpace(name) == strings.TrimSpace(want) }
	}
	if len(gpus) == 0 {
		return []Check{failure(CheckGPUModel, "", host, "none", "no GPUs found")}
	}
	var checks []Check
	for _, g := range gpus {
		c := Check{
			Name: CheckGPUModel, Subject: fmt.Sprintf("GPU %d", g.Index), Cmp: Equal,
			ValueText: g.Name, LimitText: want, Pass: matches(g.Name),
		}
		if !c.Pass {
			c.Detail = fmt.Sprintf("%s is not %s", g.Name, want)
		}
		checks = append(checks, c)
	}
	return checks
}

// peerAccessCheck checks peer access both ways between GPUs a and b.
func peerAccessCheck(m [][]bool, a, b gpuRef) Check {
	c := Check{
		Name: CheckPeerAccess, Subject: "GPU " + pairName(a.index, b.index), Limit: 1, Cmp: Equal,
		ValueText: "no", LimitText: "yes",
	}
	var missing, unknown []string
	for _, d := range [][2]gpuRef{{a, b}, {b, a}} {
		ok, known := at(m, d[0].pos, d[1].pos)
		arrow := fmt.Sprintf("%d->%d", d[0].index, d[1].index)
		switch {
		case !known:
			unknown = append(unknown, arrow)
		case !ok:
			missing = append(missing, arrow)
		}
	}
	var why []string
	if len(missing) > 0 {
		why = append(why, "peer access "+strings.Join(missing, " and ")+" missing")
	}
	if len(unknown) > 0 {
		why = append(why, "peer access "+strings.Join(unknown, " and ")+" unknown")
	}
	if len(why) == 0 {
		c.Value, c.ValueText, c.Pass = 1, "yes", true
	}
	c.Detail = strings.Join(why, "; ")
	return c
}

// nvlinkCheck checks that GPUs a and b have at least least NVLinks between them, taking
// the lower count when the matrix is not symmetric.
func nvlinkCheck(m [][]int, a, b gpuRef, least int) Check {
	subject := "GPU " + pairName(a.index, b.index)
	ab, okAB := at(m, a.pos, b.pos)
	ba, okBA := at(m, b.pos, a.pos)
	switch {
	case okAB && okBA:
		ab = min(ab, ba)
	case okBA:
		ab = ba
	case !okAB:
		c := failure(CheckNVLinks, "", subject, "unknown", "no NVLink count for "+subject)
		c.Limit, c.Unit, c.Cmp = float64(least), "links", AtLeast
		return c
	}
	return compare(CheckNVLinks, "", subject, float64(ab), float64(least), "links", AtLeast)
}

func pairChecks(spec Spec, f Figures) []Check {
	var checks []Check
	measured := map[[2]int]bool{}
	for _, p := range f.Pairs {
		pair := pairName(p.A, p.B)
		measured[[2]int{min(p.A, p.B), max(p.A, p.B)}] = true
		if p.Err != "" {
			checks = append(checks, failure(CheckMeasurement, pair, "", "error", p.Err))
		} else {
			type limit struct {
				name       string
				value, lim float64
				unit, cmp  string
			}
			limits := []limit{
				{CheckMemorySignal, p.MemorySignalUs, spec.MaxMemorySignalUs, "us", AtMost},
				{CheckPortSignal, p.PortSignalUs, spec.MaxPortSignalUs, "us", AtMost},
				{CheckMemoryPut, p.MemoryPutGBs, spec.MinMemoryPutGBs, "GB/s", AtLeast},
				{CheckPortPut, p.PortPutGBs, spec.MinPortPutGBs, "GB/s", AtLeast},
			}
			if p.AcrossHosts {
				limits = nil
				checks = append(checks, networkPairChecks(spec, f, p)...)
			}
			for _, l := range limits {
				if l.lim > 0 {
					checks = append(checks, compare(l.name, pair, "", l.value, l.lim, l.unit, l.cmp))
				}
			}
		}
		if p.Err == "" || p.Wrong != 0 {
			checks = append(checks, verification(pair, "", p.Wrong, ""))
		}
	}
	if spec.MaxMemorySignalUs > 0 || spec.MaxPortSignalUs > 0 || spec.MinMemoryPutGBs > 0 || spec.MinPortPutGBs > 0 ||
		(len(f.Hosts) > 1 && (spec.MaxNetworkSignalUs > 0 || spec.MinNetworkPutGBs > 0 || spec.NetworkLinkFraction > 0)) {
		for a := 0; a < f.Ranks; a++ {
			for b := a + 1; b < f.Ranks; b++ {
				if !measured[[2]int{a, b}] {
					checks = append(checks, failure(CheckMeasurement, pairName(a, b), "", "none", "not measured"))
				}
			}
		}
	}
	return checks
}

// verification checks that no byte arrived wrong; details tells more when some did.
func verification(pair, subject string, wrong int64, details string) Check {
	c := compare(CheckVerification, pair, subject, float64(wrong), 0, "B", Equal)
	switch {
	case details != "":
		c.Detail = details
	case wrong > 0:
		c.Detail = bytesWrong(wrong)
	}
	return c
}

// collectiveChecks checks figures against limits; where ("", " on host", " across
// hosts") ends every subject. floor, when set, gives a bus bandwidth floor to limits that
// set neither MaxTimeUs nor MinBusBw, or a skipped check.
func collectiveChecks(limits []CollectiveLimit, figures []CollectiveFigure, where string, floor func(CollectiveLimit) (float64, string, bool)) []Check {
	var checks []Check
	used := make([]bool, len(figures))
	for _, l := range limits {
		subject := l.Collective + " " + bytesize.Format(l.Size) + where
		var ok []CollectiveFigure
		var wrong int64
		var wrongDetails []string
		found := false
		var skips []string
		for i, cf := range figures {
			if cf.Collective != l.Collective || cf.Size != l.Size {
				continue
			}
			used[i], found = true, true
			if cf.Skip != "" {
				skips = append(skips, cf.Skip)
				continue
			}
			if cf.Err != "" {
				checks = append(checks, failure(CheckMeasurement, "", subject, "error", withAlgorithm(cf.Err, cf.Algorithm)))
			} else {
				ok = append(ok, cf)
			}
			if cf.Wrong != 0 {
				wrong += cf.Wrong
				wrongDetails = append(wrongDetails, withAlgorithm(bytesWrong(cf.Wrong), cf.Algorithm))
			}
		}
		if !found {
			checks = append(checks, failure(CheckMeasurement, "", subject, "none", "not measured"))
			continue
		}
		if len(skips) > 0 && len(ok) == 0 && wrong == 0 {
			// not run for want of an algorithm (an error, if any, is a failure above)
			checks = append(checks, skipped(CheckAlgorithm, "", subject, strings.Join(skips, "; ")))
			continue
		}
		minBusBw := l.MinBusBw
		if floor != nil && l.MinBusBw == 0 && l.MaxTimeUs == 0 {
			v, why, apply := floor(l)
			switch {
			case !apply:
			case v > 0:
				minBusBw = v
			default:
				checks = append(checks, skipped(CheckBusBw, "", subject, why))
			}
		}
		if len(ok) > 0 || wrong != 0 {
			checks = append(checks, verification("", subject, wrong, strings.Join(wrongDetails, "; ")))
		}
		if len(ok) == 0 {
			continue
		}
		if l.MaxTimeUs > 0 {
			best := slices.MinFunc(ok, func(a, b CollectiveFigure) int { return cmpTime(a.TimeUs, b.TimeUs) })
			checks = append(checks, compare(CheckCollectiveTime, "", subject, best.TimeUs, l.MaxTimeUs, "us", AtMost))
		}
		if minBusBw > 0 {
			best := slices.MaxFunc(ok, func(a, b CollectiveFigure) int { return cmpBusBw(a.BusBw, b.BusBw) })
			checks = append(checks, compare(CheckBusBw, "", subject, best.BusBw, minBusBw, "GB/s", AtLeast))
		}
	}
	for i, cf := range figures {
		if used[i] {
			continue
		}
		subject := cf.Collective + " " + bytesize.Format(cf.Size) + where
		if cf.Skip != "" {
			checks = append(checks, skipped(CheckAlgorithm, "", subject, cf.Skip))
			continue
		}
		if cf.Err != "" {
			checks = append(checks, failure(CheckMeasurement, "", subject, "error", withAlgorithm(cf.Err, cf.Algorithm)))
		}
		if cf.Wrong != 0 {
			checks = append(checks, verification("", subject, cf.Wrong, withAlgorithm(bytesWrong(cf.Wrong), cf.Algorithm)))
		}
	}
	return checks
}

// cmpTime orders times with usable ones (positive, finite) first, fastest first.
func cmpTime(a, b float64) int {
	ua, ub := a > 0 && !math.IsInf(a, 0), b > 0 && !math.IsInf(b, 0)
	switch {
	case ua != ub:
		if ua {
			return -1
		}
		return 1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpBusBw orders bandwidths with usable ones (finite) last, lowest first.
func cmpBusBw(a, b float64) int {
	ua, ub := !math.IsNaN(a) && !math.IsInf(a, 0), !math.IsNaN(b) && !math.IsInf(b, 0)
	switch {
	case ua != ub:
		if ua {
			return 1
		}
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// bytesWrong says how many bytes were wrong: "1 byte wrong", "12 bytes wrong".
func bytesWrong(n int64) string {
	if n == 1 {
		return "1 byte wrong"
	}
	return fmt.Sprintf("%d bytes wrong", n)
}

// withAlgorithm appends the algorithm that s is about, when there is one.
func withAlgorithm(s, algorithm string) string {
	if algorithm == "" {
		return s
	}
	return s + " (algorithm " + algorithm + ")"
}
