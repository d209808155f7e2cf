package cli

import (
	"reflect"
	"testing"
)

func TestSizes(t *testing.T) {
	tests := []struct {
		name                 string
		min, max, step, fact int64
		want                 []int64
	}{
		{"factor 2", 8, 64, 1 << 20, 2, []int64{8, 16, 32, 64}},
		{"factor 2 max not reached exactly", 8, 100, 1 << 20, 2, []int64{8, 16, 32, 64}},
		{"factor 4", 1, 64, 0, 4, []int64{1, 4, 16, 64}},
		{"byte step", 1000, 5000, 1500, 1, []int64{1000, 2500, 4000}},
		{"byte step hits max", 1000, 4000, 1500, 1, []int64{1000, 2500, 4000}},
		{"min == max factor", 32 << 20, 32 << 20, 1 << 20, 1, []int64{32 << 20}},
		{"min == max step 0", 4096, 4096, 0, 1, []int64{4096}},
		{"min == max with factor", 128, 128, 0, 2, []int64{128}},
		{"factor from 0", 0, 8, 0, 2, []int64{0, 1, 2, 4, 8}},
		{"zero only", 0, 0, 0, 2, []int64{0}},
		{"factor near the top", 1 << 35, 64 << 30, 0, 2, []int64{1 << 35, 1 << 36}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Common{MinBytes: tt.min, MaxBytes: tt.max, StepBytes: tt.step, StepFactor: tt.fact}
			if got := c.Sizes(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Sizes() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParsePair(t *testing.T) {
	tests := []struct {
		in      string
		i, j    int
		wantErr bool
	}{
		{"0,1", 0, 1, false},
		{"3,2", 3, 2, false},
		{" 1 , 7 ", 1, 7, false},
		{"0,0", 0, 0, true},
		{"-1,2", 0, 0, true},
		{"1,-2", 0, 0, true},
		{"1", 0, 0, true},
		{"", 0, 0, true},
		{"1,2,3", 0, 0, true},
		{"a,b", 0, 0, true},
		{"1,", 0, 0, true},
		{"1.5,2", 0, 0, true},
	}
	for _, tt := range tests {
		i, j, err := ParsePair(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParsePair(%q) = %d, %d, want an error", tt.in, i, j)
			}
			continue
		}
		if err != nil || i != tt.i || j != tt.j {
			t.Errorf("ParsePair(%q) = %d, %d, %v; want %d, %d, nil", tt.in, i, j, err, tt.i, tt.j)
		}
	}
}

func TestParseListAliases(t *testing.T) {
	for alias, want := range datatypeAliases {
		got, err := parseList("datatype", alias, AllDatatypes, datatypeAliases)
		if err != nil || !reflect.DeepEqual(got, []string{want}) {
			t.Errorf("parseList(%q) = %v, %v; want [%s]", alias, got, err, want)
		}
	}
	got, err := parseList("datatype", "fp16, char,double", AllDatatypes, datatypeAliases)
	if want := []string{"half", "int8", "double"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("parseList(list) = %v, %v; want %v", got, err, want)
	}
	if _, err := parseList("op", "sum,bogus", AllOps, nil); err == nil || !IsUsage(err) {
		t.Errorf("parseList(sum,bogus) error = %v, want a usage error", err)
	}
	// "all" returns a copy: changing it must not change AllDatatypes.
	all, _ := parseList("datatype", "all", AllDatatypes, datatypeAliases)
	all[0] = "changed"
	if AllDatatypes[0] == "changed" {
		t.Error(`parseList("all") returned AllDatatypes itself, not a copy`)
	}
}
