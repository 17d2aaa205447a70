package main

import (
	"maps"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"0":          0,
		"1073741824": 1 << 30,
		"10Gi":       10 << 30,
		"1.5Gi":      3 << 29,
		"10G":        10_000_000_000,
		"1k":         1000,
	} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1", "-1Gi", "100m", "0.5", "9Ei", "1 Gi"} {
		if got, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) = %d, want an error", in, got)
		}
	}
}

func TestPoolsFlag(t *testing.T) {
	var pools map[string]int64
	f := poolsFlag{&pools}
	if err := f.Set("fast=10Gi, slow=1073741824"); err != nil {
		t.Fatal(err)
	}
	// Repeating the flag adds pools.
	if err := f.Set("tiny=1Mi"); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"fast": 10 << 30, "slow": 1 << 30, "tiny": 1 << 20}
	if !maps.Equal(pools, want) {
		t.Fatalf("pools %v, want %v", pools, want)
	}
	if got := f.String(); got != "fast=10737418240,slow=1073741824,tiny=1048576" {
		t.Fatalf("String() = %q", got)
	}

	for _, in := range []string{"", "fast", "=1Gi", "fast=", "fast=0", "fast=-1Gi", "fast=x", "a=1Gi,a=2Gi", "tiny=1Gi"} {
		t.Run(in, func(t *testing.T) {
			pools := map[string]int64{"tiny": 1}
			if err := (poolsFlag{&pools}).Set(in); err == nil {
				t.Fatalf("Set(%q) accepted: %v", in, pools)
			}
		})
	}
}

func TestBytesFlag(t *testing.T) {
	var v int64
	f := bytesFlag{&v}
	if err := f.Set("2Gi"); err != nil || v != 2<<30 || f.String() != "2147483648" {
		t.Fatalf("Set(2Gi): v = %d, String() = %q, err = %v", v, f.String(), err)
	}
	if err := f.Set("lots"); err == nil {
		t.Fatal("Set(lots) accepted")
	}
	if (bytesFlag{}).String() != "0" {
		t.Fatal("zero bytesFlag does not print 0")
	}
}
