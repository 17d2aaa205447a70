package cmdutil

import (
	"errors"
	"testing"
)

func TestDashDash(t *testing.T) {
	for in, want := range map[string]string{
		"flag provided but not defined: -bogus":                       "flag provided but not defined: --bogus",
		`invalid value "x" for flag -worker-threads: parse error`:     `invalid value "x" for flag --worker-threads: parse error`,
		"flag needs an argument: -timeout":                            "flag needs an argument: --timeout",
		`invalid boolean value "maybe" for -leader-election: parse e`: `invalid boolean value "maybe" for --leader-election: parse e`,
	} {
		if got := DashDash(in); got != want {
			t.Errorf("DashDash(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOneLineEscapesLineBreaksOfFlagValues(t *testing.T) {
	got := DashDash("invalid value \"a\nb\r\nc\" for flag -timeout")
	if want := `invalid value "a\nb\r\nc" for flag --timeout`; got != want {
		t.Errorf("DashDash = %q, want %q", got, want)
	}
	if err := JoinOneLine([]error{errors.New("x\ny"), errors.New("z")}); err.Error() != `x\ny; z` {
		t.Errorf("JoinOneLine = %q", err)
	}
}
