package safefile

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mscclpp-bench/mscclpp-bench/internal/bounded"
)

// files makes a temporary directory holding a regular file, a directory, a FIFO, a
// symbolic link and a hard link to the file, and returns their paths.
func files(t *testing.T) (dir, file, sub, fifo, link, hard string) {
	t.Helper()
	dir = t.TempDir()
	file = filepath.Join(dir, "in.json")
	if err := os.WriteFile(file, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub = filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo = filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link = filepath.Join(dir, "link.json")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	hard = filepath.Join(dir, "hard.json")
	if err := os.Link(file, hard); err != nil {
		t.Fatal(err)
	}
	return
}

func TestReadFile(t *testing.T) {
	dir, file, sub, fifo, link, _ := files(t)
	tests := []struct {
		path string
		want string // "" means success with "data"
	}{
		{file, ""},
		{link, ""},
		{sub, "is a directory"},
		{fifo, "not a regular file (a named pipe)"},
		{filepath.Join(dir, "missing.json"), "no such file"},
		{"/dev/null", "not a regular file (a device)"},
	}
	for _, tt := range tests {
		var data []byte
		var err error
		bounded.Run(t, 5*time.Second, "ReadFile "+tt.path, func() { data, err = ReadFile(tt.path) })
		if tt.want == "" {
			if err != nil || string(data) != "data" {
				t.Errorf("ReadFile(%s) = %q, %v", tt.path, data, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
			t.Errorf("ReadFile(%s): error %v, want one naming the file and %q", tt.path, err, tt.want)
		}
	}
}

func TestCheckOutput(t *testing.T) {
	dir, file, sub, fifo, link, hard := files(t)
	rel, err := filepath.Rel(mustGetwd(t), file)
	if err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(dir, "ro")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		out    string
		inputs []string
		want   string // "" means accepted
	}{
		{filepath.Join(dir, "new.svg"), []string{file}, ""},
		{file, nil, ""}, // overwriting a file that is not an input is fine
		{file, []string{file}, "is also an input"},
		{rel, []string{file}, "is also an input"},
		{filepath.Join(dir, ".", "in.json"), []string{file}, "is also an input"},
		{link, []string{file}, "is also an input"},
		{hard, []string{file}, "is also an input"},
		{filepath.Join(dir, "later.json"), []string{filepath.Join(dir, "later.json")}, "is also an input"}, // neither exists
		{sub, nil, "is a directory"},
		{fifo, nil, "named pipe"},
		{"/dev/null", nil, "a device"},
		{filepath.Join(dir, "missing", "x.json"), nil, "cannot write"},
		{"", nil, "empty"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		tests = append(tests, struct {
			out    string
			inputs []string
			want   string
		}{filepath.Join(readOnly, "x.json"), nil, "permission denied"})
	}
	for _, tt := range tests {
		err := CheckOutput(tt.out, tt.inputs...)
		if tt.want == "" {
			if err != nil {
				t.Errorf("CheckOutput(%q, %q): %v", tt.out, tt.inputs, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckOutput(%q, %q) = %v, want an error with %q", tt.out, tt.inputs, err, tt.want)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*"))
	if len(left) != 0 {
		t.Errorf("CheckOutput left temporary files: %v", left)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func TestWrite(t *testing.T) {
	dir, file, sub, fifo, _, _ := files(t)
	// A successful write replaces the file whole.
	if err := Write(file, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "new" {
		t.Errorf("after Write the file holds %q", b)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", fi.Mode(), err)
	}
	// A failed write leaves the old content and no temporary file.
	boom := errors.New("boom")
	err := Write(file, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	if !errors.Is(err, boom) {
		t.Errorf("Write error %v, want boom", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "new" {
		t.Errorf("after a failed Write the file holds %q", b)
	}
	for _, bad := range []string{sub, fifo, filepath.Join(dir, "missing", "x")} {
		var err error
		bounded.Run(t, 5*time.Second, "Write "+bad, func() { err = Write(bad, func(io.Writer) error { return nil }) })
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("Write(%s) = %v, want an error naming it", bad, err)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*"))
	if len(left) != 0 {
		t.Errorf("Write left temporary files: %v", left)
	}
}

// TestWriteKeepsKindAndMode: a write through a symbolic link (absolute, relative, a chain,
// dangling) replaces the file it points at and leaves the link; an existing file keeps its
// permissions; a new file gets 0644; a read-only file is refused by CheckOutput and Write
// and left as it was.
func TestWriteKeepsKindAndMode(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("old"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(name, to string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(to, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	private := mk("private.json", 0o600)
	group := mk("group.json", 0o664)
	readOnly := mk("readonly.json", 0o444)
	target := mk("target.json", 0o640)
	subTarget := filepath.Join(sub, "t.json")
	if err := os.WriteFile(subTarget, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		file       string      // the file that must hold the new data ("" when refused)
		mode       os.FileMode // its mode afterwards
		want       string      // the error, when refused
	}{
		{"a new file", filepath.Join(dir, "new.json"), filepath.Join(dir, "new.json"), 0o644, ""},
		{"a 0600 file", private, private, 0o600, ""},
		{"a 0664 file", group, group, 0o664, ""},
		{"an absolute link", link("abs.json", target), target, 0o640, ""},
		{"a relative link into a folder", link("rel.json", "sub/t.json"), subTarget, 0o600, ""},
		{"a chain of links", link("chain.json", "abs.json"), target, 0o640, ""},
		{"a dangling link", link("dangling.json", "made.json"), filepath.Join(dir, "made.json"), 0o644, ""},
		{"a read-only file", readOnly, "", 0, "readonly.json is read-only (mode 0444): not replaced"},
		{"a link to a read-only file", link("rolink.json", "readonly.json"), "", 0, "rolink.json is read-only"},
		{"a link to a folder", link("dirlink.json", "sub"), "", 0, "dirlink.json is a directory"},
		{"a loop of links", link("loop1.json", "loop2.json"), "", 0, "too many levels of symbolic links"},
	}
	link("loop2.json", "loop1.json")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := os.Lstat(tt.path)
			checkErr := CheckOutput(tt.path)
			err := Write(tt.path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err })
			if tt.want != "" {
				for _, e := range []error{checkErr, err} {
					if e == nil || !strings.Contains(e.Error(), tt.want) {
						t.Errorf("CheckOutput, Write: %v, %v; want %q from both", checkErr, err, tt.want)
					}
				}
				if b, _ := os.ReadFile(readOnly); string(b) != "old" {
					t.Errorf("the read-only file holds %q", b)
				}
				return
			}
			if checkErr != nil || err != nil {
				t.Fatalf("CheckOutput, Write: %v, %v", checkErr, err)
			}
			b, _ := os.ReadFile(tt.file)
			fi, statErr := os.Stat(tt.file)
			if string(b) != "new" || statErr != nil || fi.Mode().Perm() != tt.mode {
				t.Errorf("%s holds %q, mode %v, %v; want \"new\", %v", tt.file, b, fi.Mode(), statErr, tt.mode)
			}
			if before != nil && before.Mode()&os.ModeSymlink != 0 {
				if after, err := os.Lstat(tt.path); err != nil || after.Mode()&os.ModeSymlink == 0 {
					t.Errorf("the link %s was replaced: %v, %v", tt.path, after.Mode(), err)
				}
			}
		})
	}
	for _, d := range []string{dir, sub} {
		if left, _ := filepath.Glob(filepath.Join(d, ".*.tmp*")); len(left) != 0 {
			t.Errorf("temporary files left: %v", left)
		}
	}
}

// signalHelperEnv makes the test binary a helper that starts a Write, says "writing" and
// blocks inside it until a signal ends the process.
const signalHelperEnv = "SAFEFILE_TEST_SIGNAL_HELPER"

func TestMain(m *testing.M) {
	if path := os.Getenv(signalHelperEnv); path != "" {
		Write(path, func(w io.Writer) error {
			io.WriteString(w, "half")
			os.Stdout.WriteString("writing\n")
			select {} // until the signal
		})
		os.Exit(3) // not reached
	}
	os.Exit(m.Run())
}

// TestSignalRemovesTemporaryFile: SIGINT or SIGTERM during a write ends the process by that
// signal, removes the hidden temporary file and leaves the old file as it was.
func TestSignalRemovesTemporaryFile(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.json")
			if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(self, "-test.run=^$")
			cmd.Env = append(os.Environ(), signalHelperEnv+"="+out)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			line := make([]byte, 8)
			bounded.Run(t, 10*time.Second, "helper starts writing", func() { io.ReadFull(stdout, line) })
			if string(line) != "writing\n" {
				t.Fatalf("helper said %q", line)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*")); len(left) != 1 {
				t.Fatalf("temporary files during the write: %v; want one", left)
			}
			cmd.Process.Signal(sig)
			var werr error
			bounded.Run(t, 10*time.Second, "helper ends", func() { werr = cmd.Wait() })
			var ee *exec.ExitError
			if !errors.As(werr, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != sig {
				t.Errorf("helper ended with %v; want killed by %v", werr, sig)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*")); len(left) != 0 {
				t.Errorf("temporary files left after %v: %v", sig, left)
			}
			if b, _ := os.ReadFile(out); string(b) != "old" {
				t.Errorf("out.json holds %q after %v", b, sig)
			}
		})
	}
}
