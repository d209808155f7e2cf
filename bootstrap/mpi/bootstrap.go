package mpi

import (
	"context"
	"fmt"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
)

// Bootstrap builds the job's TCP bootstrap over MPI. Init must have been
// called. Rank 0 creates the UniqueID with CreateUniqueID(addr) (see there
// for the forms of addr; "" picks this host's first non-loopback IPv4 and a
// free port), MPI broadcasts it, and every rank calls Initialize.
//
// Every rank takes part in the broadcast even when its own setup failed
// (rank 0 then broadcasts an all-zero ID), so no rank waits forever in MPI;
// the broadcast itself is not bounded by opts.Timeout.
func Bootstrap(ctx context.Context, opts bootstrap.Options, addr string) (*bootstrap.TCPBootstrap, error) {
	rank, nranks, err := worldInfo()
	if err != nil {
		return nil, err
	}
	b, newErr := bootstrap.New(rank, nranks, opts)
	var id bootstrap.UniqueID
	var createErr error
	if rank == 0 && newErr == nil {
		id, createErr = b.CreateUniqueID(addr)
	}
	if err := BcastUniqueID(&id); err != nil {
		if b != nil {
			b.Close()
		}
		return nil, err
	}
	if newErr != nil {
		return nil, newErr
	}
	if createErr != nil {
		b.Close()
		return nil, createErr
	}
	if id == (bootstrap.UniqueID{}) {
		b.Close()
		return nil, fmt.Errorf("bootstrap: rank %d: rank 0 could not create the unique ID (see rank 0's error)", rank)
	}
	if err := b.Initialize(ctx, id); err != nil {
		return nil, err
	}
	return b, nil
}
