package bootstrap

import (
	"errors"
	"fmt"
	"log"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// TimeoutEnv is the environment variable that overrides the default
// timeout: a Go duration ("5s", "1m30s") or a number of seconds ("5", "2.5").
const TimeoutEnv = "MSCCLPP_BENCH_BOOTSTRAP_TIMEOUT"

// defaultTimeout applies when neither Options.Timeout nor TimeoutEnv is set.
const defaultTimeout = 30 * time.Second

// Options configures a TCPBootstrap. The zero value is ready to use.
type Options struct {
	// Timeout bounds every blocking operation (connecting, waiting for
	// the other ranks at init, each Send, Recv and collective step).
	// Zero means DefaultTimeout(); negative is an error.
	Timeout time.Duration
	// Logf receives warnings, such as refused connections. It may be
	// called from several goroutines at once. Nil logs to stderr with a
	// "bootstrap: " prefix.
	Logf func(format string, args ...any)
}

// DefaultTimeout returns the timeout used when Options.Timeout is zero:
// the value of TimeoutEnv if set and valid, else 30s. New reports an
// invalid TimeoutEnv as an error; DefaultTimeout silently ignores it.
func DefaultTimeout() time.Duration {
	d, err := timeoutFromEnv()
	if err != nil {
		return defaultTimeout
	}
	return d
}

// timeoutFromEnv reads TimeoutEnv; unset or empty gives defaultTimeout.
func timeoutFromEnv() (time.Duration, error) {
	s, ok := os.LookupEnv(TimeoutEnv)
	if !ok || strings.TrimSpace(s) == "" {
		return defaultTimeout, nil
	}
	d, err := parseTimeout(s)
	if err != nil {
		return 0, fmt.Errorf("bootstrap: %s=%q: %w", TimeoutEnv, s, err)
	}
	return d, nil
}

// parseTimeout accepts a Go duration or a plain number of seconds. The
// result must be positive.
func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) || f*float64(time.Second) >= math.MaxInt64 {
			return 0, errors.New("not a usable number of seconds")
		}
		d = time.Duration(f * float64(time.Second))
	} else {
		d, err = time.ParseDuration(s)
		if err != nil {
			return 0, errors.New(`want a duration such as "30s" or a number of seconds`)
		}
	}
	if d <= 0 {
		return 0, errors.New("timeout must be positive")
	}
	return d, nil
}

// resolve fills in defaults and validates the options.
func (o Options) resolve() (time.Duration, func(string, ...any), error) {
	timeout := o.Timeout
	switch {
	case timeout < 0:
		return 0, nil, fmt.Errorf("bootstrap: negative timeout %s", timeout)
	case timeout == 0:
		var err error
		if timeout, err = timeoutFromEnv(); err != nil {
			return 0, nil, err
		}
	}
	logf := o.Logf
	if logf == nil {
		l := log.New(os.Stderr, "bootstrap: ", log.LstdFlags)
		logf = l.Printf
	}
	return timeout, logf, nil
}
