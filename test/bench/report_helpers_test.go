package bench

import (
	"strings"
	"testing"
)

// mustContain fails t for every string of want that text, named what in
// the message, lacks.
func mustContain(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}
