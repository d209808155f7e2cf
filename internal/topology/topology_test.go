package topology

import (
	"reflect"
	"testing"
)

func TestSameBus(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"00000000:19:00.0", "0000:19:00.0", true},
		{"0000:19:00", "00000000:19:00.0", true},
		{"0000:1A:00.0", "0000:1a:00.0", true},
		{"0000:19:00.0", "0000:1a:00.0", false},
		{"0001:19:00.0", "0000:19:00.0", false},
	}
	for _, tt := range tests {
		if got := SameBus(tt.a, tt.b); got != tt.want {
			t.Errorf("SameBus(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func links(n int, l Link) []Link {
	out := make([]Link, n)
	for i := range out {
		out[i] = l
	}
	return out
}

func TestNVLinks(t *testing.T) {
	tests := []struct {
		name string
		gpus []GPU
		want [][]int
	}{
		{
			name: "switch fabric, 18 links each",
			gpus: []GPU{{BusID: "0000:19:00.0", Links: links(18, Link{Switch: true})}, {BusID: "0000:3b:00.0", Links: links(18, Link{Switch: true})}},
			want: [][]int{{0, 18}, {18, 0}},
		},
		{
			name: "one GPU with a down link",
			gpus: []GPU{{BusID: "a:1:0.0", Links: links(18, Link{Switch: true})}, {BusID: "a:2:0.0", Links: links(17, Link{Switch: true})}},
			want: [][]int{{0, 17}, {17, 0}},
		},
		{
			name: "direct links, third GPU unlinked",
			gpus: []GPU{
				{BusID: "0000:01:00.0", Links: links(4, Link{BusID: "00000000:02:00.0"})},
				{BusID: "0000:02:00.0", Links: links(4, Link{BusID: "00000000:01:00.0"})},
				{BusID: "0000:03:00.0"},
			},
			want: [][]int{{0, 4, 0}, {4, 0, 0}, {0, 0, 0}},
		},
		{
			name: "no NVLink at all",
			gpus: []GPU{{BusID: "0000:01:00.0"}, {BusID: "0000:02:00.0"}},
			want: [][]int{{0, 0}, {0, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NVLinks(tt.gpus); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("NVLinks = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDiscover runs everywhere: without a driver Discover must fail with an error (not
// panic or exit, as gorgonia.org/cu would); with one, every GPU must have a bus id.
func TestDiscover(t *testing.T) {
	n, err := Discover()
	if err != nil {
		t.Logf("Discover: %v", err)
		return
	}
	for i, g := range n.GPUs {
		if g.Index != i || g.BusID == "" || g.Name == "" {
			t.Errorf("GPU %d: %+v", i, g)
		}
	}
}
