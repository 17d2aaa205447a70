package cmdutil

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// Float32Value is a flag.Value for float32, which the standard package
// lacks.
type Float32Value float32

func (f *Float32Value) Set(s string) error {
	v, err := strconv.ParseFloat(s, 32)
	if err != nil {
		return errors.New("parse error")
	}
	*f = Float32Value(v)
	return nil
}

func (f *Float32Value) String() string {
	if f == nil {
		return "0"
	}
	return strconv.FormatFloat(float64(*f), 'g', -1, 32)
}

// flagRef matches the single-dash flag names in the standard package's errors.
var flagRef = regexp.MustCompile(`(flag|flag provided but not defined:|flag needs an argument:|value "[^"]*" for) -([^-\s:][^\s:]*)`)

// DashDash rewrites "-name" to "--name" in parse errors, the spelling used
// in every other message and in the documentation.
func DashDash(msg string) string {
	return flagRef.ReplaceAllString(msg, "$1 --$2")
}

// JoinOneLine joins errors with "; " so the result stays on one line.
func JoinOneLine(errs []error) error {
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return errors.New(strings.Join(msgs, "; "))
}
