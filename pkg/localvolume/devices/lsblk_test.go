package devices

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseLsblkSamples(t *testing.T) {
	tests := []struct {
		sample string
		knames []string          // every device, in order
		check  map[string]Device // selected devices, compared field by field
	}{
		{
			sample: "vm-virtio.json",
			knames: []string{"/dev/sr0", "/dev/vda", "/dev/vda1", "/dev/vda2", "/dev/vda3", "/dev/vdb", "/dev/vdc", "/dev/vdc1", "/dev/vdc2"},
			check: map[string]Device{
				"/dev/sr0": {Name: "/dev/sr0", KName: "/dev/sr0", Path: "/dev/sr0", Type: "rom", SizeBytes: 1073741312,
					Rotational: true, Removable: true, Model: "QEMU DVD-ROM", Vendor: "QEMU", Serial: "QM00003", FSType: "iso9660", State: "running"},
				"/dev/vda": {Name: "/dev/vda", KName: "/dev/vda", Path: "/dev/vda", Type: "disk", SizeBytes: 42949672960,
					Rotational: true, Vendor: "0x1af4", Serial: "os-disk-1", Children: []string{"/dev/vda1", "/dev/vda2", "/dev/vda3"}},
				"/dev/vda2": {Name: "/dev/vda2", KName: "/dev/vda2", Path: "/dev/vda2", Type: "part", SizeBytes: 536870912,
					Rotational: true, FSType: "vfat", MountPoint: "/boot/efi", Parent: "/dev/vda"},
				"/dev/vdb": {Name: "/dev/vdb", KName: "/dev/vdb", Path: "/dev/vdb", Type: "disk", SizeBytes: 107374182400,
					Rotational: true, Vendor: "0x1af4", Serial: "data-disk-1"},
			},
		},
		{
			sample: "nvme.json",
			knames: []string{"/dev/nvme0n1", "/dev/nvme1n1", "/dev/nvme1n1p1", "/dev/nvme1n1p2"},
			check: map[string]Device{
				"/dev/nvme0n1": {Name: "/dev/nvme0n1", KName: "/dev/nvme0n1", Path: "/dev/nvme0n1", Type: "disk", SizeBytes: 1000204886016,
					Model: "Samsung SSD 980 PRO 1TB", Serial: "S5GXNF0R123456A", State: "live"},
				"/dev/nvme1n1p2": {Name: "/dev/nvme1n1p2", KName: "/dev/nvme1n1p2", Path: "/dev/nvme1n1p2", Type: "part",
					SizeBytes: 1920376942592, Parent: "/dev/nvme1n1"},
			},
		},
		{
			sample: "loop.json",
			knames: []string{"/dev/loop0", "/dev/loop1", "/dev/loop7"},
			check: map[string]Device{
				"/dev/loop0": {Name: "/dev/loop0", KName: "/dev/loop0", Path: "/dev/loop0", Type: "loop", SizeBytes: 66871296,
					ReadOnly: true, FSType: "squashfs", MountPoint: "/snap/core20/2015"},
				"/dev/loop7": {Name: "/dev/loop7", KName: "/dev/loop7", Path: "/dev/loop7", Type: "loop"},
			},
		},
		{
			// lsblk repeats the LV under both PVs and the multipath map
			// under both paths: each device comes out once, and every
			// parent lists it as a child.
			sample: "device-mapper.json",
			knames: []string{"/dev/sda", "/dev/sda1", "/dev/sdb", "/dev/dm-0", "/dev/sdc", "/dev/sdd", "/dev/dm-1", "/dev/sde", "/dev/sdf", "/dev/dm-2"},
			check: map[string]Device{
				"/dev/sdb": {Name: "/dev/sdb", KName: "/dev/sdb", Path: "/dev/sdb", Type: "disk", SizeBytes: 1099511627776, Rotational: true,
					Model: "ST1000NM0045", Vendor: "SEAGATE", Serial: "ZBS0A1B2", FSType: "LVM2_member", State: "running", Children: []string{"/dev/dm-0"}},
				"/dev/sdc": {Name: "/dev/sdc", KName: "/dev/sdc", Path: "/dev/sdc", Type: "disk", SizeBytes: 1099511627776, Rotational: true,
					Model: "ST1000NM0045", Vendor: "SEAGATE", Serial: "ZBS0C3D4", FSType: "LVM2_member", State: "running", Children: []string{"/dev/dm-0"}},
				"/dev/dm-0": {Name: "/dev/mapper/data-vol", KName: "/dev/dm-0", Path: "/dev/mapper/data-vol", Type: "lvm", SizeBytes: 2199014866944,
					Rotational: true, FSType: "xfs", MountPoint: "/var/lib/data", Parent: "/dev/sdb", State: "running"},
				"/dev/dm-1": {Name: "/dev/mapper/mpatha", KName: "/dev/dm-1", Path: "/dev/mapper/mpatha", Type: "mpath", SizeBytes: 536870912000,
					Rotational: true, Parent: "/dev/sdd", State: "running"},
				"/dev/dm-2": {Name: "/dev/mapper/luks-3f1c", KName: "/dev/dm-2", Path: "/dev/mapper/luks-3f1c", Type: "crypt", SizeBytes: 268418678784,
					Rotational: true, Parent: "/dev/sdf", State: "suspended"},
			},
		},
		{
			// util-linux 2.32: numbers and flags as strings, no PATH.
			sample: "old-util-linux-2.32.json",
			knames: []string{"/dev/sda", "/dev/sda1", "/dev/sda2", "/dev/sdb", "/dev/sdc"},
			check: map[string]Device{
				"/dev/sda2": {Name: "/dev/sda2", KName: "/dev/sda2", Path: "/dev/sda2", Type: "part", SizeBytes: 238982619136,
					FSType: "xfs", MountPoint: "/", Parent: "/dev/sda"},
				"/dev/sdb": {Name: "/dev/sdb", KName: "/dev/sdb", Path: "/dev/sdb", Type: "disk", SizeBytes: 4000787030016, Rotational: true,
					Model: "ST4000NM0035-1V4", Vendor: "ATA", Serial: "ZC1ABCDE", State: "running"},
				"/dev/sdc": {Name: "/dev/sdc", KName: "/dev/sdc", Path: "/dev/sdc", Type: "disk", SizeBytes: 16008609792, Rotational: true,
					ReadOnly: true, Removable: true, Model: "Cruzer Blade", Vendor: "SanDisk", Serial: "4C530001231", State: "running"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.sample, func(t *testing.T) {
			devs, err := ParseLsblk(readSample(t, "lsblk/"+tc.sample))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			byK := map[string]Device{}
			for _, d := range devs {
				got = append(got, d.KName)
				byK[d.KName] = d
			}
			if !reflect.DeepEqual(got, tc.knames) {
				t.Fatalf("devices = %v, want %v", got, tc.knames)
			}
			for k, want := range tc.check {
				if !reflect.DeepEqual(byK[k], want) {
					t.Errorf("%s:\n got %+v\nwant %+v", k, byK[k], want)
				}
			}
		})
	}
}

func TestParseLsblkValueForms(t *testing.T) {
	tests := []struct {
		name  string
		attrs string
		want  Device
		err   string
	}{
		{name: "numbers and booleans", attrs: `"size": 512, "rota": true, "ro": false, "rm": true`,
			want: Device{SizeBytes: 512, Rotational: true, Removable: true}},
		{name: "strings", attrs: `"size": "512", "rota": "1", "ro": "0", "rm": "1"`,
			want: Device{SizeBytes: 512, Rotational: true, Removable: true}},
		{name: "nulls", attrs: `"size": null, "rota": null, "ro": null, "rm": null, "model": null`},
		{name: "empty strings", attrs: `"size": "", "rota": "", "ro": ""`},
		{name: "numeric flags", attrs: `"rota": 1, "ro": 0`, want: Device{Rotational: true}},
		{name: "bad flag", attrs: `"ro": "yes"`, err: "not a boolean"},
		{name: "bad size", attrs: `"size": "10G"`, err: "not an integer"},
		{name: "float size", attrs: `"size": 1.5`, err: "not an integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := fmt.Sprintf(`{"blockdevices": [{"name": "/dev/x", "kname": "/dev/x", "path": "/dev/x", "type": "disk", %s}]}`, tc.attrs)
			devs, err := ParseLsblk([]byte(in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Name, tc.want.KName, tc.want.Path, tc.want.Type = "/dev/x", "/dev/x", "/dev/x", "disk"
			if !reflect.DeepEqual(devs, []Device{tc.want}) {
				t.Fatalf("got %+v, want %+v", devs, tc.want)
			}
		})
	}
}

func TestParseLsblkErrors(t *testing.T) {
	for _, in := range []string{``, `not json`, `{}`, `{"blockdevices": {}}`, `[]`} {
		if _, err := ParseLsblk([]byte(in)); err == nil {
			t.Errorf("ParseLsblk(%q) succeeded", in)
		}
	}
	devs, err := ParseLsblk([]byte(`{"blockdevices": []}`))
	if err != nil || len(devs) != 0 {
		t.Errorf("empty list: %v, %v", devs, err)
	}
}

func TestListDevicesCommandLine(t *testing.T) {
	want := "lsblk --json --bytes --output NAME,KNAME,PATH,TYPE,SIZE,ROTA,RO,RM,MODEL,VENDOR,SERIAL,FSTYPE,MOUNTPOINT,PKNAME,STATE --paths"
	r := newFakeRunner().on(want, string(readSample(t, "lsblk/nvme.json")), nil)
	devs, err := ListDevices(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 4 {
		t.Errorf("got %d devices", len(devs))
	}
	if calls := r.Calls(); !reflect.DeepEqual(calls, []string{want}) {
		t.Errorf("calls = %q", calls)
	}
	// The argument list is fresh on every call.
	a := LsblkArgs()
	a[0] = "--changed"
	if LsblkArgs()[0] != "--json" {
		t.Error("LsblkArgs shares its slice")
	}

	r = newFakeRunner().on(want, "", exitErr("lsblk", 32, "lsblk: unknown column: PATH"))
	if _, err := ListDevices(context.Background(), r); err == nil || !strings.Contains(err.Error(), "unknown column") {
		t.Errorf("err = %v, want lsblk's stderr", err)
	}
}

// lsblk64 is lsblk output for 64 disks, half of them with two partitions.
func lsblk64() []byte {
	var b strings.Builder
	b.WriteString(`{"blockdevices": [`)
	dev := func(name, typ, pk string, size int64) string {
		return fmt.Sprintf(`{"name": "%[1]s", "kname": "%[1]s", "path": "%[1]s", "type": "%[2]s", "size": %[3]d, "rota": false, "ro": false, "rm": false, `+
			`"model": "SAMSUNG MZQL23T8HCLS-00A07", "vendor": null, "serial": "S64HNE0T%[3]d", "fstype": null, "mountpoint": null, "pkname": %[4]s, "state": "live"`,
			name, typ, size, pk)
	}
	n := 0
	for i := 0; n < 64; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		name := fmt.Sprintf("/dev/nvme%dn1", i)
		b.WriteString(dev(name, "disk", "null", 3840755982336))
		n++
		if i%2 == 1 && n+2 <= 64 {
			b.WriteString(`, "children": [`)
			b.WriteString(dev(name+"p1", "part", `"`+name+`"`, 1920377991168) + "},")
			b.WriteString(dev(name+"p2", "part", `"`+name+`"`, 1920376942592) + "}]")
			n += 2
		}
		b.WriteString("}")
	}
	b.WriteString("]}")
	return []byte(b.String())
}

func BenchmarkParseLsblk64(b *testing.B) {
	data := lsblk64()
	devs, err := ParseLsblk(data)
	if err != nil || len(devs) != 64 {
		b.Fatalf("%d devices, %v", len(devs), err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseLsblk(data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestJSONIntRange(t *testing.T) {
	var j jsonInt
	if err := j.UnmarshalJSON([]byte("9223372036854775807")); err != nil || j.v != 1<<63-1 {
		t.Errorf("max int64: %d, %v", j.v, err)
	}
	for _, bad := range []string{"9223372036854775808", "-1", `"1 "`, `"0x10"`} {
		if err := j.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
