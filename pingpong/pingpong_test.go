package pingpong

import (
	"reflect"
	"strings"
	"testing"
)

func TestPairsEvery(t *testing.T) {
	tests := []struct {
		nranks int
		want   [][2]int
	}{
		{0, nil},
		{1, nil},
		{2, [][2]int{{0, 1}}},
		{3, [][2]int{{0, 1}, {0, 2}, {1, 2}}},
		{4, [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}},
	}
	for _, tt := range tests {
		got, err := Pairs(tt.nranks, nil)
		if err != nil {
			t.Errorf("Pairs(%d, nil): %v", tt.nranks, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Pairs(%d, nil) = %v, want %v", tt.nranks, got, tt.want)
		}
	}
	if got, _ := Pairs(8, nil); len(got) != 28 {
		t.Errorf("Pairs(8, nil) has %d pairs, want 28", len(got))
	}
}

func TestPairsOnly(t *testing.T) {
	tests := []struct {
		nranks  int
		only    [2]int
		wantErr bool
	}{
		{2, [2]int{0, 1}, false},
		{2, [2]int{1, 0}, false}, // the order given is kept: 1 initiates
		{8, [2]int{7, 3}, false},
		{2, [2]int{0, 5}, true},
		{2, [2]int{5, 0}, true},
		{2, [2]int{2, 1}, true},
		{1, [2]int{0, 1}, true},
	}
	for _, tt := range tests {
		only := tt.only
		got, err := Pairs(tt.nranks, &only)
		if tt.wantErr {
			if err == nil {
				t.Errorf("Pairs(%d, %v) = %v, want an error", tt.nranks, tt.only, got)
			} else if !strings.Contains(err.Error(), "--pair") {
				t.Errorf("Pairs(%d, %v) error %q does not name --pair", tt.nranks, tt.only, err)
			}
			continue
		}
		if want := [][2]int{tt.only}; err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Pairs(%d, %v) = %v, %v; want %v", tt.nranks, tt.only, got, err, want)
		}
	}
}
