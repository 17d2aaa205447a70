package main

import (
	"regexp"
	"testing"
)

// The provisioner-identity annotation keeps upstream's format,
// <milliseconds>-<0..9999>-<driver>, unlike the Lease holder (the host
// name, see TestRunWithLeaderElection).
func TestAnnotationIdentityIsUpstreams(t *testing.T) {
	want := regexp.MustCompile(`^[0-9]{13,}-[0-9]{1,4}-csi\.example\.com$`)
	if got := newIdentity("csi.example.com"); !want.MatchString(got) {
		t.Errorf("identity %q, want <ms>-<random>-<driver>", got)
	}
}
