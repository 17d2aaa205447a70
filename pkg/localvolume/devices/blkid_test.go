package devices

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseBlkidExportSamples(t *testing.T) {
	tests := []struct {
		sample    string
		typ       string
		ptType    string
		partEntry bool
		has       bool
		str       string
	}{
		{sample: "ext4-partition.txt", typ: "ext4", partEntry: true, has: true, str: "TYPE=ext4 USAGE=filesystem"},
		{sample: "gpt-disk.txt", ptType: "gpt", has: true, str: "PTTYPE=gpt"},
		{sample: "lvm-member.txt", typ: "LVM2_member", has: true, str: "TYPE=LVM2_member USAGE=raid"},
		{sample: "raid-member.txt", typ: "linux_raid_member", has: true, str: "TYPE=linux_raid_member USAGE=raid"},
		{sample: "swap.txt", typ: "swap", has: true, str: "TYPE=swap USAGE=other"},
		// An empty partition: only its entry in the parent's table.
		{sample: "empty-partition.txt", partEntry: true, has: false, str: "none"},
	}
	for _, tc := range tests {
		t.Run(tc.sample, func(t *testing.T) {
			s, err := ParseBlkidExport(readSample(t, "blkid/"+tc.sample))
			if err != nil {
				t.Fatal(err)
			}
			if s.Type != tc.typ || s.PTType != tc.ptType || s.PartEntry != tc.partEntry {
				t.Errorf("got Type=%q PTType=%q PartEntry=%v", s.Type, s.PTType, s.PartEntry)
			}
			if s.HasSignature() != tc.has {
				t.Errorf("HasSignature = %v, want %v", s.HasSignature(), tc.has)
			}
			if s.String() != tc.str {
				t.Errorf("String = %q, want %q", s.String(), tc.str)
			}
		})
	}
}

func TestParseBlkidExportDetails(t *testing.T) {
	s, err := ParseBlkidExport(readSample(t, "blkid/ext4-partition.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Values["LABEL"]; got != "my data" {
		t.Errorf("LABEL = %q, want the unescaped %q", got, "my data")
	}
	if got := s.Values["PART_ENTRY_DISK"]; got != "252:32" {
		t.Errorf("PART_ENTRY_DISK = %q", got)
	}

	// Unknown keys count as a signature: fail closed.
	s, err = ParseBlkidExport([]byte("DEVNAME=/dev/x\nSOMETHING_NEW=1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasSignature() || s.String() != "SOMETHING_NEW=1" {
		t.Errorf("unknown key: HasSignature=%v String=%q", s.HasSignature(), s.String())
	}

	if s, err := ParseBlkidExport(nil); err != nil || s.HasSignature() {
		t.Errorf("empty output: %+v, %v", s, err)
	}
	if _, err := ParseBlkidExport([]byte("DEVNAME=/dev/x\ngarbage\n")); err == nil {
		t.Error("a line without = was accepted")
	}
}

func TestBlkidProber(t *testing.T) {
	ctx := context.Background()
	r := newFakeRunner().
		on("blkid -p -o export /dev/vdc", string(readSample(t, "blkid/gpt-disk.txt")), nil).
		on("blkid -p -o export /dev/amb", "DEVNAME=/dev/amb\n", exitErr("blkid", 8, "")).
		on("blkid -p -o export /dev/bad", "", exitErr("blkid", 4, "blkid: bad usage")).
		on("blkid -p -o export /dev/gone", "", exitErr("blkid", 2, ""))
	p := BlkidProber{Runner: r}

	s, err := p.Probe(ctx, "/dev/vdc")
	if err != nil || s.PTType != "gpt" || !s.HasSignature() {
		t.Errorf("/dev/vdc: %+v, %v", s, err)
	}
	// Exit status 2: nothing found, not an error.
	s, err = p.Probe(ctx, "/dev/gone")
	if err != nil || s.HasSignature() {
		t.Errorf("exit 2: %+v, %v", s, err)
	}
	// Exit status 8: ambivalent, reported as a signature.
	s, err = p.Probe(ctx, "/dev/amb")
	if err != nil || !s.Ambivalent || !s.HasSignature() || s.String() != "ambivalent" {
		t.Errorf("exit 8: %+v, %v", s, err)
	}
	_, err = p.Probe(ctx, "/dev/bad")
	if code, ok := ExitCode(err); !ok || code != 4 || !strings.Contains(err.Error(), "bad usage") {
		t.Errorf("exit 4: %v", err)
	}
	_, err = BlkidProber{Runner: newFakeRunner().on("blkid -p -o export /dev/x", "", errors.New("no such file"))}.Probe(ctx, "/dev/x")
	if err == nil {
		t.Error("runner error swallowed")
	}
	want := []string{"blkid -p -o export /dev/vdc", "blkid -p -o export /dev/gone", "blkid -p -o export /dev/amb", "blkid -p -o export /dev/bad"}
	if got := r.Calls(); !reflect.DeepEqual(got, want) {
		t.Errorf("calls = %q", got)
	}
}
