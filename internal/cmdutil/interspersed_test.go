package cmdutil

import (
	"flag"
	"io"
	"slices"
	"testing"
)

func TestParseInterspersed(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		wantPositional []string
		wantEnabled    bool
		wantPrefix     string
	}{
		{args: []string{"--enabled", "--prefix=p"}, wantEnabled: true, wantPrefix: "p"},
		// pflag reads "false" as an argument: the bool flag is set.
		{args: []string{"--enabled", "false", "--prefix=p"}, wantPositional: []string{"false"}, wantEnabled: true, wantPrefix: "p"},
		{args: []string{"stray", "--prefix", "p", "other"}, wantPositional: []string{"stray", "other"}, wantPrefix: "p"},
		{args: []string{"-", "--enabled"}, wantPositional: []string{"-"}, wantEnabled: true, wantPrefix: "def"},
		// "--" ends the flags.
		{args: []string{"--prefix=p", "--", "--enabled", "x"}, wantPositional: []string{"--enabled", "x"}, wantPrefix: "p"},
		// A "--" that is a flag's value does not.
		{args: []string{"--prefix", "--", "x", "--enabled"}, wantPositional: []string{"x"}, wantEnabled: true, wantPrefix: "--"},
		{args: []string{"-prefix", "--", "x", "-enabled"}, wantPositional: []string{"x"}, wantEnabled: true, wantPrefix: "--"},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		enabled := fs.Bool("enabled", false, "")
		prefix := fs.String("prefix", "def", "")
		positional, err := ParseInterspersed(fs, tc.args)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if !slices.Equal(positional, tc.wantPositional) || *enabled != tc.wantEnabled || *prefix != tc.wantPrefix {
			t.Errorf("%q: arguments %q, enabled %v, prefix %q; want %q, %v, %q",
				tc.args, positional, *enabled, *prefix, tc.wantPositional, tc.wantEnabled, tc.wantPrefix)
		}
	}
}

func TestParseInterspersedErrors(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Bool("enabled", false, "")
	if _, err := ParseInterspersed(fs, []string{"stray", "--bogus"}); err == nil {
		t.Error("an unknown flag after an argument was accepted")
	}
}
