package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/mscclpp-bench/mscclpp-bench/cmd/internal/cli"
	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
)

// badInputs writes, into a temporary directory, results files that are fine and results
// files with figures no run has, plus a directory, a FIFO and an acceptance report, and
// returns a function that turns a name into its path.
func badInputs(t *testing.T) func(string) string {
	t.Helper()
	dir := t.TempDir()
	good, err := os.ReadFile(cmpNCCLAllReduce)
	if err != nil {
		t.Fatal(err)
	}
	// edit returns the good file with fn applied to its first measured row.
	edit := func(fn func(row map[string]any)) []byte {
		var doc map[string]any
		if err := json.Unmarshal(good, &doc); err != nil {
			t.Fatal(err)
		}
		fn(doc["results"].([]any)[20].(map[string]any))
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	oop := func(key string, v any) func(map[string]any) {
		return func(row map[string]any) { row["out_of_place"].(map[string]any)[key] = v }
	}
	files := map[string][]byte{
		"base.json":           good,
		"cur.json":            good,
		"results.svg":         good, // a results file whose name looks like a picture
		"negative-size.json":  edit(func(row map[string]any) { row["size"] = -row["size"].(float64) }),
		"negative-busbw.json": edit(oop("bus_bw", -5.0)),
		"negative-time.json":  edit(oop("time", -1.0)),
		"nan-busbw.json":      edit(oop("bus_bw", "nan")),
		"inf-time.json":       edit(oop("time", "inf")),
		"huge-busbw.json":     edit(oop("bus_bw", 1e308)),
		"nwrong-neg.json":     edit(oop("nwrong", -3.0)),
		"nwrong-half.json":    edit(oop("nwrong", 0.5)),
		"acceptance.json":     []byte(`{"spec":{"ranks":2},"figures":{"node":{"hostname":"vm"}},"checks":[],"pass":true}`),
		"text.json":           []byte("# nccl-tests text output\n"),
		"joined.json":         append(append([]byte(nil), good...), good...), // two files in one
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"dir.json", "dir.xml", "dir.svg"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"fifo.json", "fifo.xml", "fifo.svg"} {
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "cur.json"), filepath.Join(dir, "cur-link.json")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ro.xml", "ro.svg"} { // read-only outputs
		if err := os.WriteFile(filepath.Join(dir, f), []byte("keep"), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	return func(name string) string { return filepath.Join(dir, name) }
}

// TestGPUFreeCommandsBadInput feeds compare and plot, which run without a GPU, the input
// classes that broke them: non-finite, negative and huge numbers, outputs equal to
// inputs, directories and FIFOs. None may panic, hang, write over an input or exit with
// anything but the documented code and one clear line.
func TestGPUFreeCommandsBadInput(t *testing.T) {
	in := badInputs(t)
	goodBytes, _ := os.ReadFile(in("base.json"))
	compareCmd, plotCmd := newCompareCommand, newPlotCommand
	tests := []struct {
		cmd  func(*cli.App) *cobra.Command
		args []string
		code int
		want string // in stderr (or stdout when code is 0)
	}{
		// compare: outputs equal to inputs, directories, FIFOs.
		{compareCmd, []string{in("base.json"), in("cur.json"), "--junit", in("cur.json")}, 2, "is also an input"},
		{compareCmd, []string{in("base.json"), in("cur.json"), "--junit", in("base.json")}, 2, "is also an input"},
		{compareCmd, []string{in("base.json"), in("cur-link.json"), "--junit", in("cur.json")}, 2, "is also an input"},
		{compareCmd, []string{in("base.json"), in("cur.json"), "--junit", in("dir.xml")}, 2, "--junit: " + in("dir.xml") + " is a directory"},
		{compareCmd, []string{in("base.json"), in("cur.json"), "--junit", in("fifo.xml")}, 2, "named pipe"},
		{compareCmd, []string{in("base.json"), in("cur.json"), "--junit", in("missing/r.xml")}, 2, "no such file or directory"},
		{compareCmd, []string{in("fifo.json"), in("cur.json")}, 2, "named pipe"},
		{compareCmd, []string{in("base.json"), in("dir.json")}, 2, "is a directory"},
		{compareCmd, []string{in("base.json"), in("acceptance.json")}, 2, "acceptance report (acceptance -J), not a results file"},
		{compareCmd, []string{in("acceptance.json"), in("base.json")}, 2, "acceptance report"},
		{compareCmd, []string{in("base.json"), in("text.json")}, 2, "current " + in("text.json") + ": results: read JSON: the file is text, as nccl-tests prints it (lines starting with '#'), not JSON; want the JSON results file that -J writes"},
		{plotCmd, []string{in("text.json"), "-o", in("p.svg")}, 2, in("text.json") + ": results: read JSON: the file is text, as nccl-tests prints it"},
		{compareCmd, []string{in("base.json"), in("joined.json")}, 2, "current " + in("joined.json") + ": results: read JSON: unexpected data after the document's end"},
		// compare: figures no run has, in either file.
		{compareCmd, []string{in("base.json"), in("negative-size.json")}, 2, "negative-size.json: results: read JSON: results[20] (size -8388608): size is negative"},
		{compareCmd, []string{in("negative-busbw.json"), in("cur.json")}, 2, "baseline " + in("negative-busbw.json") + ": results: read JSON: results[20] (size 8388608): out_of_place.bus_bw -5"},
		{compareCmd, []string{in("negative-time.json"), in("cur.json")}, 2, "out_of_place.time -1"},
		{compareCmd, []string{in("base.json"), in("nan-busbw.json")}, 2, "out_of_place.bus_bw NaN"},
		{compareCmd, []string{in("base.json"), in("inf-time.json")}, 2, "out_of_place.time +Inf"},
		{compareCmd, []string{in("base.json"), in("nwrong-neg.json")}, 2, "out_of_place.nwrong -3"},
		{compareCmd, []string{in("base.json"), in("nwrong-half.json")}, 2, "out_of_place.nwrong 0.5"},
		// compare: a huge but finite figure is judged and printed narrowly.
		{compareCmd, []string{in("base.json"), in("huge-busbw.json")}, 0, "1e+308"},
		// compare: non-finite, negative and huge flag values.
		{compareCmd, []string{"--time-tolerance", "+Inf", in("base.json"), in("cur.json")}, 2, "--time-tolerance +Inf"},
		{compareCmd, []string{"--busbw-tolerance", "-Inf", in("base.json"), in("cur.json")}, 2, "--busbw-tolerance -Inf"},
		{compareCmd, []string{"--busbw-tolerance", "1e308", in("base.json"), in("cur.json")}, 0, "58 ok"},
		{compareCmd, []string{"--latency-bound-below", "-1", in("base.json"), in("cur.json")}, 2, "--latency-bound-below"},
		{compareCmd, []string{"--latency-bound-below", "99999999999999G", in("base.json"), in("cur.json")}, 2, "--latency-bound-below"},
		// plot: non-finite, zero, negative and huge sizes.
		{plotCmd, []string{in("base.json"), "-o", in("p.svg"), "--width", "nan"}, 2, `--width "nan": want a positive length`},
		{plotCmd, []string{in("base.json"), "-o", in("p.png"), "--height", "NaNcm"}, 2, `--height "NaNcm"`},
		{plotCmd, []string{in("base.json"), "-o", in("p.png"), "--width", "nan", "--dpi", "1200"}, 2, "--width"},
		{plotCmd, []string{in("base.json"), "-o", in("p.svg"), "--width", "inf"}, 2, "--width"},
		{plotCmd, []string{in("base.json"), "-o", in("p.svg"), "--width", "0"}, 2, `--width "0": want a positive length`},
		{plotCmd, []string{in("base.json"), "-o", in("p.svg"), "--width", "-1"}, 2, `--width "-1": want a positive length such as 10in, 25cm, 250mm or 720pt (a bare number is points)`},
		{plotCmd, []string{in("base.json"), "-o", in("p.svg"), "--width", "1e308in"}, 2, "width"},
		{plotCmd, []string{in("base.json"), "-o", in("p.png"), "--dpi", "0"}, 2, "--dpi 0"},
		{plotCmd, []string{in("base.json"), "-o", in("p.png"), "--dpi", "-5"}, 2, "--dpi -5"},
		{plotCmd, []string{in("base.json"), "-o", in("p.png"), "--dpi", "2147483647"}, 2, "dpi 2147483647"},
		{plotCmd, []string{in("base.json"), "-o", in("p.png"), "--dpi", "99999999999999999999"}, 2, "--dpi"},
		// plot: outputs equal to inputs, directories, FIFOs; bad inputs.
		{plotCmd, []string{in("results.svg"), "-o", in("results.svg")}, 2, "is also an input"},
		{plotCmd, []string{in("base.json"), in("results.svg"), "-o", in("results.svg")}, 2, "is also an input"},
		{plotCmd, []string{in("base.json"), "-o", in("dir.svg")}, 2, "is a directory"},
		{plotCmd, []string{in("base.json"), "-o", in("fifo.svg")}, 2, "named pipe"},
		{plotCmd, []string{in("fifo.json"), "-o", in("p.svg")}, 2, "named pipe"},
		{plotCmd, []string{in("dir.json"), "-o", in("p.svg")}, 2, "is a directory"},
		{plotCmd, []string{in("acceptance.json"), "-o", in("p.svg")}, 2, "acceptance report"},
		{plotCmd, []string{in("nan-busbw.json"), "-o", in("p.svg")}, 2, "bus_bw NaN"},
		{plotCmd, []string{in("negative-size.json"), "-o", in("p.svg")}, 2, "size is negative"},
		{plotCmd, []string{in("joined.json"), "-o", in("p.svg")}, 2, "unexpected data after the document's end"},
		// compare and plot: a read-only output is refused before any work, not replaced.
		{compareCmd, []string{in("base.json"), in("cur.json"), "--junit", in("ro.xml")}, 2, "--junit: " + in("ro.xml") + " is read-only (mode 0444): not replaced"},
		{plotCmd, []string{in("base.json"), "-o", in("ro.svg")}, 2, in("ro.svg") + " is read-only"},
		// plot: a bare number is points.
		{plotCmd, []string{in("base.json"), "-o", in("points.svg"), "--width", "720", "--height", "288"}, 0, "wrote"},
	}
	for _, tt := range tests {
		name := strings.ReplaceAll(strings.Join(tt.args, " "), in(""), "")
		t.Run(name, func(t *testing.T) {
			var code int
			var stdout, stderr string
			args := append([]string{tt.cmd(&cli.App{}).Name()}, tt.args...)
			bounded.Run(t, 10*time.Second, name, func() { code, stdout, stderr = runExtra(tt.cmd, args...) })
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, stderr)
			}
			if code == 0 {
				if !strings.Contains(stdout, tt.want) {
					t.Errorf("stdout does not contain %q:\n%s", tt.want, stdout)
				}
				for _, line := range strings.Split(stdout, "\n") {
					if len(line) > 200 {
						t.Errorf("a line of %d characters: %q", len(line), line)
					}
				}
				return
			}
			if !strings.HasPrefix(stderr, "mscclpp-bench: ") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q is not one 'mscclpp-bench: ...' line", stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.want)
			}
			if n := strings.Count(stderr, "compare:"); n > 1 {
				t.Errorf("stderr %q says compare: %d times", stderr, n)
			}
			if stdout != "" {
				t.Errorf("an error printed output:\n%s", stdout)
			}
		})
	}
	// No input was written over, and no temporary file was left.
	for _, name := range []string{"base.json", "cur.json", "results.svg"} {
		if b, err := os.ReadFile(in(name)); err != nil || !bytes.Equal(b, goodBytes) {
			t.Errorf("%s changed (%v)", name, err)
		}
	}
	left, _ := filepath.Glob(in(".*.tmp*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	for _, name := range []string{"ro.xml", "ro.svg"} {
		if b, err := os.ReadFile(in(name)); err != nil || string(b) != "keep" {
			t.Errorf("read-only %s was written: %q, %v", name, b, err)
		}
	}
	if _, err := os.Stat(in("p.svg")); err == nil {
		t.Error("a refused plot wrote its output")
	}
}
