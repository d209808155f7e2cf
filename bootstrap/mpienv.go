package bootstrap

import "os"

// MPIEnv lists variables set by MPI launchers for each process they start: OpenMPI's
// mpirun (OMPI_COMM_WORLD_*), PMIx-based launchers (PMIX_RANK: OpenMPI 4+, srun
// --mpi=pmix) and PMI-1/2 launchers (PMI_RANK, PMI_SIZE: MPICH's hydra, srun --mpi=pmi2).
var MPIEnv = []string{
	"OMPI_COMM_WORLD_SIZE",
	"OMPI_COMM_WORLD_RANK",
	"PMIX_RANK",
	"PMI_RANK",
	"PMI_SIZE",
}

// MPILaunched reports whether one of MPIEnv is set and not empty: the process was started
// by an MPI launcher, whose rank and size win over DetectLaunch's variables. It needs no
// MPI library, so a front end without cgo can tell which launcher a run will use.
func MPILaunched() bool {
	for _, k := range MPIEnv {
		if v, ok := os.LookupEnv(k); ok && v != "" {
			return true
		}
	}
	return false
}
