package gpushare

import (
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

func TestPipeDir(t *testing.T) {
	for _, c := range []struct{ env, want string }{
		{"", DefaultPipeDir},
		{"/run/x/mps-pipe", "/run/x/mps-pipe"},
	} {
		got := PipeDir(func(k string) string {
			if k == "CUDA_MPS_PIPE_DIRECTORY" {
				return c.env
			}
			return ""
		})
		if got != c.want {
			t.Errorf("PipeDir with %q = %q, want %q", c.env, got, c.want)
		}
	}
}

// TestMPSOn: only a control socket that takes a connection, or a control pipe, means a
// daemon (the daemon makes a socket named control in its pipe folder and leaves it behind
// when it quits).
func TestMPSOn(t *testing.T) {
	dirWith := func(make func(path string)) string {
		dir := shortTempDir(t)
		make(filepath.Join(dir, "control"))
		return dir
	}
	fifo := func(path string) {
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatalf("mkfifo: %v", err)
		}
	}
	// socket binds path and, where listen, listens on it; closing it later leaves the file.
	socket := func(listen bool) func(string) {
		return func(path string) {
			fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Close(fd) })
			if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
				t.Fatalf("bind: %v", err)
			}
			if listen {
				if err := syscall.Listen(fd, 4); err != nil {
					t.Fatalf("listen: %v", err)
				}
			}
		}
	}
	quit := func(path string) { // a daemon that listened, then quit
		fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
			t.Fatalf("bind: %v", err)
		}
		if err := syscall.Listen(fd, 4); err != nil {
			t.Fatalf("listen: %v", err)
		}
		syscall.Close(fd)
	}
	file := func(path string) {
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, dir string
		want      bool
	}{
		{"listening control socket", dirWith(socket(true)), true},
		{"control socket nobody listens on", dirWith(socket(false)), false},
		{"control socket of a daemon that quit", dirWith(quit), false},
		{"control pipe", dirWith(fifo), true},
		{"plain file", dirWith(file), false},
		{"empty folder", t.TempDir(), false},
		{"no folder", filepath.Join(t.TempDir(), "none"), false},
	} {
		if got := MPSOn(c.dir); got != c.want {
			t.Errorf("%s: MPSOn = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestThreadPercent(t *testing.T) {
	for _, c := range []struct {
		v    string
		want int
	}{
		{"", 0}, {"50", 50}, {" 25 ", 25}, {"33.3", 33}, {"100", 0}, {"0", 0}, {"101", 0}, {"-5", 0}, {"half", 0}, {"0.5", 1},
	} {
		got := ThreadPercent(func(string) string { return c.v })
		if got != c.want {
			t.Errorf("ThreadPercent(%q) = %d, want %d", c.v, got, c.want)
		}
	}
}

func own(host, bus string) Rank { return Rank{Host: host, BusID: bus, SMs: 132, GridSMs: 132} }

func shared(mps bool, percent int) Rank {
	r := Rank{Host: "h", BusID: "0000:19:00.0", MPS: mps, Percent: percent, SMs: 132, GridSMs: 66, Queues: RecommendedWorkQueues}
	if percent > 0 {
		r.SMs, r.GridSMs = 132*percent/100, 132*percent/200
	}
	return r
}

// queues returns r with CUDA_DEVICE_MAX_CONNECTIONS n (0: unset).
func queues(r Rank, n int) Rank { r.Queues = n; return r }

func TestWorkQueues(t *testing.T) {
	for _, c := range []struct {
		v    string
		want int
	}{{"", 0}, {"8", 8}, {" 16 ", 16}, {"0", 0}, {"-2", 0}, {"x", 0}, {"2.5", 0}} {
		if got := WorkQueues(func(string) string { return c.v }); got != c.want {
			t.Errorf("WorkQueues(%q) = %d, want %d", c.v, got, c.want)
		}
	}
}

// TestQueuesEnv: the worker gets 32 hardware queues unless its environment sets a number
// or an MPS daemon serves it (not one that quit and left its socket behind).
func TestQueuesEnv(t *testing.T) {
	listen := func() (string, *net.UnixListener) {
		dir := shortTempDir(t)
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "control"), Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		return dir, ln
	}
	mps, ln := listen()
	defer ln.Close()
	quit, gone := listen()
	gone.SetUnlinkOnClose(false)
	gone.Close()
	none := t.TempDir()
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"unset, no MPS", map[string]string{"CUDA_MPS_PIPE_DIRECTORY": none}, "CUDA_DEVICE_MAX_CONNECTIONS=32"},
		{"set by the user", map[string]string{"CUDA_MPS_PIPE_DIRECTORY": none, "CUDA_DEVICE_MAX_CONNECTIONS": "4"}, ""},
		{"unset, under MPS", map[string]string{"CUDA_MPS_PIPE_DIRECTORY": mps}, ""},
		{"set, under MPS", map[string]string{"CUDA_MPS_PIPE_DIRECTORY": mps, "CUDA_DEVICE_MAX_CONNECTIONS": "8"}, ""},
		{"unset, the daemon quit", map[string]string{"CUDA_MPS_PIPE_DIRECTORY": quit}, "CUDA_DEVICE_MAX_CONNECTIONS=32"},
	} {
		if got := QueuesEnv(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%s: QueuesEnv = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestDefaultQueuesUnderMPS: only a GPU shared by MPS clients one of which left
// CUDA_DEVICE_MAX_CONNECTIONS unset counts; time-sliced ranks and ranks with GPUs of their
// own do not.
func TestDefaultQueuesUnderMPS(t *testing.T) {
	for _, c := range []struct {
		name  string
		ranks []Rank
		want  bool
	}{
		{"MPS, queues set", []Rank{shared(true, 50), shared(true, 50)}, false},
		{"MPS, queues unset", []Rank{queues(shared(true, 50), 0), queues(shared(true, 50), 0)}, true},
		{"MPS, one rank unset", []Rank{shared(true, 50), queues(shared(true, 50), 0)}, true},
		{"time-sliced, unset", []Rank{queues(shared(false, 0), 0), queues(shared(false, 0), 0)}, false},
		{"own GPUs, unset", []Rank{queues(own("h", "a"), 0), queues(own("h", "b"), 0)}, false},
	} {
		if got := DefaultQueuesUnderMPS(c.ranks); got != c.want {
			t.Errorf("%s: DefaultQueuesUnderMPS = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestShared(t *testing.T) {
	for _, c := range []struct {
		name     string
		ranks    []Rank
		want     [][]int
		underMPS bool
	}{
		{"one GPU each", []Rank{own("h", "a"), own("h", "b")}, nil, false},
		{"same bus, other hosts", []Rank{own("h1", "a"), own("h2", "a")}, nil, false},
		{"time-sliced", []Rank{shared(false, 0), shared(false, 0)}, [][]int{{0, 1}}, false},
		{"MPS", []Rank{shared(true, 50), shared(true, 50)}, [][]int{{0, 1}}, true},
		{"one rank not a client", []Rank{shared(true, 50), shared(false, 0)}, [][]int{{0, 1}}, false},
		{"two GPUs", []Rank{own("h", "a"), own("h", "b"), own("h", "a"), own("h", "b")}, [][]int{{0, 2}, {1, 3}}, false},
	} {
		if got := Shared(c.ranks); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Shared = %v, want %v", c.name, got, c.want)
		}
		if got := UnderMPS(c.ranks); got != c.underMPS {
			t.Errorf("%s: UnderMPS = %v, want %v", c.name, got, c.underMPS)
		}
	}
}

func TestNotes(t *testing.T) {
	for _, c := range []struct {
		name  string
		ranks []Rank
		count int      // notes
		has   []string // substrings of the notes
	}{
		{"one GPU each", []Rank{own("h", "a"), own("h", "b")}, 0, nil},
		{"one rank", []Rank{own("h", "a")}, 0, nil},
		{"same bus, other hosts", []Rank{own("h1", "a"), own("h2", "a")}, 0, nil},
		{"time-sliced", []Rank{shared(false, 0), shared(false, 0)}, 1, []string{"ranks 0-1 share GPU 0000:19:00.0 on h without MPS", "time-sliced"}},
		{"one rank not a client", []Rank{shared(true, 50), shared(false, 0)}, 1, []string{"without MPS"}},
		{"MPS, no limit", []Rank{shared(true, 0), shared(true, 0)}, 1, []string{"under MPS with no SM limit", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50"}},
		{"MPS, one rank limited", []Rank{shared(true, 50), shared(true, 0)}, 1, []string{"with no SM limit"}},
		{"MPS, limited", []Rank{shared(true, 50), shared(true, 50)}, 1, []string{"each limited to 50 % of it", "66 SMs", "at most 33 blocks"}},
		{"MPS, default queues", []Rank{queues(shared(true, 50), 0), queues(shared(true, 50), 0)}, 2, []string{"each limited to 50 %", "default work queues", "CUDA_DEVICE_MAX_CONNECTIONS=8"}},
		{"MPS, one rank's default queues", []Rank{shared(true, 50), queues(shared(true, 50), 0)}, 2, []string{"CUDA_DEVICE_MAX_CONNECTIONS=8"}},
		{"time-sliced, default queues", []Rank{queues(shared(false, 0), 0), queues(shared(false, 0), 0)}, 1, []string{"time-sliced"}},
		{"four ranks", []Rank{shared(true, 0), shared(true, 0), shared(true, 0), shared(true, 0)}, 1, []string{"ranks 0-3", "PERCENTAGE=25"}},
		{"two GPUs shared", []Rank{own("h", "a"), own("h", "b"), own("h", "a"), own("h", "b")}, 2,
			[]string{"ranks 0,2 share GPU a", "ranks 1,3 share GPU b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Notes(c.ranks)
			all := strings.Join(got, "\n")
			ok := len(got) == c.count
			for _, w := range c.has {
				ok = ok && strings.Contains(all, w)
			}
			if !ok {
				t.Errorf("Notes = %q, want %d notes with %q", got, c.count, c.has)
			}
		})
	}
}

func TestList(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{[]int{0}, "0"}, {[]int{0, 1}, "0-1"}, {[]int{3, 0, 1, 2, 6}, "0-3,6"}, {[]int{1, 3, 5}, "1,3,5"}, {nil, ""},
	} {
		if got := List(c.in); got != c.want {
			t.Errorf("List(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	in := []int{2, 1}
	List(in)
	if !reflect.DeepEqual(in, []int{2, 1}) {
		t.Errorf("List sorted its argument: %v", in)
	}
}

// shortTempDir is a temporary folder under /tmp, whatever TMPDIR is: the Unix sockets the
// tests bind there must have paths under 108 bytes.
func shortTempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("/tmp", "gpushare")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
