package flows

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/channels"
	"github.com/mscclpp-bench/mscclpp-bench/channels/ethernet"
	"github.com/mscclpp-bench/mscclpp-bench/pingpong"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

func runPingPong(j *Job) error {
	c := j.Plan.PingPong
	if j.Mesh.NRanks < 2 {
		return fmt.Errorf("pingpong needs at least 2 ranks, this job has %d (launch with mpirun -np 2 or more)", j.Mesh.NRanks)
	}
	pairs, err := pingpong.Pairs(j.Mesh.NRanks, c.Pair)
	if err != nil {
		return err
	}
	opts := pingpong.Options{
		Sizes: c.Sizes(), Iters: c.Iters, Warmup: c.Warmup, Check: c.Check > 0, Pairs: pairs,
		Memory: c.Channels != "port", Port: c.Channels != "memory", Seed: 7, SMs: j.SMs,
		Put: c.Env.Put,
	}
	// --channel all measures what the layout has: memory channels need every pair mapped
	// (CUDA IPC), so across hosts it measures port channels alone; --channel memory there
	// fails, naming the pair.
	unmapped := unmappedPair(j.Mesh.NRanks, j.Mesh.PairTransport)
	if c.Channels == "all" && unmapped != nil {
		opts.Memory = false
	}
	bench, err := pingpong.New(j.GPU, j.Mesh, j.Stream, opts)
	if err != nil {
		return err
	}
	defer bench.Close()
	p := results.NewTextPrinter(j.Out)
	h := j.Header("pingpong")
	p.Header(h)
	p.Note("mesh set-up: %.3f s after start (%d ranks)", j.SetupDur.Seconds(), j.Mesh.NRanks)
	if c.Channels == "all" && unmapped != nil {
		p.Note("memory channels left out: ranks %d and %d are connected over %v, not CUDA IPC", unmapped[0], unmapped[1], j.Mesh.PairTransport(unmapped[0], unmapped[1]))
	}
	if err := noteRawTCP(j, p, pairs); err != nil {
		return err
	}
	p.PingPongHeader()
	report := &results.Report{Header: h, Args: j.Plan.Args, Start: time.Now()}
	wrong, err := bench.Run(func(r results.PingPongRow) {
		p.PingPongRow(r)
		report.PingPong = append(report.PingPong, r)
	})
	if err != nil {
		return err
	}
	p.Footer(results.Footer{OutOfBounds: wrong})
	report.End = time.Now()
	report.Footer = results.Footer{OutOfBounds: wrong}
	if err := j.WriteJSON(report); err != nil {
		return err
	}
	if err := p.Err(); err != nil {
		return err
	}
	if wrong > 0 {
		return fmt.Errorf("pingpong: %d bytes arrived wrong", wrong)
	}
	return nil
}

// unmappedPair returns the first pair of ranks whose transport (pair) does not map memory
// (a network transport), or nil when every pair is mapped.
func unmappedPair(nranks int, pair func(i, j int) channels.Transport) []int {
	for a := 0; a < nranks; a++ {
		for b := a + 1; b < nranks; b++ {
			if !pair(a, b).Maps() {
				return []int{a, b}
			}
		}
	}
	return nil
}

// rawTCPMinBytes is the smallest transfer the raw TCP notes time.
const rawTCPMinBytes = 64 << 20

// noteRawTCP measures, for every pair connected over Ethernet, the raw rate of its
// sockets from the first rank to the second, then both ways at once (best of three
// transfers each, of the sweep's largest size but at least 64 MiB: a first transfer both
// ways at 16 MiB measured a quarter of the rate of the later ones on 2xH200), and notes
// them under the header, as the ceilings the port-channel figures are to be read against.
func noteRawTCP(j *Job, p *results.TextPrinter, pairs [][2]int) error {
	bytes := uint64(max(j.Common.MaxBytes, rawTCPMinBytes))
	for _, pr := range pairs {
		if j.Mesh.PairTransport(pr[0], pr[1]) != ethernet.Transport {
			continue
		}
		var best float64
		if j.Rank() == pr[0] || j.Rank() == pr[1] {
			for i := 0; i < 3; i++ {
				rate, err := ethernet.MeasureTCP(j.Mesh, pr[0], pr[1], bytes)
				if err != nil {
					return err
				}
				best = max(best, rate)
			}
		}
		all, err := j.Boot.AllGather(binary.LittleEndian.AppendUint64(nil, math.Float64bits(best)))
		if err != nil {
			return err
		}
		rate := math.Float64frombits(binary.LittleEndian.Uint64(all[pr[0]]))
		socks := min(ethernet.Sockets(j.Mesh.Endpoints[pr[0]]), ethernet.Sockets(j.Mesh.Endpoints[pr[1]]))
		p.Note("raw TCP %d -> %d: %.2f GB/s (%d sockets, %d bytes, no GPU copies)", pr[0], pr[1], rate, socks, bytes)
		var both float64
		if j.Rank() == pr[0] || j.Rank() == pr[1] {
			for i := 0; i < 3; i++ {
				rate, err := ethernet.MeasureTCPBothWays(j.Mesh, pr[0], pr[1], bytes)
				if err != nil {
					return err
				}
				both = max(both, rate)
			}
		}
		if all, err = j.Boot.AllGather(binary.LittleEndian.AppendUint64(nil, math.Float64bits(both))); err != nil {
			return err
		}
		there := math.Float64frombits(binary.LittleEndian.Uint64(all[pr[0]]))
		back := math.Float64frombits(binary.LittleEndian.Uint64(all[pr[1]]))
		p.Note("raw TCP %d <-> %d both ways at once: %.2f / %.2f GB/s (as put-bidir and the collectives send)", pr[0], pr[1], there, back)
	}
	return nil
}
