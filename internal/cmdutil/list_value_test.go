package cmdutil

import (
	"flag"
	"io"
	"slices"
	"testing"
)

func TestListValueSplitsOnCommasAndDropsEmptyItems(t *testing.T) {
	for in, want := range map[string][]string{
		"":                      nil,
		",":                     nil,
		" , ,":                  nil,
		"app":                   {"app"},
		"app,example.com/*":     {"app", "example.com/*"},
		" app , tier ,":         {"app", "tier"},
		"a,,b":                  {"a", "b"},
		"app.kubernetes.io/*,*": {"app.kubernetes.io/*", "*"},
	} {
		var l ListValue
		if err := l.Set(in); err != nil {
			t.Fatalf("Set(%q): %v", in, err)
		}
		if !slices.Equal(l, want) {
			t.Errorf("Set(%q) = %q, want %q", in, []string(l), want)
		}
	}
}

func TestListValueOfARepeatedFlagAppends(t *testing.T) {
	var l []string
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var((*ListValue)(&l), "claim-labels-to-volume", "")
	if err := fs.Parse([]string{"--claim-labels-to-volume=app,tier", "--claim-labels-to-volume", "example.com/*", "--claim-labels-to-volume=", "--claim-labels-to-volume=app"}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"app", "tier", "example.com/*", "app"}; !slices.Equal(l, want) {
		t.Errorf("list %q, want %q", l, want)
	}
	if got := fs.Lookup("claim-labels-to-volume").Value.String(); got != "app,tier,example.com/*,app" {
		t.Errorf("String() = %q", got)
	}
}

func TestListValueStringOfNothing(t *testing.T) {
	var l ListValue
	if got := l.String(); got != "" {
		t.Errorf("empty: String() = %q", got)
	}
	if got := (*ListValue)(nil).String(); got != "" {
		t.Errorf("nil: String() = %q", got)
	}
	// The flag package prints a default only when it is not the zero
	// value's String: an unset list has none.
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.Var(&l, "list", "")
	if def := fs.Lookup("list").DefValue; def != "" {
		t.Errorf("default %q", def)
	}
}
