package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// parseBytes reads a size as plain bytes or a Kubernetes quantity such as
// 10Gi, so flags can be written like the StorageClasses and claims they
// are tested with.
func parseBytes(s string) (int64, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: %w", s, err)
	}
	// Value rounds fractions up, so comparing back catches them. Parsing
	// caps huge values at MaxInt64, so that value stands for overflow.
	v := q.Value()
	if q.CmpInt64(v) != 0 {
		return 0, fmt.Errorf("invalid size %q: not a whole number of bytes", s)
	}
	if v == math.MaxInt64 {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("invalid size %q: must not be negative", s)
	}
	return v, nil
}

// bytesFlag is an int64 flag that takes sizes as parseBytes does.
type bytesFlag struct{ v *int64 }

func (f bytesFlag) String() string {
	if f.v == nil {
		return "0"
	}
	return strconv.FormatInt(*f.v, 10)
}

func (f bytesFlag) Set(s string) error {
	v, err := parseBytes(s)
	if err != nil {
		return err
	}
	*f.v = v
	return nil
}

// poolsFlag is a list of name=size pairs separated by commas, e.g.
// fast=10Gi,slow=1Ti. Giving the flag again adds more pools.
type poolsFlag struct{ pools *map[string]int64 }

func (f poolsFlag) String() string {
	if f.pools == nil || len(*f.pools) == 0 {
		return ""
	}
	pairs := make([]string, 0, len(*f.pools))
	for _, name := range slices.Sorted(maps.Keys(*f.pools)) {
		pairs = append(pairs, name+"="+strconv.FormatInt((*f.pools)[name], 10))
	}
	return strings.Join(pairs, ",")
}

func (f poolsFlag) Set(s string) error {
	if *f.pools == nil {
		*f.pools = map[string]int64{}
	}
	for _, pair := range strings.Split(s, ",") {
		name, size, found := strings.Cut(strings.TrimSpace(pair), "=")
		if !found || name == "" {
			return fmt.Errorf("invalid pool %q: want name=size", pair)
		}
		if _, dup := (*f.pools)[name]; dup {
			return fmt.Errorf("pool %q given twice", name)
		}
		v, err := parseBytes(size)
		if err != nil {
			return fmt.Errorf("pool %q: %w", name, err)
		}
		if v == 0 {
			return fmt.Errorf("pool %q: the size must be positive", name)
		}
		(*f.pools)[name] = v
	}
	return nil
}
