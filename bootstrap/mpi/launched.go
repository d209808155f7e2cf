package mpi

import "github.com/mscclpp-bench/mscclpp-bench/bootstrap"

// Launched reports whether the environment shows that this process was
// started by an MPI launcher such as mpirun, so that a caller can choose the
// MPI path without initialising MPI (one of bootstrap.MPIEnv is set).
func Launched() bool { return bootstrap.MPILaunched() }
