package mpi

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mscclpp-bench/mscclpp-bench/bootstrap"
)

func TestLaunched(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("inside mpirun")
	}
	for _, k := range bootstrap.MPIEnv {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	if Launched() {
		t.Fatal("Launched with no launcher variables")
	}
	for _, k := range bootstrap.MPIEnv {
		t.Setenv(k, "3")
		if !Launched() {
			t.Errorf("%s set but not Launched", k)
		}
		os.Unsetenv(k)
	}
}

// Before Init, nothing touches MPI and everything fails cleanly.
func TestNotInitialized(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("inside mpirun")
	}
	var id bootstrap.UniqueID
	if err := BcastUniqueID(&id); err == nil || !strings.Contains(err.Error(), "not initialized") && !strings.Contains(err.Error(), "without cgo") {
		t.Errorf("BcastUniqueID before Init: %v", err)
	}
	if _, err := Bootstrap(context.Background(), bootstrap.Options{}, ""); err == nil {
		t.Error("Bootstrap before Init succeeded")
	}
	if err := BcastUniqueID(nil); err == nil {
		t.Error("BcastUniqueID(nil) succeeded")
	}
	Finalize() // no-op
}
