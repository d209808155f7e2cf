package allreduce

import "github.com/mscclpp-bench/mscclpp-bench/collectives/family/portstaged"

// allreduce railput: hostput's one shot with rail routing (collectives/family/portstaged,
// host_rail.go), for several hosts of several ranks each: a rank puts its whole input once
// to its rail peer on each other host, which forwards it over NVLink to its host's other
// ranks; every rank then reduces all the inputs in rank order. A pair of hosts exchanges
// one message per rail and launch instead of one per pair of ranks. Automatic where
// railput is in the other collectives (hosts of portstaged.RailAutoLocal ranks or more),
// up to railPutAutoMax.
func init() {
	portstaged.RegisterRailAs("allreduce", portstaged.PSAllreduce,
		"host-resident buffers along rails: my input once to each other host's rail peer, forwarded over NVLink; every rank reduces; small messages",
		familyRecord(RailPutNumber, railPutAutoMax, nil))
}

// RailPutNumber is allreduce railput's number (the family's #8 is allreduce hostoneshot).
const RailPutNumber = 10

// railPutAutoMax is the largest message -k auto gives allreduce railput. Measured on
// 4xH100 as 2 simulated hosts of 4 ranks (two a GPU under MPS), -k all -b 8 -e 4M -f 8,
// two runs, 2026-11-27: railput 62-110 us from 8 B to 32 KiB against hier's 110-142;
// 255-293 us at 256 KiB against 170-189.
const railPutAutoMax = 64 << 10
