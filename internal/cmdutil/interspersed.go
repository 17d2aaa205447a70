package cmdutil

import (
	"flag"
	"strings"
)

// ParseInterspersed parses args as upstream's pflag command line does:
// flags may follow arguments that are not flags, and those arguments are
// returned rather than ending the parse (the standard package stops at the
// first one, dropping every flag after it). "--" ends the flags; all after
// it are arguments.
func ParseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if endedByDashDash(fs, args[:len(args)-len(rest)]) {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// endedByDashDash reports whether the parse of consumed stopped at a "--"
// terminator, telling it apart from a "--" that was a flag's value
// ("--volume-name-prefix --") by walking the tokens as the parser did.
func endedByDashDash(fs *flag.FlagSet, consumed []string) bool {
	for i := 0; i < len(consumed); i++ {
		token := consumed[i]
		if token == "--" {
			return true
		}
		name, hasValue := strings.CutPrefix(token, "--")
		if !hasValue {
			name = strings.TrimPrefix(token, "-")
		}
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) {
			i++ // the next token is this flag's value
		}
	}
	return false
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
