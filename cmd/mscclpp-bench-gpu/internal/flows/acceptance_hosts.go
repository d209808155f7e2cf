package flows

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mscclpp-bench/mscclpp-bench/acceptance"
	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ib"
	"github.com/mscclpp-bench/mscclpp-bench/collectives"
	"github.com/mscclpp-bench/mscclpp-bench/internal/progress"
)

// hostFigures is what one host measured on its own ranks, sent to rank 0.
type hostFigures struct {
	Node        acceptance.Node
	Pairs       []acceptance.PairFigures
	Collectives []acceptance.CollectiveFigure
	Failure     string // a measurement that failed (its figures say which)
	Err         string // the host could not be measured at all
}

// acceptHosts is acceptance on several hosts. First every host at once checks itself as a
// job of its own (a mesh of its ranks over a bootstrap.Group): its node, its pairs over
// memory and port channels, its collectives. Then, on the whole job's mesh, every pair of
// ranks on different hosts is measured over port channels (the network) and the spec's
// network collectives run on every rank with the algorithms the layout allows (-k auto).
// A failed measurement is returned as failure and recorded in fig; err is for what leaves
// no report at all.
func (j *Job) acceptHosts(spec acceptance.Spec, layout collectives.Layout, fig *acceptance.Figures, meter *progress.Meter) (failure, fatal error) {
	meter.Update(0, 4, "each host: node, pairs and collectives")
	mine := j.measureHost(spec, layout)
	blob, err := json.Marshal(mine)
	if err != nil {
		return nil, err
	}
	all, err := j.Boot.AllGather(blob)
	if err != nil {
		return nil, fmt.Errorf("gather the hosts' acceptance figures: %w", err)
	}
	var hostErrs []string
	for h, ranks := range layout.Hosts {
		var hf hostFigures
		if err := json.Unmarshal(all[ranks[0]], &hf); err != nil {
			return nil, fmt.Errorf("acceptance figures of rank %d: %w", ranks[0], err)
		}
		if hf.Err != "" {
			hostErrs = append(hostErrs, fmt.Sprintf("host %d (ranks %v): %s", h, ranks, hf.Err))
			continue
		}
		hf.Node.Ranks = ranks
		fig.Hosts = append(fig.Hosts, hf.Node)
		for _, p := range hf.Pairs {
			p.A, p.B = ranks[p.A], ranks[p.B]
			fig.Pairs = append(fig.Pairs, p)
		}
		for _, c := range hf.Collectives {
			c.Host = hf.Node.Hostname
			fig.Collectives = append(fig.Collectives, c)
		}
		if hf.Failure != "" && failure == nil {
			failure = fmt.Errorf("host %s: %s", hf.Node.Hostname, hf.Failure)
		}
	}
	if len(hostErrs) > 0 {
		return nil, errors.New(hostErrs[0])
	}
	fig.Node = fig.Hosts[0]
	if failure != nil {
		for _, l := range spec.NetworkCollectives {
			fig.Collectives = append(fig.Collectives, acceptance.CollectiveFigure{Collective: l.Collective, Size: l.Size, AcrossHosts: true, Err: "not run: a host's measurement failed"})
		}
		return failure, nil
	}
	if fig.Links, err = j.gatherLinks(layout); err != nil {
		return nil, err
	}
	meter.Update(2, 4, "pairs across hosts: latency and bandwidth")
	var cross [][2]int
	for a := 0; a < j.Mesh.NRanks; a++ {
		for b := a + 1; b < j.Mesh.NRanks; b++ {
			if hostOf(layout, a) != hostOf(layout, b) {
				cross = append(cross, [2]int{a, b})
			}
		}
	}
	pairs, err := j.measurePairs(spec, j.Mesh, cross, false)
	for i := range pairs {
		pairs[i].AcrossHosts = true
	}
	fig.Pairs = append(fig.Pairs, pairs...)
	if err != nil {
		for _, l := range spec.NetworkCollectives {
			fig.Collectives = append(fig.Collectives, acceptance.CollectiveFigure{Collective: l.Collective, Size: l.Size, AcrossHosts: true, Err: "not run: a pair measurement failed"})
		}
		return err, nil
	}
	meter.Update(3, 4, "collectives across hosts")
	colls, err := j.measureCollectives(spec.NetworkCollectives, j.Mesh)
	for i := range colls {
		colls[i].AcrossHosts = true
	}
	fig.Collectives = append(fig.Collectives, colls...)
	return err, nil
}

// gatherLinks reads, on every rank, the link of each network transport its connections
// to other hosts use (the Ethernet interface its data sockets listen on, the HCA port the
// InfiniBand transport opens) and gathers them all, in rank order.
func (j *Job) gatherLinks(layout collectives.Layout) ([]acceptance.Link, error) {
	used := map[channels.Transport]bool{}
	for p := 0; p < j.Mesh.NRanks; p++ {
		if hostOf(layout, p) != hostOf(layout, j.Rank()) {
			used[j.Mesh.PairTransport(j.Rank(), p)] = true
		}
	}
	host := j.Hostname
	if id := j.Mesh.Opts.HostID; id != "" {
		host = id
	}
	var mine []acceptance.Link
	for _, t := range []channels.Transport{ethernet.Transport, ib.Transport} {
		if !used[t] {
			continue
		}
		var l acceptance.Link
		if t == ib.Transport {
			l = acceptance.ReadIBLink("/sys", ib.OptionsOf(j.Mesh.Opts).Device)
		} else {
			l = acceptance.ReadEthernetLink("/sys", j.ethernetInterface())
		}
		l.Rank, l.Host = j.Rank(), host
		mine = append(mine, l)
	}
	blob, err := json.Marshal(mine)
	if err != nil {
		return nil, err
	}
	all, err := j.Boot.AllGather(blob)
	if err != nil {
		return nil, fmt.Errorf("gather the ranks' network links: %w", err)
	}
	var links []acceptance.Link
	for r, b := range all {
		var theirs []acceptance.Link
		if err := json.Unmarshal(b, &theirs); err != nil {
			return nil, fmt.Errorf("network links of rank %d: %w", r, err)
		}
		links = append(links, theirs...)
	}
	return links, nil
}

// ethernetInterface is the interface the Ethernet transport's data sockets listen on, as
// channels picks it: the one MSCCLPP_BENCH_SOCKET_IFNAME matches, else the one holding
// the bootstrap's own address; "" when it cannot be told.
func (j *Job) ethernetInterface() string {
	if spec := ethernet.OptionsOf(j.Mesh.Opts).Ifname; strings.TrimSpace(spec) != "" {
		name, _, err := bootstrap.MatchInterface(spec)
		if err != nil {
			return ""
		}
		return name
	}
	name, err := acceptance.InterfaceOf(j.Boot.LocalAddr().Addr())
	if err != nil {
		return ""
	}
	return name
}

func hostOf(l collectives.Layout, r int) int {
	h, _, _ := l.Local(r)
	return h
}

// measureHost checks this rank's host on its own: its node and, on a mesh of the host's
// ranks, its pairs and collectives, as on one node (a host of one rank has only its node).
// The host's first rank returns the figures; a failure is in them.
func (j *Job) measureHost(spec acceptance.Spec, layout collectives.Layout) hostFigures {
	_, _, ranks := layout.Local(j.Rank())
	var hf hostFigures
	grp, err := bootstrap.NewGroup(j.Boot, ranks)
	if err != nil {
		hf.Err = err.Error()
		return hf
	}
	if hf.Node, err = j.discoverNode(grp, ranks); err != nil {
		hf.Err = err.Error()
		return hf
	}
	if id := j.Mesh.Opts.HostID; id != "" && id != j.Hostname {
		hf.Node.Hostname = id // simulated hosts of one machine: their MSCCLPP_BENCH_HOSTID
	}
	if len(ranks) == 1 {
		return hf // no pair and no collective inside a host of one rank
	}
	m, err := channels.NewMesh(j.GPU, grp, j.Mesh.Opts)
	if err != nil {
		hf.Err = fmt.Sprintf("rank %d: mesh of its host: %v", j.Rank(), err)
		return hf
	}
	defer m.Close()
	var f acceptance.Figures
	if err := j.measureNode(spec, m, &f, progress.New(nil, false)); err != nil {
		hf.Failure = err.Error()
	}
	hf.Pairs, hf.Collectives = f.Pairs, f.Collectives
	if err := grp.Barrier(); err != nil && hf.Err == "" && hf.Failure == "" {
		hf.Failure = err.Error()
	}
	return hf
}
