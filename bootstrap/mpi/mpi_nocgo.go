//go:build !cgo

package mpi

import (
	"errors"
	"os"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
)

// errNoCgo is returned by every MPI call in a build without cgo.
var errNoCgo = errors.New("mpi: this binary was built without cgo, so without MPI")

// Init fails: there is no MPI without cgo.
func Init() (rank, nranks int, err error) { return 0, 0, errNoCgo }

// Finalize does nothing without cgo.
func Finalize() {}

// Abort exits with code.
func Abort(code int) { os.Exit(code) }

// BcastUniqueID fails: there is no MPI without cgo.
func BcastUniqueID(id *bootstrap.UniqueID) error { return errNoCgo }

func worldInfo() (rank, nranks int, err error) { return 0, 0, errNoCgo }
