//go:build !cgo

package mpi

const childEnv = "MSCCLPP_BENCH_MPI_TEST_CHILD"
