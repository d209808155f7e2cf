// Package safefile opens input files and writes output files so that bad paths fail at
// once with a clear error: an input must be a regular file (a FIFO or a directory never
// blocks or half-reads), an output may not be one of the inputs, a directory or a device,
// and is written atomically (a temporary file in the same directory, then a rename), so
// a failed or interrupted write never leaves a truncated file behind.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// Open opens path for reading if it is a regular file. It never blocks: a FIFO is opened
// without waiting for a writer and then refused like any other non-regular file.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err // *PathError names the file
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the whole of path, which must be a regular file (see Open).
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// regular returns an error naming path unless fi is a regular file.
func regular(path string, fi os.FileInfo) error {
	switch {
	case fi.Mode().IsRegular():
		return nil
	case fi.IsDir():
		return fmt.Errorf("%s is a directory, not a file", path)
	}
	return fmt.Errorf("%s is not a regular file (%s)", path, kind(fi.Mode()))
}

// kind names a non-regular file mode for messages.
func kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "mode " + m.String()
}

// CheckOutput checks, before any work, that path can be written as an output: it is not
// one of inputs (compared with os.SameFile where both exist, else by absolute path), not a
// directory or other non-regular file, and its directory exists and accepts new files.
func CheckOutput(path string, inputs ...string) error {
	if path == "" {
		return errors.New("empty output path")
	}
	for _, in := range inputs {
		if same(path, in) {
			return fmt.Errorf("output %s is also an input (%s): it would be overwritten", path, in)
		}
	}
	if fi, err := os.Stat(path); err == nil {
		if err := regular(path, fi); err != nil {
			return err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	name := tmp.Name()
	tmp.Close()
	return os.Remove(name)
}

// same reports whether paths a and b name the same file.
func same(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// Write writes path atomically: write fills a temporary file in the same directory,
// which then replaces path by a rename. On any error the temporary file is removed and
// path is left as it was. The file gets mode 0644.
func Write(path string, write func(w io.Writer) error) (err error) {
	if fi, statErr := os.Stat(path); statErr == nil {
		if err := regular(path, fi); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// tempPattern names the temporary files beside path: hidden, and recognisably ours.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp*" }

// unwrapPath drops the temporary file's name from a *PathError, leaving the cause.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
