package safefile

import (
	"errors"
	"io"
	"os"
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
