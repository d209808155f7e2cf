package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mscclpp-bench/mscclpp-bench/acceptance"
)

// AcceptanceOptions are acceptance's options, validated. Its sizes come from the spec:
// Common's sweep is the flags' defaults.
type AcceptanceOptions struct {
	Common
	SpecPath string // --spec: thresholds over the built-in ones; "" for the built-in ones
}

// acceptanceFlags are acceptance's flags: the common ones (sizes hidden and refused: they
// come from the spec) and the spec file.
type acceptanceFlags struct {
	commonFlags
	spec string
}

func acceptanceCommand(app *App) *cobra.Command {
	r := &acceptanceFlags{}
	cmd := &cobra.Command{
		Use:   "acceptance",
		Short: "Hardware acceptance: discover the node, measure every pair and the collectives, PASS or FAIL against thresholds",
		Long: `acceptance runs under mpirun with one rank per GPU of the node. It lists the GPUs, their
peer access and NVLink counts (through NVML), measures signal latency and put bandwidth of
every pair of ranks over memory and port channels, runs allreduce and allgather at the
spec's sizes, verifies all received data, and compares each figure with the thresholds:
built in for H100 SXM and H200 SXM, or from --spec FILE (YAML or JSON; keys it sets
override the built-in ones). It exits 1 when any check fails and names the pair.

On several hosts (mpirun -np N --host a,b; MSCCLPP_BENCH_HOSTID splits one machine) each
host is checked as above on its own ranks, then every pair of ranks on different hosts is
measured over port channels (the report names each pair's transport) and the spec's
network_collectives (allreduce, allgather, alltoall, sendrecv) run on every rank with the
algorithms the layout allows (a collective without one is a SKIP, with the reason).
Network limits the spec leaves at 0 come from each rank's link as /sys tells it (an
Ethernet NIC's speed, an HCA port's active rate) times network_link_fraction; where no
speed can be read (loopback, veth) those checks are SKIP, with the reason.

A job of one rank (a one-GPU machine) is judged on its GPU: copies from and to pinned
host memory and inside the GPU's memory (copy_bytes; min_host_to_device_gbs,
min_device_to_host_gbs, min_device_copy_gbs).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := r.build(cmd.Flags())
			if err != nil {
				return err
			}
			return run(app, cmd, &Plan{Command: "acceptance", Acceptance: o})
		},
	}
	fs := cmd.Flags()
	r.add(fs, "8", "8", 1)
	for _, name := range sweepFlags {
		_ = fs.MarkHidden(name) // sizes come from the spec
	}
	fs.StringVar(&r.spec, "spec", "", "thresholds file (YAML or JSON); default: built in for the GPU model")
	fs.Lookup("output_file").Usage = "also write the report (node, figures, thresholds, checks) as JSON to this .json file (not the spec)"
	fs.Lookup("iters").Usage = "timed iterations of each bandwidth and collective measurement"
	return cmd
}

// build validates the flags into acceptance's options.
func (r *acceptanceFlags) build(fs *pflag.FlagSet) (*AcceptanceOptions, error) {
	if err := refuseSweepFlags(fs); err != nil {
		return nil, err
	}
	var inputs []string
	if r.spec != "" {
		inputs = append(inputs, r.spec)
	}
	common, err := r.commonFlags.build(inputs...)
	if err != nil {
		return nil, err
	}
	c := &AcceptanceOptions{Common: common, SpecPath: r.spec}
	if c.SpecPath != "" {
		if err := checkSpec(c.SpecPath); err != nil {
			return nil, usagef("--spec: %v", err)
		}
	}
	return c, nil
}

// checkSpec reads a spec file over the built-in H200 thresholds, so that a missing or bad
// file is a usage error before any GPU work; the run reads it again over its own model's.
func checkSpec(path string) error {
	base, err := acceptance.DefaultSpec("NVIDIA H200")
	if err != nil {
		return err
	}
	spec, err := acceptance.LoadSpec(path, base)
	if err != nil {
		return err
	}
	if err := checkMaxBytes("put_bytes", spec.PutBytes); err != nil {
		return err
	}
	for i, l := range spec.Collectives {
		if err := checkMaxBytes(fmt.Sprintf("collectives[%d].size", i), l.Size); err != nil {
			return err
		}
	}
	if err := checkMaxBytes("copy_bytes", spec.CopyBytes); err != nil {
		return err
	}
	for i, l := range spec.NetworkCollectives {
		if err := checkMaxBytes(fmt.Sprintf("network_collectives[%d].size", i), l.Size); err != nil {
			return err
		}
	}
	return nil
}
