package benchtest

import (
	"math"
	"strings"
	"testing"
)

// MustContain fails t for every string of want that text, named what in
// the message, lacks.
func MustContain(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// Approx fails t unless got, a ratio for results.json, is there and is
// want.
func Approx(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: missing, want %.4f", what, want)
		return
	}
	if math.Abs(*got-want) > 1e-9 {
		t.Errorf("%s = %.4f, want %.4f", what, *got, want)
	}
}
