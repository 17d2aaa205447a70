package cmdutil

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
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
	return OneLine(flagRef.ReplaceAllString(msg, "$1 --$2"))
}

// FlagError is an error of flag.FlagSet.Parse as the user sees it:
// flag.ErrHelp unchanged, for the caller to print help; any other with its
// flags spelled with two dashes (see DashDash).
func FlagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return errors.New(DashDash(err.Error()))
}

// JoinOneLine joins errors with "; " so the result stays on one line.
func JoinOneLine(errs []error) error {
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return errors.New(OneLine(strings.Join(msgs, "; ")))
}

// lineBreaks escapes the line breaks a flag value may carry into a message.
var lineBreaks = strings.NewReplacer("\r\n", `\r\n`, "\n", `\n`, "\r", `\r`)

// OneLine keeps msg on one line: a line break that a flag's value brought
// in is shown escaped, as the user wrote it in a manifest.
func OneLine(msg string) string { return lineBreaks.Replace(msg) }

// LabelsValue is a flag.Value for "key:value,key2:value2" label lists, the
// format of csi-lib-utils' --leader-election-labels. Unlike that flag, each
// key and value is checked as a Kubernetes label here, so a typo fails at
// start-up instead of at the first Lease write.
type LabelsValue map[string]string

func (l *LabelsValue) Set(s string) error {
	if *l == nil {
		*l = map[string]string{}
	}
	for item := range strings.SplitSeq(s, ",") {
		key, value, ok := strings.Cut(item, ":")
		if !ok || strings.Contains(value, ":") {
			return fmt.Errorf("malformed item %q: want key:value", item)
		}
		if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
			return fmt.Errorf("label key %q: %s", key, strings.Join(msgs, "; "))
		}
		if msgs := validation.IsValidLabelValue(value); len(msgs) > 0 {
			return fmt.Errorf("label value %q: %s", value, strings.Join(msgs, "; "))
		}
		(*l)[key] = value
	}
	return nil
}

func (l *LabelsValue) String() string {
	if l == nil || len(*l) == 0 {
		return ""
	}
	items := make([]string, 0, len(*l))
	for _, key := range slices.Sorted(maps.Keys(*l)) {
		items = append(items, key+":"+(*l)[key])
	}
	return strings.Join(items, ",")
}

// ListValue is a flag.Value for a comma-separated list; a repeated flag
// adds to it. Empty items are dropped.
type ListValue []string

func (l *ListValue) Set(s string) error {
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*l = append(*l, item)
		}
	}
	return nil
}

func (l *ListValue) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, ",")
}
