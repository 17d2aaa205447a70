package soak

import "testing"

func TestParseVmRSSReadsKilobytes(t *testing.T) {
	status := []byte("Name:\tcsi-provisioner\nVmPeak:\t 900000 kB\nVmRSS:\t   51234 kB\nThreads:\t12\n")
	got, err := parseVmRSS(status)
	if err != nil {
		t.Fatal(err)
	}
	if got != 51234*1024 {
		t.Errorf("parseVmRSS = %d, want %d", got, 51234*1024)
	}
	if _, err := parseVmRSS([]byte("Name:\tzombie\n")); err == nil {
		t.Error("a status without VmRSS: no error")
	}
}
