package volumename_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/pkg/volumename"
)

// The PV name is made as upstream's makeVolumeName did, template or not:
// these are upstream's cases.
func TestPVNameIsUpstreams(t *testing.T) {
	for _, tc := range []struct {
		prefix     string
		uuidLength int
		uid        types.UID
		want       string
	}{
		{"pvc", -1, testUID, "pvc-" + testUID},
		{"vol", 8, testUID, "vol-0b6d5fa4"},
		// Dashes are stripped before the UID is cut.
		{"vol", 12, testUID, "vol-0b6d5fa454c3"},
		{"vol", 32, testUID, "vol-0b6d5fa454c34ea59b3e1c2d3e4f5a6b"},
		// Any negative length keeps the whole UID, dashes and all.
		{"pvc", -5, testUID, "pvc-" + testUID},
		{"fast.ssd", -1, "abc", "fast.ssd-abc"},
	} {
		for _, tmpl := range []string{"", "{{.Namespace}}-{{.Name}}-{{.UIDShort}}"} {
			n, err := volumename.New(volumename.Options{Prefix: tc.prefix, UUIDLength: tc.uuidLength, Template: tmpl, MaxLength: 63})
			if err != nil {
				t.Fatal(err)
			}
			got, err := n.PVName(tc.uid)
			if err != nil || got != tc.want {
				t.Errorf("prefix %q, length %d, template %q: PVName(%q) = %q, %v; want %q", tc.prefix, tc.uuidLength, tmpl, tc.uid, got, err, tc.want)
			}
		}
	}
}

func TestPVNameLongerThanTheUIDIsAnError(t *testing.T) {
	n, err := volumename.New(volumename.Options{Prefix: "vol", UUIDLength: 33})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := n.PVName(testUID); err == nil {
		t.Fatalf("PVName = %q, want an error: the UID has 32 hex digits", got)
	}
}

func TestNewNeedsAPrefix(t *testing.T) {
	for _, tmpl := range []string{"", "{{.UID}}"} {
		if _, err := volumename.New(volumename.Options{UUIDLength: -1, Template: tmpl, MaxLength: 63}); err == nil {
			t.Errorf("template %q: accepted without a prefix", tmpl)
		}
	}
}

func TestWithoutATemplateThereIsNoCurrentSpec(t *testing.T) {
	// MaxLength only bounds a template's names: unchecked without one.
	n, err := volumename.New(volumename.Options{Prefix: "pvc", UUIDLength: -1, MaxLength: 0})
	if err != nil {
		t.Fatal(err)
	}
	if spec := n.Current(); spec != nil {
		t.Fatalf("Current() = %+v, want nil: the driver's name is the PV name", spec)
	}
}

func TestCurrentIsTheSpecOfTheOptions(t *testing.T) {
	n, err := volumename.New(volumename.Options{Prefix: "pvc", UUIDLength: 8, Template: "{{.Prefix}}-{{.UID}}", MaxLength: 40})
	if err != nil {
		t.Fatal(err)
	}
	spec := n.Current()
	if spec == nil || spec.Template != "{{.Prefix}}-{{.UID}}" || spec.Prefix != "pvc" || spec.MaxLength != 40 {
		t.Fatalf("Current() = %+v", spec)
	}
	if got, want := nameOf(t, spec, testClaim()), "pvc-"+testUID; got != want {
		t.Errorf("name %q, want %q", got, want)
	}
}

func TestMaxLengthIsAtLeast32(t *testing.T) {
	for maxLength, ok := range map[int]bool{-1: false, 0: false, 31: false, volumename.MinMaxLength: true, 63: true, 1 << 20: true} {
		_, err := volumename.New(volumename.Options{Prefix: "pvc", UUIDLength: -1, Template: "{{.UID}}", MaxLength: maxLength})
		if (err == nil) != ok {
			t.Errorf("MaxLength %d: err = %v, want accepted %v", maxLength, err, ok)
		}
	}
	if volumename.MinMaxLength != 32 {
		t.Errorf("MinMaxLength = %d, the documented minimum is 32", volumename.MinMaxLength)
	}
}

func TestAPrefixThatIsNoDNSSubdomainIsRefusedWithATemplate(t *testing.T) {
	for _, prefix := range []string{"PVC", "my_pvc", "-pvc", "pvc.", strings.Repeat("p", 254)} {
		if _, err := volumename.New(volumename.Options{Prefix: prefix, UUIDLength: -1, Template: "{{.UID}}", MaxLength: 63}); err == nil {
			t.Errorf("prefix %q accepted", prefix)
		}
	}
}

// shortened is the rule a name longer than maxLength follows: its first
// maxLength-17 characters without trailing dashes, a dash, and 16 hex
// digits of the SHA-256 of the whole name.
func shortened(name string, maxLength int) string {
	sum := sha256.Sum256([]byte(name))
	return strings.TrimRight(name[:maxLength-17], "-") + "-" + hex.EncodeToString(sum[:])[:16]
}

func TestNamesLongerThanMaxLengthEndWithAHashOfTheWholeName(t *testing.T) {
	tmpl := "{{.Namespace}}-{{.Name}}-{{.UIDShort}}"
	spec := specOf(t, tmpl, 32)
	for _, tc := range []struct {
		what, namespace, name, want string
	}{
		{"exactly MaxLength is kept", "team-a", "database-primary", "team-a-database-primary-" + testUIDShort},
		{"one more is cut", "team-a", "database-primary1", shortened("team-a-database-primary1-"+testUIDShort, 32)},
		{"dashes before the hash are one", "analytics-prod", "warehouse", shortened("analytics-prod-warehouse-"+testUIDShort, 32)},
		{"the hash is of the name with its characters replaced", "team-a", "db.primary.replica", shortened("team-a-db-primary-replica-"+testUIDShort, 32)},
	} {
		t.Run(tc.what, func(t *testing.T) {
			got := nameOf(t, spec, claimOf(tc.namespace, tc.name, testUID))
			if got != tc.want {
				t.Errorf("name %q, want %q", got, tc.want)
			}
			if len(got) > 32 {
				t.Errorf("name %q is longer than 32", got)
			}
		})
	}
	// The cut falls just after "analytics-prod-": that dash and the one
	// before the hash are one.
	if got := nameOf(t, spec, claimOf("analytics-prod", "warehouse", testUID)); !strings.HasPrefix(got, "analytics-prod-") || strings.Contains(got, "--") || len(got) != len("analytics-prod-")+16 {
		t.Errorf("name %q, want analytics-prod-<16 hex digits>", got)
	}
}

// Claims whose names share their start still get names of their own when
// cut: the hash is of the whole name.
func TestCutNamesOfClaimsSharingTheirStartDiffer(t *testing.T) {
	spec := specOf(t, "{{.Namespace}}-{{.Name}}-{{.UIDShort}}", volumename.DefaultMaxLength)
	long := strings.Repeat("x", 60)
	names := map[string]string{}
	for _, c := range []struct {
		namespace, name string
		uid             types.UID
	}{
		{"team-a", long + "-1", testUID},
		{"team-a", long + "-2", testUID},
		{"team-a", long + "-1", "1b6d5fa4-54c3-4ea5-9b3e-1c2d3e4f5a6b"},
		{"team-b", long + "-1", testUID},
	} {
		got := nameOf(t, spec, claimOf(c.namespace, c.name, c.uid))
		if len(got) != volumename.DefaultMaxLength {
			t.Errorf("%s/%s: name %q of length %d, want %d", c.namespace, c.name, got, len(got), volumename.DefaultMaxLength)
		}
		key := c.namespace + "/" + c.name + "/" + string(c.uid)
		for other, name := range names {
			if name == got {
				t.Errorf("%s and %s both get %q", key, other, got)
			}
		}
		names[key] = got
	}
}

func TestNamingIsDeterministic(t *testing.T) {
	for _, maxLength := range []int{32, 63} {
		a := specOf(t, "{{.Namespace}}-{{.Name}}-{{.UIDShort}}", maxLength)
		b := specOf(t, "{{.Namespace}}-{{.Name}}-{{.UIDShort}}", maxLength)
		claim := claimOf("team-a", "a-claim-with-a-rather-long-name", testUID)
		if x, y, z := nameOf(t, a, claim), nameOf(t, a, claim), nameOf(t, b, claim); x != y || x != z {
			t.Errorf("MaxLength %d: names %q, %q, %q of one claim", maxLength, x, y, z)
		}
	}
}

func TestAClaimWithoutAUIDHasNoName(t *testing.T) {
	spec := specOf(t, "{{.Namespace}}-{{.Name}}-{{.UIDShort}}", 63)
	if got, err := spec.Name(claimOf("team-a", "data", "")); err == nil {
		t.Fatalf("name %q, want an error", got)
	}
}

// A Spec must come from New or ParseRecord: one made by hand was never
// checked, and names nothing.
func TestASpecThatWasNotCheckedNamesNothing(t *testing.T) {
	spec := &volumename.Spec{Template: "{{.UID}}", Prefix: "pvc", MaxLength: 63}
	if got, err := spec.Name(testClaim()); err == nil {
		t.Fatalf("name %q, want an error", got)
	}
}

// The record's JSON field names are part of its format: claims keep it.
func TestRecordFormat(t *testing.T) {
	spec := specOf(t, "{{.Namespace}}-{{.Name}}-{{.UIDShort}}", 63)
	want := `{"template":"{{.Namespace}}-{{.Name}}-{{.UIDShort}}","prefix":"pvc","maxLength":63}`
	if got := spec.Record(); got != want {
		t.Errorf("Record() = %s, want %s", got, want)
	}
}

func TestARecordNamesAsItsSpecDid(t *testing.T) {
	for _, tc := range []struct {
		tmpl      string
		maxLength int
	}{
		{"{{.Namespace}}-{{.Name}}-{{.UIDShort}}", 63},
		{"{{.Namespace}}-{{.Name}}-{{.UIDShort}}", 32},
		{"{{.Prefix}}-{{.UID}}", 40},
		{"x-{{.UID}}", 1000},
	} {
		spec := specOf(t, tc.tmpl, tc.maxLength)
		parsed, err := volumename.ParseRecord(spec.Record())
		if err != nil {
			t.Fatalf("ParseRecord(%s): %v", spec.Record(), err)
		}
		if parsed.Template != spec.Template || parsed.Prefix != spec.Prefix || parsed.MaxLength != spec.MaxLength {
			t.Errorf("ParseRecord(%s) = %+v", spec.Record(), parsed)
		}
		for _, claim := range []*v1.PersistentVolumeClaim{testClaim(), claimOf("analytics-production", "warehouse.primary", "7f000000-0000-4000-8000-000000000001")} {
			if got, want := nameOf(t, parsed, claim), nameOf(t, spec, claim); got != want {
				t.Errorf("record %s: name %q, the spec gave %q", spec.Record(), got, want)
			}
		}
	}
}

// The spec a claim's provisioning began with keeps naming it after the
// template changed: its name is CreateVolume's idempotency key.
func TestARecordedSpecKeepsItsNameAfterTheTemplateChanged(t *testing.T) {
	record := specOf(t, "{{.Namespace}}-{{.Name}}-{{.UIDShort}}", 63).Record()
	now := specOf(t, "{{.Prefix}}-{{.UID}}", 63)
	recorded, err := volumename.ParseRecord(record)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := nameOf(t, recorded, testClaim()), "team-a-data-"+testUIDShort; got != want {
		t.Errorf("recorded spec names %q, want %q", got, want)
	}
	if got := nameOf(t, now, testClaim()); got != "pvc-"+testUID {
		t.Errorf("current spec names %q", got)
	}
}

// Anyone who may edit a claim may edit its record: a record is checked as
// the flags are.
func TestRecordsThatAreNotValidSpecsAreRefused(t *testing.T) {
	for name, record := range map[string]string{
		"empty":              "",
		"not JSON":           "pvc-" + testUID,
		"null":               "null",
		"an array":           `["{{.UID}}","pvc",63]`,
		"unknown field":      `{"template":"{{.UID}}","prefix":"pvc","maxLength":63,"name":"x"}`,
		"no prefix":          `{"template":"{{.UID}}","maxLength":63}`,
		"empty prefix":       `{"template":"{{.UID}}","prefix":"","maxLength":63}`,
		"invalid prefix":     `{"template":"{{.UID}}","prefix":"PVC","maxLength":63}`,
		"no max length":      `{"template":"{{.UID}}","prefix":"pvc"}`,
		"short max length":   `{"template":"{{.UID}}","prefix":"pvc","maxLength":31}`,
		"max length text":    `{"template":"{{.UID}}","prefix":"pvc","maxLength":"63"}`,
		"no template":        `{"prefix":"pvc","maxLength":63}`,
		"not unique":         `{"template":"{{.Namespace}}-{{.Name}}","prefix":"pvc","maxLength":63}`,
		"a fixed name":       `{"template":"pvc-0b6d5fa4-54c3-4ea5-9b3e-1c2d3e4f5a6b","prefix":"pvc","maxLength":63}`,
		"a function":         `{"template":"{{printf \"%s\" .UID}}","prefix":"pvc","maxLength":63}`,
		"starting with dash": `{"template":"-{{.UID}}","prefix":"pvc","maxLength":63}`,
		"text after it":      `{"template":"{{.UID}}","prefix":"pvc","maxLength":63} {}`,
		"fields reordered":   `{"prefix":"pvc","template":"{{.UID}}","maxLength":63}`,
		"a field miscased":   `{"Template":"{{.UID}}","prefix":"pvc","maxLength":63}`,
	} {
		t.Run(name, func(t *testing.T) {
			if spec, err := volumename.ParseRecord(record); err == nil {
				t.Fatalf("accepted: %+v", spec)
			}
		})
	}
}
