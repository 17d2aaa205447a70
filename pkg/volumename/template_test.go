package volumename_test

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/pkg/volumename"
)

const (
	testUID      = "0b6d5fa4-54c3-4ea5-9b3e-1c2d3e4f5a6b"
	testUIDShort = "0b6d5fa4"
)

func claimOf(namespace, name string, uid types.UID) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: uid}}
}

// testClaim is the claim most tests name the volume of.
func testClaim() *v1.PersistentVolumeClaim { return claimOf("team-a", "data", testUID) }

// specOf is the current spec of a namer made with tmpl and maxLength, the
// prefix "pvc".
func specOf(t *testing.T, tmpl string, maxLength int) *volumename.Spec {
	t.Helper()
	n, err := volumename.New(volumename.Options{Prefix: "pvc", UUIDLength: -1, Template: tmpl, MaxLength: maxLength})
	if err != nil {
		t.Fatalf("template %q refused: %v", tmpl, err)
	}
	if n.Current() == nil {
		t.Fatalf("template %q: no current spec", tmpl)
	}
	return n.Current()
}

// nameOf is the name spec gives claim; it must give one.
func nameOf(t *testing.T, spec *volumename.Spec, claim *v1.PersistentVolumeClaim) string {
	t.Helper()
	name, err := spec.Name(claim)
	if err != nil {
		t.Fatalf("template %q, claim %s/%s (%s): %v", spec.Template, claim.Namespace, claim.Name, claim.UID, err)
	}
	return name
}

func TestTemplatesOfTextAndPlainFieldsAreFilledIn(t *testing.T) {
	for _, tc := range []struct {
		tmpl, want string
	}{
		{"{{.UID}}", testUID},
		{"{{.Prefix}}-{{.UID}}", "pvc-" + testUID},
		{"{{.Namespace}}-{{.Name}}-{{.UIDShort}}", "team-a-data-" + testUIDShort},
		{"{{.UIDShort}}-{{.Name}}-{{.Namespace}}", testUIDShort + "-data-team-a"},
		{"vol-{{.Namespace}}-{{.Name}}-{{.UIDShort}}-x", "vol-team-a-data-" + testUIDShort + "-x"},
		{"{{.Namespace}}{{.Name}}{{.UIDShort}}", "team-adata" + testUIDShort},
		{"{{ .Namespace }}-{{ .Name }}-{{ .UIDShort }}", "team-a-data-" + testUIDShort},
		{"{{.UIDShort}}-{{.UIDShort}}-{{.Namespace}}-{{.Name}}", testUIDShort + "-" + testUIDShort + "-team-a-data"},
		{"0-{{.UID}}-9", "0-" + testUID + "-9"},
	} {
		t.Run(tc.tmpl, func(t *testing.T) {
			if got := nameOf(t, specOf(t, tc.tmpl, 100), testClaim()); got != tc.want {
				t.Errorf("name %q, want %q", got, tc.want)
			}
		})
	}
}

// {{.UIDShort}} is the first 8 hex digits of the UID, its dashes left
// out; a UID shorter than that is kept whole.
func TestUIDShortIsTheFirstEightHexDigits(t *testing.T) {
	spec := specOf(t, "{{.Namespace}}-{{.Name}}-{{.UIDShort}}", volumename.DefaultMaxLength)
	for uid, want := range map[types.UID]string{
		testUID:              "team-a-data-0b6d5fa4",
		"0b6d-5fa4":          "team-a-data-0b6d5fa4",
		"12ab":               "team-a-data-12ab",
		"-1-2-3-4-5-6-7-8-9": "team-a-data-12345678",
	} {
		if got := nameOf(t, spec, claimOf("team-a", "data", uid)); got != want {
			t.Errorf("UID %q: name %q, want %q", uid, got, want)
		}
	}
}

// A template must hold the whole UID, or the short UID with both the
// namespace and the name: anything less can give two claims one name, and
// so one backend volume.
func TestTemplatesThatCouldGiveTwoClaimsOneNameAreRefused(t *testing.T) {
	for _, tmpl := range []string{
		"{{.Name}}",
		"{{.Namespace}}-{{.Name}}",
		"{{.UIDShort}}",
		"{{.Namespace}}-{{.UIDShort}}",
		"{{.Name}}-{{.UIDShort}}",
		"{{.Prefix}}-{{.UIDShort}}",
		"{{.Prefix}}-{{.Namespace}}-{{.Name}}",
		"pvc-0b6d5fa4-54c3-4ea5-9b3e-1c2d3e4f5a6b",
		"volume",
	} {
		t.Run(tmpl, func(t *testing.T) {
			_, err := volumename.New(volumename.Options{Prefix: "pvc", UUIDLength: -1, Template: tmpl, MaxLength: 63})
			if err == nil || !strings.Contains(err.Error(), "could give two claims the same name") {
				t.Fatalf("err = %v, want the template refused as not unique", err)
			}
		})
	}
}

// Only literal text of [a-z0-9-] and the actions {{.Namespace}},
// {{.Name}}, {{.UID}}, {{.UIDShort}} and {{.Prefix}} are allowed: a
// function or a condition could hide the UID.
func TestTemplatesOfAnythingButTextAndPlainFieldsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		tmpl string
		want string // in the error
	}{
		// "" is no template at all: the driver's name is the PV name.
		{"  \t\n", "empty"},
		{"Vol-{{.UID}}", `not "V"`},
		{"vol_{{.UID}}", `not "_"`},
		{"vol.{{.UID}}", `not "."`},
		{"vol {{.UID}}", `not " "`},
		{"{{.UID}}\n", `not "\n"`},
		{"{{.UID}}/x", `not "/"`},
		{"vol-{{.UID}}-é", "may hold only lower-case letters, digits and '-'"},
		{"{{.Uid}}", "is not one of"},
		{"{{.Labels}}", "is not one of"},
		{"{{.UID.Short}}", "is not one of"},
		{"{{.}}", "is not one of"},
		{"{{$.UID}}", "is not one of"},
		{`{{"abc"}}-{{.UID}}`, "is not one of"},
		{"{{(.UID)}}", "is not one of"},
		{"{{$x := .UID}}{{$x}}", "is not one of"},
		{"{{.UID | printf \"%s\"}}", "printf"},
		{"{{printf \"%.8s\" .UID}}-{{.Namespace}}-{{.Name}}", "printf"},
		{"{{slice .UID 0 8}}-{{.Namespace}}-{{.Name}}", "slice"},
		{"{{if .UID}}{{.UID}}{{end}}", "is not allowed"},
		{"{{range .Name}}{{end}}{{.UID}}", "is not allowed"},
		{"{{with .UID}}{{.}}{{end}}", "is not allowed"},
		{`{{template "x"}}{{.UID}}`, "is not allowed"},
		{`{{define "x"}}{{.UID}}{{end}}{{.UID}}`, "must not define templates"},
		{"{{.UID", "volume name template"},
		{"{{.UID}}{{end}}", "volume name template"},
	} {
		t.Run(tc.tmpl, func(t *testing.T) {
			_, err := volumename.New(volumename.Options{Prefix: "pvc", UUIDLength: -1, Template: tc.tmpl, MaxLength: 63})
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is not one line", err)
			}
		})
	}
}

// A name must start and end with a letter or a digit; a template whose
// names cannot is refused when it is read, not when a claim is named.
func TestTemplatesOfNamesStartingOrEndingWithADashAreRefused(t *testing.T) {
	for _, tmpl := range []string{
		"-{{.UID}}",
		"{{.UID}}-",
		"--{{.Namespace}}-{{.Name}}-{{.UIDShort}}",
		"{{.Namespace}}-{{.Name}}-{{.UIDShort}}--",
		"-",
	} {
		t.Run(tmpl, func(t *testing.T) {
			_, err := volumename.New(volumename.Options{Prefix: "pvc", UUIDLength: -1, Template: tmpl, MaxLength: 63})
			if err == nil {
				t.Fatal("accepted")
			}
			if tmpl != "-" && !strings.Contains(err.Error(), "must start and end with a letter or digit") {
				t.Errorf("error %q does not say why", err)
			}
		})
	}
}

// What a driver may refuse in a name (upper case, '.', '_' and the rest)
// becomes '-'; the template's own text cannot hold it, but a claim's name
// (a DNS subdomain) can hold '.', and a prefix can too.
func TestCharactersOutsideLowerCaseLettersDigitsAndDashBecomeDashes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		claim *v1.PersistentVolumeClaim
		tmpl  string
		want  string
	}{
		{"dots of a claim name", claimOf("team-a", "db.primary.0", testUID), "{{.Namespace}}-{{.Name}}-{{.UIDShort}}", "team-a-db-primary-0-" + testUIDShort},
		{"other characters", claimOf("team-a", "a_b:C~d", testUID), "{{.Namespace}}-{{.Name}}-{{.UIDShort}}", "team-a-a-b---d-" + testUIDShort},
		{"a character of several bytes", claimOf("team-a", "日x", testUID), "{{.Namespace}}-{{.Name}}-{{.UIDShort}}", "team-a--x-" + testUIDShort},
		{"upper case of a UID", claimOf("team-a", "data", "0B6D5FA4-54c3"), "{{.Name}}-{{.UID}}", "data-0-6-5--4-54c3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := nameOf(t, specOf(t, tc.tmpl, 63), tc.claim); got != tc.want {
				t.Errorf("name %q, want %q", got, tc.want)
			}
		})
	}

	n, err := volumename.New(volumename.Options{Prefix: "fast.ssd", UUIDLength: -1, Template: "{{.Prefix}}-{{.UID}}", MaxLength: 63})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := nameOf(t, n.Current(), testClaim()), "fast-ssd-"+testUID; got != want {
		t.Errorf("prefix with a dot: name %q, want %q", got, want)
	}
}
