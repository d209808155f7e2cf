package mpi

import "github.com/mscclpp-bench/mscclpp-bench/bootstrap"

// launcherEnv lists variables set by MPI launchers for each process they start
// (bootstrap.MPIEnv).
var launcherEnv = bootstrap.MPIEnv

// Launched reports whether the environment shows that this process was
// started by an MPI launcher such as mpirun, so that a caller can choose the
// MPI path without initialising MPI.
func Launched() bool { return bootstrap.MPILaunched() }
