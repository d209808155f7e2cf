// Package safefile opens input files and writes output files so that bad paths fail at
// once with a clear error: an input must be a regular file (a FIFO or a directory never
// blocks or half-reads), an output may not be one of the inputs, a directory, a device or
// a read-only file, and is written atomically (a temporary file in the same directory,
// then a rename), so a failed or interrupted write never leaves a truncated file behind.
// An output that is a symbolic link is written through it (the link stays, its target is
// replaced), an existing output keeps its permissions, and the temporary file is removed
// if SIGINT or SIGTERM ends the process during the write.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"
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
// directory or other non-regular file, not read-only, and the directory of the file it
// names (through symbolic links) exists and accepts new files.
func CheckOutput(path string, inputs ...string) error {
	if path == "" {
		return errors.New("empty output path")
	}
	for _, in := range inputs {
		if same(path, in) {
			return fmt.Errorf("output %s is also an input (%s): it would be overwritten", path, in)
		}
	}
	dst, _, err := destination(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), tempPattern(dst))
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	name := tmp.Name()
	tmp.Close()
	return os.Remove(name)
}

// maxLinks bounds how many symbolic links destination follows, as the kernel does.
const maxLinks = 40

// destination returns the file a write of path must replace: path, or where its chain
// of symbolic links ends (a missing file there is created), and the permissions to give
// it: an existing file's own, else 0644. A directory, other non-regular file or read-only
// file there is refused, naming path.
func destination(path string) (string, os.FileMode, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			return p, 0o644, nil
		}
		if err != nil {
			return "", 0, err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			if err := regular(path, fi); err != nil {
				return "", 0, err
			}
			if fi.Mode().Perm()&0o222 == 0 || syscall.Access(p, 2 /* W_OK */) != nil {
				return "", 0, fmt.Errorf("%s is read-only (mode %04o): not replaced", path, fi.Mode().Perm())
			}
			return p, fi.Mode().Perm(), nil
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", 0, err
		}
		if !filepath.IsAbs(to) {
			// Relative to the link's directory, as the kernel resolves it (no lexical
			// cleaning: the directory may itself hold links).
			to = filepath.Dir(p) + string(filepath.Separator) + to
		}
		p = to
	}
	return "", 0, fmt.Errorf("%s: too many levels of symbolic links", path)
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
// path is left as it was. A symbolic link is written through (its target is replaced,
// the link stays); an existing file keeps its permissions, a new one gets 0644; a
// read-only file is refused. SIGINT or SIGTERM during the write removes the temporary
// file before the process ends.
func Write(path string, write func(w io.Writer) error) (err error) {
	dst, mode, err := destination(path)
	if err != nil {
		return err
	}
	tmp, err := createTemp(dst)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
		forget(tmp.Name())
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// temps are the temporary files being written, removed if a signal ends the process.
var temps struct {
	sync.Mutex
	names map[string]bool
	sigs  chan os.Signal // non-nil while names is not empty
}

// createTemp creates the temporary file for dst and registers it for removal on SIGINT
// and SIGTERM, which are caught only while some temporary file exists.
func createTemp(dst string) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	tmp, err := os.CreateTemp(filepath.Dir(dst), tempPattern(dst))
	if err != nil {
		return nil, err
	}
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	temps.names[tmp.Name()] = true
	if temps.sigs == nil {
		temps.sigs = make(chan os.Signal, 1)
		for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGTERM} {
			if !signal.Ignored(s) { // a signal the process ignores (nohup) stays ignored
				signal.Notify(temps.sigs, s)
			}
		}
		go removeOnSignal(temps.sigs)
	}
	return tmp, nil
}

// forget drops name from temps; with none left, the signals go back to their default.
func forget(name string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, name)
	if len(temps.names) == 0 && temps.sigs != nil {
		signal.Stop(temps.sigs)
		close(temps.sigs)
		temps.sigs = nil
	}
}

// removeOnSignal waits for a signal on sigs; on one it removes every temporary file and
// ends the process by the same signal, as it would have ended without safefile.
func removeOnSignal(sigs chan os.Signal) {
	sig, ok := <-sigs
	if !ok {
		return
	}
	temps.Lock() // held until the process ends: no new temporary file, no rename
	for name := range temps.names {
		os.Remove(name)
	}
	signal.Stop(sigs)
	signal.Reset(sig)
	s, _ := sig.(syscall.Signal)
	syscall.Kill(os.Getpid(), s)
	time.Sleep(time.Second) // the signal's default action ends the process here
	os.Exit(128 + int(s))
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
