package controller

import "testing"

func TestVolumeNameKeepsWholeUIDByDefault(t *testing.T) {
	got, err := volumeName("pvc", testClaimUID, -1)
	if err != nil || got != "pvc-"+testClaimUID {
		t.Fatalf("volumeName = %q, %v; want pvc-%s", got, err, testClaimUID)
	}
}

func TestVolumeNameTruncatesCompactUID(t *testing.T) {
	got, err := volumeName("vol", testClaimUID, 8)
	if err != nil || got != "vol-0b6d5fa4" {
		t.Fatalf("volumeName = %q, %v; want vol-0b6d5fa4", got, err)
	}
	got, err = volumeName("vol", testClaimUID, 12)
	if err != nil || got != "vol-0b6d5fa454c3" {
		t.Fatalf("dashes must be stripped before truncating: got %q, %v", got, err)
	}
}

func TestVolumeNameRefusesLengthBeyondUID(t *testing.T) {
	if _, err := volumeName("pvc", testClaimUID, 33); err == nil {
		t.Fatal("a UUID length longer than the compact UID must be an error")
	}
}
