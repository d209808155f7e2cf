package flows

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mscclpp-bench/mscclpp-bench/acceptance"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/harness"
	"github.com/mscclpp-bench/mscclpp-bench/internal/progress"
	"github.com/mscclpp-bench/mscclpp-bench/internal/safefile"
	"github.com/mscclpp-bench/mscclpp-bench/internal/topology"
	"github.com/mscclpp-bench/mscclpp-bench/pingpong"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

// runAcceptance discovers the node, measures every pair and the spec's collectives (a job
// of one rank: its copies), and judges the figures. Every rank takes part; rank 0 prints
// and writes the report.
func runAcceptance(j *Job) error {
	spec, source, err := j.acceptanceSpec()
	if err != nil {
		return err
	}
	fig := acceptance.Figures{Ranks: j.Mesh.NRanks}
	meter := j.Meter()
	defer meter.Close()
	var failure error // a failed measurement is a figure too: the table still comes out and names it
	if layout := collectives.LayoutOf(j.Mesh); len(layout.Hosts) > 1 {
		if failure, err = j.acceptHosts(spec, layout, &fig, meter); err != nil {
			return err
		}
	} else if j.Mesh.NRanks == 1 {
		if fig.Node, err = j.discoverNode(j.Boot, identity(1)); err != nil {
			return err
		}
		fig.Copies = j.measureCopies(spec, meter)
		if fig.Copies.Err != "" {
			failure = errors.New(fig.Copies.Err)
		}
	} else {
		if fig.Node, err = j.discoverNode(j.Boot, identity(j.Mesh.NRanks)); err != nil {
			return err
		}
		failure = j.measureNode(spec, j.Mesh, &fig, meter)
	}
	meter.Clear()
	if j.Rank() != 0 {
		return failure // rank 0 judges and reports; its exit code carries the verdict
	}
	checks := acceptance.Evaluate(spec, fig)
	report := acceptance.Report{Spec: spec, Figures: fig, Checks: checks, Pass: acceptance.Passed(checks)}
	for _, n := range fig.Nodes() {
		printNode(j.Out, n, spec, source)
	}
	if err := acceptance.WriteAcrossHosts(j.Out, fig, spec.PutBytes); err != nil {
		return err
	}
	if err := acceptance.WriteTable(j.Out, checks); err != nil {
		return err
	}
	if path := j.Common.JSONPath; path != "" {
		err := safefile.Write(path, func(w io.Writer) error { return acceptance.WriteJSON(w, report) })
		if err != nil {
			return fmt.Errorf("write JSON %s: %w", path, err)
		}
	}
	if !report.Pass {
		return fmt.Errorf("%s", acceptance.Summary(checks))
	}
	return failure // a failure no check caught still fails the run
}

// measureNode measures every pair of m's ranks and the spec's collectives on them, into
// fig; a measurement that failed is returned and recorded as a figure (the collectives are
// then not run).
func (j *Job) measureNode(spec acceptance.Spec, m *channels.Mesh, fig *acceptance.Figures, meter *progress.Meter) error {
	meter.Update(0, 2, "pairs: latency and bandwidth")
	pairs, err := pingpong.Pairs(m.NRanks, nil)
	if err != nil {
		return err
	}
	fig.Pairs, err = j.measurePairs(spec, m, pairs, true)
	if err != nil {
		for _, l := range spec.Collectives {
			fig.Collectives = append(fig.Collectives, acceptance.CollectiveFigure{Collective: l.Collective, Size: l.Size, Err: "not run: a pair measurement failed"})
		}
		return err
	}
	meter.Update(1, 2, "collectives")
	fig.Collectives, err = j.measureCollectives(spec.Collectives, m)
	return err
}

// measureCopies measures a one-rank job's copies: host↔GPU from and to pinned memory
// and inside the GPU's memory, of the spec's copy_bytes (DefaultCopyBytes when it is 0:
// measured and reported, the checks skipped).
func (j *Job) measureCopies(spec acceptance.Spec, meter *progress.Meter) *acceptance.CopyFigures {
	meter.Update(0, 1, "copies: host to GPU, GPU to host, inside the GPU")
	bytes := spec.CopyBytes
	if bytes == 0 {
		bytes = acceptance.DefaultCopyBytes
	}
	f := acceptance.MeasureCopies(j.GPU, j.Stream, acceptance.CopyOptions{
		Bytes: bytes, Iters: j.Common.Iters, Warmup: j.Common.Warmup, Timeout: j.Common.Timeout,
	})
	return &f
}

// identity is 0..n-1: the global ranks of a job's own ranks.
func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// specMessage carries rank 0's choice of spec to every rank.
type specMessage struct {
	Spec   acceptance.Spec
	Source string
	Err    string
}

// acceptanceSpec picks the thresholds on rank 0 (built in for its GPU model, overridden by
// --spec) and hands them to every rank, so all measure the same sizes.
func (j *Job) acceptanceSpec() (acceptance.Spec, string, error) {
	var msg specMessage
	if j.Rank() == 0 {
		model := j.GPU.Info().Name
		base, err := acceptance.DefaultSpec(model)
		msg.Source = "built in for " + model
		switch {
		case j.Plan.Acceptance.SpecPath != "":
			msg.Source = j.Plan.Acceptance.SpecPath
			if err != nil {
				base = acceptance.GenericSpec() // no GPU limits; those of the network and sizes
			}
			base, err = acceptance.LoadSpec(j.Plan.Acceptance.SpecPath, base)
		}
		msg.Spec = base
		if err != nil {
			msg.Err = err.Error()
		}
	}
	mine, err := json.Marshal(msg)
	if err != nil {
		return acceptance.Spec{}, "", err
	}
	all, err := j.Boot.AllGather(mine)
	if err != nil {
		return acceptance.Spec{}, "", fmt.Errorf("share the acceptance spec: %w", err)
	}
	if err := json.Unmarshal(all[0], &msg); err != nil {
		return acceptance.Spec{}, "", fmt.Errorf("acceptance spec from rank 0: %w", err)
	}
	if msg.Err != "" {
		return acceptance.Spec{}, "", fmt.Errorf("acceptance spec: %s", msg.Err)
	}
	return msg.Spec, msg.Source, nil
}

// discoverNode collects the GPU of every rank of boot (the node's ranks: global[r] is the
// job's rank of boot's rank r) and the peer-access matrix (each rank asks CUDA about every
// other rank's GPU); boot's rank 0 adds what NVML knows: every GPU of the node (those no
// rank uses too), names, UUIDs and NVLink counts. GPUs name the job's ranks.
func (j *Job) discoverNode(boot channels.Bootstrap, global []int) (acceptance.Node, error) {
	n := boot.NRanks()
	buses, err := boot.AllGather([]byte(j.GPU.Info().BusID))
	if err != nil {
		return acceptance.Node{}, fmt.Errorf("share bus ids: %w", err)
	}
	row := make([]bool, n)
	var peerErr error
	for r, b := range buses {
		if r != boot.Rank() && peerErr == nil {
			if row[r], err = j.GPU.CanAccessPeer(string(b)); err != nil {
				peerErr = fmt.Errorf("rank %d: peer access to rank %d's GPU %s: %w", j.Rank(), global[r], b, err)
			}
		}
	}
	rowBytes, _ := json.Marshal(row)
	rows, err := boot.AllGather(rowBytes) // even after an error, so no rank waits for this one
	if peerErr != nil {
		return acceptance.Node{}, peerErr
	}
	if err != nil {
		return acceptance.Node{}, fmt.Errorf("share peer access: %w", err)
	}
	peer := make([][]bool, n)
	for r := range rows {
		if err := json.Unmarshal(rows[r], &peer[r]); err != nil {
			return acceptance.Node{}, fmt.Errorf("peer access of rank %d: %w", global[r], err)
		}
	}
	node := acceptance.Node{Hostname: j.Hostname}
	if boot.Rank() != 0 {
		return node, nil
	}
	// pos[r] is rank r's GPU's position in node.GPUs.
	pos := make([]int, n)
	topo, err := topology.Discover()
	if err != nil {
		node.NVMLError = err.Error()
		for r := range buses {
			d := j.Devices[global[r]]
			node.GPUs = append(node.GPUs, acceptance.GPU{Index: d.Device, Rank: global[r], Name: d.Name, BusID: string(buses[r])})
			pos[r] = r
		}
	} else {
		node.Driver = topo.Driver
		for _, g := range topo.GPUs {
			node.GPUs = append(node.GPUs, acceptance.GPU{Index: g.Index, Rank: -1, Name: g.Name, BusID: g.BusID, UUID: g.UUID, MemoryBytes: g.MemoryBytes})
		}
		for r, b := range buses {
			pos[r] = slices.IndexFunc(topo.GPUs, func(g topology.GPU) bool { return topology.SameBus(g.BusID, string(b)) })
			if pos[r] < 0 {
				return node, fmt.Errorf("rank %d's GPU %s is not among NVML's %d GPUs", global[r], b, len(topo.GPUs))
			}
			if node.GPUs[pos[r]].Rank < 0 {
				node.GPUs[pos[r]].Rank = global[r]
			}
		}
		node.NVLinks = topology.NVLinks(topo.GPUs)
	}
	node.PeerAccess = make([][]bool, len(node.GPUs))
	for i := range node.PeerAccess {
		node.PeerAccess[i] = make([]bool, len(node.GPUs))
	}
	for a := range peer {
		for b := range peer[a] {
			node.PeerAccess[pos[a]][pos[b]] = peer[a][b]
		}
	}
	return node, nil
}

// measurePairs runs the ping-pong signal and put measurements for the pairs of m's
// ranks, over port channels and, with memory, memory channels too. Each pair's figures
// name the transport of its port channels.
func (j *Job) measurePairs(spec acceptance.Spec, m *channels.Mesh, pairs [][2]int, memory bool) ([]acceptance.PairFigures, error) {
	bench, err := pingpong.New(j.GPU, m, j.Stream, pingpong.Options{
		Sizes: []int64{spec.PutBytes}, Iters: j.Common.Iters, Warmup: j.Common.Warmup, Check: true,
		Pairs: pairs, Memory: memory, Port: true, Seed: 11, SMs: j.SMs, Essential: true,
		Put: j.Common.Env.Put,
	})
	if err != nil {
		return nil, err
	}
	defer bench.Close()
	figs := make([]acceptance.PairFigures, len(pairs))
	index := map[string]int{}
	for i, p := range pairs {
		figs[i] = acceptance.PairFigures{A: p[0], B: p[1], Transport: m.PairTransport(p[0], p[1]).String()}
		index[fmt.Sprintf("%d-%d", p[0], p[1])] = i
	}
	_, err = bench.Run(func(r results.PingPongRow) {
		f := &figs[index[r.Pair]]
		f.Wrong += max(r.Wrong, 0)
		switch {
		case r.Mode == "signal" && r.Channel == "memory":
			f.MemorySignalUs = r.LatencyUs
		case r.Mode == "signal" && r.Channel == "port":
			f.PortSignalUs = r.LatencyUs
		case r.Mode == "put" && r.Channel == "memory":
			f.MemoryPutGBs = r.BwGBs
		case r.Mode == "put" && r.Channel == "port":
			f.PortPutGBs = r.BwGBs
		}
	})
	var pe *pingpong.PairError
	if errors.As(err, &pe) {
		for i := range figs {
			switch p := &figs[i]; {
			case [2]int{p.A, p.B} == pe.Pair:
				p.Err = pe.Err.Error()
			case p.PortSignalUs == 0 && p.PortPutGBs == 0:
				p.Err = fmt.Sprintf("not measured: pair %d-%d failed first", pe.Pair[0], pe.Pair[1])
			}
		}
	}
	return figs, err
}

// measureCollectives runs each collective of limits once over all of its sizes on m's
// ranks, with the automatic algorithm choice (for m's layout), float sums, and data checks.
// A collective with no algorithm for m's layout or rank count is not run: its figures say
// why (Skip), and its checks are reported as SKIP.
func (j *Job) measureCollectives(limits []acceptance.CollectiveLimit, m *channels.Mesh) ([]acceptance.CollectiveFigure, error) {
	var names []string
	sizes := map[string][]int64{}
	for _, l := range limits {
		if _, ok := sizes[l.Collective]; !ok {
			names = append(names, l.Collective)
		}
		if !slices.Contains(sizes[l.Collective], l.Size) {
			sizes[l.Collective] = append(sizes[l.Collective], l.Size)
		}
	}
	var out []acceptance.CollectiveFigure
	for _, name := range names {
		coll, err := collectives.Lookup(name)
		if err != nil {
			return nil, err
		}
		sz := sizes[name]
		slices.Sort(sz)
		why := ""
		layout := collectives.LayoutOf(m)
		layout.GPUSharing = j.Sharing
		if collectives.CheckLayout(name, "auto", layout) != nil {
			why = fmt.Sprintf("no %s algorithm runs on this layout (%v)", name, layout)
		} else if err := collectives.CheckRanks(coll, m.NRanks); err != nil {
			why = err.Error()
		}
		if why != "" {
			for _, size := range sz {
				out = append(out, acceptance.CollectiveFigure{Collective: name, Size: size, Skip: why})
			}
			continue
		}
		opts := harness.Options{
			Sizes: sz, Iters: j.Common.Iters, Warmup: max(j.Common.Warmup, 5), AggIters: 1, Check: 1, Average: 1, Graph: 4,
			Datatypes: []string{"float"}, Ops: []string{"sum"}, Kernel: "auto", SMs: j.SMs, Sharing: j.Sharing,
		}
		p := results.NewTextPrinter(io.Discard)
		h, err := harness.NewHarness(coll, j.GPU, m, j.Stream, opts, p)
		if err != nil {
			return nil, err
		}
		sum, err := h.Run(p)
		h.Close()
		if err != nil {
			return nil, err
		}
		if len(sum.Rows) != len(sz) {
			return nil, fmt.Errorf("%s: %d sizes asked, %d measured", name, len(sz), len(sum.Rows))
		}
		for i, row := range sum.Rows {
			f := acceptance.CollectiveFigure{Collective: name, Size: sz[i], Algorithm: row.Algorithm}
			if pl := row.OutOfPlace; pl != nil {
				f.TimeUs, f.BusBw = pl.TimeUs, pl.BusBw
			}
			for _, pl := range []*results.Placement{row.OutOfPlace, row.InPlace} {
				if pl != nil {
					f.Wrong += max(pl.Wrong, 0) * 4 // wrong float elements, as bytes
				}
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// printNode prints the node's GPUs, peer access and NVLink counts as '#' lines.
func printNode(w io.Writer, n acceptance.Node, spec acceptance.Spec, source string) {
	fmt.Fprintf(w, "# mscclpp-bench acceptance on %s, driver %s; thresholds: %s (%s)\n", n.Hostname, orDash(n.Driver), orDash(spec.Model), source)
	fmt.Fprintf(w, "# %3s  %4s  %-16s  %-28s  %s\n", "GPU", "rank", "bus id", "name", "memory")
	for _, g := range n.GPUs {
		rank := "-"
		if g.Rank >= 0 {
			rank = strconv.Itoa(g.Rank)
		}
		fmt.Fprintf(w, "# %3d  %4s  %-16s  %-28s  %.0f GiB\n", g.Index, rank, g.BusID, g.Name, float64(g.MemoryBytes)/(1<<30))
	}
	fmt.Fprintf(w, "# peer access (P: yes, -: no) and NVLinks from GPU (row) to GPU (column)\n")
	line := []string{"#    "}
	for _, g := range n.GPUs {
		line = append(line, fmt.Sprintf("%9d", g.Index))
	}
	fmt.Fprintln(w, strings.Join(line, ""))
	for r, g := range n.GPUs {
		line = []string{fmt.Sprintf("# %3d", g.Index)}
		for c := range n.GPUs {
			cell := "X"
			if r != c {
				cell = "-"
				if ok := r < len(n.PeerAccess) && c < len(n.PeerAccess[r]) && n.PeerAccess[r][c]; ok {
					cell = "P"
				}
				if n.NVLinks != nil {
					cell += fmt.Sprintf("/NV%d", n.NVLinks[r][c])
				}
			}
			line = append(line, fmt.Sprintf("%9s", cell))
		}
		fmt.Fprintln(w, strings.Join(line, ""))
	}
	if n.NVMLError != "" {
		fmt.Fprintf(w, "# NVLink counts unknown: %s\n", n.NVMLError)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
