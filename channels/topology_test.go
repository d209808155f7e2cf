package channels

import (
	"reflect"
	"strings"
	"testing"
)

// endpointsOn makes endpoints: hosts[r] is rank r's HostID, offers[r] what it offers beyond
// CUDA IPC.
func endpointsOn(hosts []string, offers []Transport) []Endpoint {
	eps := make([]Endpoint, len(hosts))
	for r := range hosts {
		eps[r] = Endpoint{Rank: r, HostID: hosts[r], Transports: TransportCUDAIPC | offers[r]}
	}
	return eps
}

func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestSelectTransport covers one and two simulated hosts under every mode: which
// transport each pair gets, or which pair cannot connect and why.
func TestSelectTransport(t *testing.T) {
	const eth, ib = TransportEthernet, TransportIB
	oneHost := repeat("h", 4)
	twoHosts := []string{"a", "a", "b", "b"}
	cases := []struct {
		name   string
		mode   Mode
		hosts  []string
		offers []Transport
		want   string // DescribeTransports, or the error's text
		fails  bool
	}{
		{"1 host auto", ModeAuto, oneHost, repeat(eth|ib, 4), "hosts=1 within=cudaipc", false},
		{"1 host nvlink", ModeNVLink, oneHost, repeat(Transport(0), 4), "hosts=1 within=cudaipc", false},
		{"1 host ethernet", ModeEthernet, oneHost, repeat(eth, 4), "hosts=1 within=ethernet", false},
		{"1 host ib", ModeIB, oneHost, repeat(ib|eth, 4), "hosts=1 within=ib", false},
		{"1 host ib, rank 2 without an HCA", ModeIB, oneHost, []Transport{ib, ib, eth, ib}, "rank 2 has no usable InfiniBand HCA", true},
		{"2 hosts auto, Ethernet only", ModeAuto, twoHosts, repeat(eth, 4), "hosts=2 within=cudaipc between=ethernet", false},
		{"2 hosts auto, HCAs everywhere", ModeAuto, twoHosts, repeat(eth|ib, 4), "hosts=2 within=cudaipc between=ib", false},
		{"2 hosts auto, host b without HCAs", ModeAuto, twoHosts, []Transport{eth | ib, eth | ib, eth, eth}, "hosts=2 within=cudaipc between=ethernet", false},
		{"2 hosts auto, one rank of b with an HCA", ModeAuto, twoHosts, []Transport{eth | ib, eth | ib, eth | ib, eth},
			"hosts=2 pairs=0-1:cudaipc,0-2:ib,0-3:ethernet,1-2:ib,1-3:ethernet,2-3:cudaipc", false},
		{"2 hosts auto, nothing between", ModeAuto, twoHosts, repeat(Transport(0), 4), "share no network transport", true},
		{"2 hosts nvlink", ModeNVLink, twoHosts, repeat(eth, 4), "are on different hosts: --transport nvlink", true},
		{"2 hosts ethernet", ModeEthernet, twoHosts, repeat(eth|ib, 4), "hosts=2 within=ethernet between=ethernet", false},
		{"2 hosts ib", ModeIB, twoHosts, repeat(eth|ib, 4), "hosts=2 within=ib between=ib", false},
		{"2 hosts, one rank each", ModeAuto, []string{"a", "b"}, repeat(eth, 2), "hosts=2 between=ethernet", false},
		{"1 rank", ModeAuto, []string{"a"}, repeat(eth, 1), "hosts=1", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eps := endpointsOn(c.hosts, c.offers)
			pairs := map[[2]int]Transport{}
			var firstErr error
			for i := range eps {
				for j := i + 1; j < len(eps); j++ {
					tr, err := SelectTransport(c.mode, eps[i], eps[j])
					back, errBack := SelectTransport(c.mode, eps[j], eps[i])
					if tr != back || (err == nil) != (errBack == nil) {
						t.Errorf("pair %d-%d: %v/%v one way, %v/%v the other", i, j, tr, err, back, errBack)
					}
					if err != nil && firstErr == nil {
						firstErr = err
					}
					pairs[[2]int{i, j}] = tr
				}
			}
			if c.fails {
				if firstErr == nil || !strings.Contains(firstErr.Error(), c.want) {
					t.Errorf("error %v, want one containing %q", firstErr, c.want)
				}
				return
			}
			if firstErr != nil {
				t.Fatal(firstErr)
			}
			got := DescribeTransports(eps, func(i, j int) Transport { return pairs[[2]int{i, j}] })
			if got != c.want {
				t.Errorf("transports %q, want %q", got, c.want)
			}
		})
	}
}

func TestParseModeAndHosts(t *testing.T) {
	for s, want := range map[string]Mode{"auto": ModeAuto, "nvlink": ModeNVLink, "cudaipc": ModeNVLink, "ethernet": ModeEthernet, "ib": ModeIB} {
		if m, err := ParseMode(s); err != nil || m != want {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseMode("tcp"); err == nil {
		t.Error("ParseMode accepted tcp")
	}
	hosts := Hosts(endpointsOn([]string{"b", "a", "b", "c", "a"}, repeat(Transport(0), 5)))
	if want := [][]int{{0, 2}, {1, 4}, {3}}; !reflect.DeepEqual(hosts, want) {
		t.Errorf("Hosts = %v, want %v", hosts, want)
	}
	if s := (TransportCUDAIPC | TransportEthernet).String(); s != "cudaipc+ethernet" {
		t.Errorf("transport set prints as %q", s)
	}
}
