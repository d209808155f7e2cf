// Package progress shows how far a long sweep has got ("size 3 of 29, 12.4 s") on one
// terminal line of stderr, redrawn in place, so that the tables on stdout stay clean.
package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Meter draws the progress line. A nil or disabled Meter does nothing.
type Meter struct {
	mu     sync.Mutex
	w      io.Writer
	start  time.Time
	drawn  bool
	now    func() time.Time
	minGap time.Duration
	lastAt time.Time
}

// New returns a Meter writing to w, or nil (a Meter that does nothing) when !on.
func New(w io.Writer, on bool) *Meter {
	if !on || w == nil {
		return nil
	}
	return &Meter{w: w, start: time.Now(), now: time.Now, minGap: 100 * time.Millisecond}
}

// Update redraws the line: "[done/total] what, elapsed".
func (m *Meter) Update(done, total int, what string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if m.drawn && now.Sub(m.lastAt) < m.minGap {
		return
	}
	m.lastAt = now
	line := fmt.Sprintf("[%*d/%d] %s  %s", len(strconv.Itoa(total)), done, total, what, elapsed(now.Sub(m.start)))
	// \r back to the start of the line, then clear to its end (ANSI EL), so a shorter line
	// leaves no tail of the longer one before it.
	fmt.Fprintf(m.w, "\r%s\x1b[K", line)
	m.drawn = true
}

// Clear erases the line, if one is drawn; call it before anything is printed on the same
// terminal, and at the end.
func (m *Meter) Clear() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.drawn {
		fmt.Fprint(m.w, "\r\x1b[K")
		m.drawn = false
	}
}

func elapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// Enabled decides from a --progress mode ("auto", "on" or "off") whether to show progress.
// In "auto" mode it shows when stderr is a terminal, or when this process was started by
// an MPI launcher (mpirun gives its ranks pipes, not the terminal) whose own stderr is one.
func Enabled(mode string) (bool, error) {
	switch mode {
	case "on":
		return true, nil
	case "off":
		return false, nil
	case "auto", "":
		if IsTerminal(int(os.Stderr.Fd())) {
			return true, nil
		}
		if os.Getenv("OMPI_COMM_WORLD_SIZE") != "" || os.Getenv("PMI_RANK") != "" {
			return parentStderrIsTerminal(), nil
		}
		return false, nil
	}
	return false, fmt.Errorf("--progress %q: want auto, on or off", mode)
}

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}

// parentStderrIsTerminal looks at the launcher's stderr through /proc (Linux).
func parentStderrIsTerminal() bool {
	f, err := os.Open(fmt.Sprintf("/proc/%d/fd/2", os.Getppid()))
	if err != nil {
		return false
	}
	defer f.Close()
	return IsTerminal(int(f.Fd()))
}
