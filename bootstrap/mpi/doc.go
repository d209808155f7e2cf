// Package mpi is the small part of MPI that mscclpp-bench needs when it is
// started by mpirun (one process per GPU): initialisation, the world rank
// and size, and broadcasting the bootstrap's UniqueID from rank 0. All other
// setup traffic goes over the TCP bootstrap (package bootstrap).
//
// # Threads
//
// Every MPI call this package makes runs on one dedicated goroutine that is
// locked to its OS thread for the life of the process, whatever goroutine
// the caller is on. That thread calls MPI_Init, so it is MPI's "main
// thread", and MPI_THREAD_SINGLE's rule (one thread makes MPI calls) holds
// without the caller having to lock its own goroutine. Calls are therefore
// serialized; none of them is meant to be hot.
//
// Without cgo the package still builds: Launched works, the other functions
// return an error.
package mpi
