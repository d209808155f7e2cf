package worker

import (
	"fmt"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/pingpong"
	"github.com/mscclpp-bench/mscclpp-bench/results"
)

func dispatch(j *Job) error {
	switch j.Cfg.Command {
	case "pingpong":
		return runPingPong(j)
	case "allgather", "allreduce":
		return runCollective(j)
	case "acceptance":
		return runAcceptance(j)
	}
	return fmt.Errorf("the GPU worker does not run %q", j.Cfg.Command)
}

func runPingPong(j *Job) error {
	c := j.Cfg
	if j.Mesh.NRanks < 2 {
		return fmt.Errorf("pingpong needs at least 2 ranks, this job has %d (launch with mpirun -np 2 or more)", j.Mesh.NRanks)
	}
	var only *[2]int
	if c.Pair != "" {
		a, b, err := cli.ParsePair(c.Pair)
		if err != nil {
			return err
		}
		only = &[2]int{a, b}
	}
	pairs, err := pingpong.Pairs(j.Mesh.NRanks, only)
	if err != nil {
		return err
	}
	opts := pingpong.Options{
		Sizes: c.Sizes(), Iters: c.Iters, Warmup: c.Warmup, Check: c.Check > 0, Pairs: pairs,
		Memory: c.Channels != "port", Port: c.Channels != "memory", Seed: 7, SMs: j.SMs,
	}
	if err := putTuning(&opts); err != nil {
		return err
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
	p.PingPongHeader()
	report := &results.Report{Header: h, Args: c.Args, Start: time.Now()}
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
