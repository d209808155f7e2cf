// Package netnstest gives tests two network namespaces joined by a veth pair: two "hosts"
// on one machine, each with its own address and only that link. The namespaces are the
// test's own (named after its process id and a tag) and are deleted when it ends. Making
// them needs root and iproute2's ip; without them the test is skipped with the reason.
package netnstest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Pair is two namespaces joined by a veth pair: NS[i] holds Veth[i] with address Addrs[i]
// (a /30 between the two) and its loopback up.
type Pair struct {
	IP    string    // the ip command's path
	NS    [2]string // namespace names
	Veth  [2]string // interface names, Veth[i] inside NS[i]
	Addrs [2]string // IPv4 addresses, Addrs[i] on Veth[i]
}

// New makes a Pair for t, named from tag (two or three letters that tell tests apart) and
// addressed in subnet ("10.213.0": the pair takes .1 and .2), or skips t where namespaces
// cannot be made here. The namespaces are deleted in t's cleanup.
func New(t testing.TB, tag, subnet string) Pair {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create network namespaces")
	}
	ipCmd, err := exec.LookPath("ip")
	if err != nil {
		t.Skip("needs the ip command (iproute2)")
	}
	id := strconv.Itoa(os.Getpid() % 100000)
	p := Pair{
		IP:    ipCmd,
		NS:    [2]string{"mb" + tag + id + "a", "mb" + tag + id + "b"},
		Veth:  [2]string{"mv" + tag + id + "a", "mv" + tag + id + "b"},
		Addrs: [2]string{subnet + ".1", subnet + ".2"},
	}
	for _, name := range p.NS {
		if err := p.run("netns", "add", name); err != nil {
			for _, made := range p.NS {
				_ = p.run("netns", "del", made)
			}
			t.Skipf("network namespaces are not available here: %v", err)
		}
	}
	t.Cleanup(func() {
		for _, name := range p.NS {
			if err := p.run("netns", "del", name); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		}
	})
	steps := [][]string{{"link", "add", p.Veth[0], "type", "veth", "peer", "name", p.Veth[1]}}
	for i := range p.NS {
		steps = append(steps,
			[]string{"link", "set", p.Veth[i], "netns", p.NS[i]},
			[]string{"-n", p.NS[i], "addr", "add", p.Addrs[i] + "/30", "dev", p.Veth[i]},
			[]string{"-n", p.NS[i], "link", "set", "lo", "up"},
			[]string{"-n", p.NS[i], "link", "set", p.Veth[i], "up"})
	}
	for _, s := range steps {
		if err := p.run(s...); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// Exec is the command prefix that runs a program inside namespace i.
func (p Pair) Exec(i int) []string { return []string{p.IP, "netns", "exec", p.NS[i]} }

// run runs ip with args, bounded by 10 s.
func (p Pair) run(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p.IP, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
