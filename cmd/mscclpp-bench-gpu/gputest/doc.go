// Package gputest is the GPU test suite: every channel operation between pairs of ranks
// with data checks, more proxy triggers than FIFO slots, and device-side timeouts. Its
// tests have the build tag gpu and run on a GPU machine under mpirun:
//
//	make gpu-test-bin   # builds bin/gputest.test
//	mpirun -np 2 bin/gputest.test -test.v
package gputest
