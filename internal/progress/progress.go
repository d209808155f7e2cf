// Package progress shows how far a long sweep has got ("[3/29] allreduce ... 12.4 s") on
// one terminal line of stderr, redrawn in place, so that the tables on stdout stay clean.
//
// A step's line is drawn only once the step has run for Delay: quick steps never draw, so
// a line cannot land between table rows when a launcher (mpirun) forwards stdout and
// stderr separately and out of order.
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

// Delay is how long a step runs before its progress line appears.
const Delay = 300 * time.Millisecond

// Meter draws the progress line. A nil Meter does nothing.
type Meter struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	// the step in progress
	active      bool
	done, total int
	what        string
	since       time.Time
	drawn       bool
	stop        chan struct{}
	stopOnce    sync.Once
}

// New returns a Meter writing to w that redraws its line every tick, or nil (a Meter that
// does nothing) when !on. Call Close when done.
func New(w io.Writer, on bool) *Meter {
	if !on || w == nil {
		return nil
	}
	m := &Meter{w: w, start: time.Now(), stop: make(chan struct{})}
	go m.loop(100 * time.Millisecond)
	return m
}

func (m *Meter) loop(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case now := <-t.C:
			m.tick(now)
		}
	}
}

// Update starts a step: done of total steps are finished, what comes next.
func (m *Meter) Update(done, total int, what string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.active, m.done, m.total, m.what, m.since = true, done, total, what, time.Now()
}

// tick draws the line of a step that has run for Delay or more.
func (m *Meter) tick(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.active || now.Sub(m.since) < Delay {
		return
	}
	line := fmt.Sprintf("[%*d/%d] %s  %s", len(strconv.Itoa(m.total)), m.done, m.total, m.what, elapsed(now.Sub(m.start)))
	// \r back to the start of the line, then clear to its end (ANSI EL), so a shorter line
	// leaves no tail of the longer one before it.
	fmt.Fprintf(m.w, "\r%s\x1b[K", line)
	m.drawn = true
}

// Settle is how long Clear waits after erasing a line: mpirun forwards a rank's stderr and
// stdout separately, and without the pause the next table row can reach the terminal
// before the erase does and be printed after the progress text.
var Settle = 20 * time.Millisecond

// Clear ends the step and erases its line, if one is drawn; call it before anything is
// printed on the same terminal.
func (m *Meter) Clear() {
	if m == nil {
		return
	}
	m.mu.Lock()
	erased := m.drawn
	m.active = false
	if m.drawn {
		fmt.Fprint(m.w, "\r\x1b[K")
		m.drawn = false
	}
	m.mu.Unlock()
	if erased {
		time.Sleep(Settle)
	}
}

// Close erases the line and stops redrawing; closing twice is harmless.
func (m *Meter) Close() {
	if m == nil {
		return
	}
	m.Clear()
	m.stopOnce.Do(func() {
		if m.stop != nil {
			close(m.stop)
		}
	})
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
