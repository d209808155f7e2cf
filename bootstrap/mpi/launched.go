package mpi

import "os"

// launcherEnv lists variables set by MPI launchers for each process they
// start: OpenMPI's mpirun (OMPI_COMM_WORLD_*), PMIx-based launchers
// (PMIX_RANK: OpenMPI 4+, srun --mpi=pmix) and PMI-1/2 launchers (PMI_RANK,
// PMI_SIZE: MPICH's hydra, srun --mpi=pmi2).
var launcherEnv = []string{
	"OMPI_COMM_WORLD_SIZE",
	"OMPI_COMM_WORLD_RANK",
	"PMIX_RANK",
	"PMI_RANK",
	"PMI_SIZE",
}

// Launched reports whether the environment shows that this process was
// started by an MPI launcher such as mpirun, so that a caller can choose the
// MPI path without initialising MPI.
func Launched() bool {
	for _, k := range launcherEnv {
		if v, ok := os.LookupEnv(k); ok && v != "" {
			return true
		}
	}
	return false
}
