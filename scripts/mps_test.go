package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeMPSControl stands in for nvidia-cuda-mps-control: -d "starts a daemon" (its control
// files and a pid file that names no process), failing as the real one would where
// another's files are still there; quit on stdin stops it, removing the pid file and
// leaving the control files behind as the real daemon does (driver 580: sockets control
// and control_privileged, file control_lock).
const fakeMPSControl = `#!/usr/bin/env bash
d=$CUDA_MPS_PIPE_DIRECTORY
if [ "$1" = -d ]; then
  [ -e "$d/control" ] || [ -e "$d/control_lock" ] || [ -e "$d/control_privileged" ] && exit 1
  : > "$d/control"; : > "$d/control_lock"; : > "$d/control_privileged"
  echo fake > "$d/nvidia-cuda-mps-control.pid"
  exit 0
fi
read -r cmd
[ "$cmd" = quit ] && [ -e "$d/control" ] && rm "$d/nvidia-cuda-mps-control.pid"
`

// TestMPSStartAfterStop: a second daemon starts in the folder of one that was stopped,
// by mps_stop or by hand, or that was killed (the control files left behind used to make
// mps_start say a daemon still listened there: the fake daemon does not start where
// another's files are left), and mps_start still refuses a folder whose daemon runs.
func TestMPSStartAfterStop(t *testing.T) {
	// A short folder: mps.sh moves the daemon's folders under /tmp when OUT is too deep.
	root, err := os.MkdirTemp("/tmp", "mps-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	fake := filepath.Join(root, "fake")
	if err := os.MkdirAll(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fake, "nvidia-cuda-mps-control"), []byte(fakeMPSControl), 0o755); err != nil {
		t.Fatal(err)
	}
	mps, err := filepath.Abs("mps.sh")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		script string
		want   string // in the output
		fail   bool
	}{
		{"start, stop, start", `mps_start 4 1 out && mps_stop && mps_start 4 1 out && echo "second: $MPS_STATE"`, "second: MPS on (4 ranks a GPU", false},
		{"start twice", `mps_start 4 1 out2 && { MPS_PID=; mps_start 4 1 out2; }`, "a daemon already listens", true},
		{"quit by hand, start", `mps_start 4 1 out3 && echo quit | nvidia-cuda-mps-control && MPS_PID= && mps_start 4 1 out3 && echo "second: $MPS_STATE"`, "second: MPS on (4 ranks a GPU", false},
		{"killed, start", `mps_start 4 1 out4 && { (exit 0) & wait $!; echo $! > "$CUDA_MPS_PIPE_DIRECTORY/nvidia-cuda-mps-control.pid"; } && MPS_PID= && mps_start 4 1 out4 && echo "second: $MPS_STATE"`, "second: MPS on (4 ranks a GPU", false},
		{"running daemon with a pid", `mps_start 4 1 out5 && { sleep 30 & echo $! > "$CUDA_MPS_PIPE_DIRECTORY/nvidia-cuda-mps-control.pid"; } && MPS_PID= && mps_start 4 1 out5; r=$?; kill %1; exit $r`, "a daemon already listens", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("bash", "-c", "source "+mps+"; "+c.script)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "MPS=1", "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			if strings.Contains(string(out), "too deep") {
				t.Fatalf("the daemon's folders moved out of %s:\n%s", root, out)
			}
			if (err != nil) != c.fail || !strings.Contains(string(out), c.want) {
				t.Errorf("%s: error %v (want failure %v), output:\n%s\nwant it to hold %q", c.script, err, c.fail, out, c.want)
			}
		})
	}
}
