package volumename_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"text/template"
	"text/template/parse"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/csi-protect/external-provisioner/pkg/volumename"
)

// The fuzz targets name claims as Kubernetes makes them: a namespace that
// is a DNS label, a name that is a DNS subdomain, a UUID. They are derived
// from the fuzzer's strings so that any input is such a claim.

const labelChars = "abcdefghijklmnopqrstuvwxyz0123456789-"

// fuzzLabel is a DNS-1123 label made of s.
func fuzzLabel(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < validation.DNS1123LabelMaxLength; i++ {
		b.WriteByte(labelChars[int(s[i])%len(labelChars)])
	}
	if label := strings.Trim(b.String(), "-"); label != "" {
		return label
	}
	return "a"
}

// fuzzSubdomain is a DNS-1123 subdomain made of s, which may hold dots.
func fuzzSubdomain(s string) string {
	const chars = labelChars + "."
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < validation.DNS1123SubdomainMaxLength; i++ {
		b.WriteByte(chars[int(s[i])%len(chars)])
	}
	if name := b.String(); len(validation.IsDNS1123Subdomain(name)) == 0 {
		return name
	}
	return fuzzLabel(s)
}

// fuzzUID is a version 4 UUID, as the API server gives, made of b.
func fuzzUID(b []byte) types.UID {
	var u [16]byte
	copy(u[:], b)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]))
}

// usesUID tells whether an accepted template holds {{.UID}}.
func usesUID(t *testing.T, tmpl string) bool {
	trees, err := parse.Parse("t", tmpl, "", "", map[string]any{})
	if err != nil {
		t.Fatalf("accepted template %q does not parse: %v", tmpl, err)
	}
	for _, node := range trees["t"].Root.Nodes {
		if a, ok := node.(*parse.ActionNode); ok && a.Pipe.Cmds[0].Args[0].String() == ".UID" {
			return true
		}
	}
	return false
}

// expectedName is the name the documentation promises: the template
// executed by Go's text/template, each character outside [a-z0-9-]
// replaced by '-', and a name longer than maxLength cut to its start, a
// '-' and 16 hex digits of the SHA-256 of the whole name.
func expectedName(t *testing.T, spec *volumename.Spec, claim *v1.PersistentVolumeClaim) string {
	tmpl, err := template.New("t").Option("missingkey=error").Parse(spec.Template)
	if err != nil {
		t.Fatalf("accepted template %q: text/template refuses it: %v", spec.Template, err)
	}
	compact := strings.ReplaceAll(string(claim.UID), "-", "")
	var b strings.Builder
	if err := tmpl.Execute(&b, map[string]string{
		"Namespace": claim.Namespace, "Name": claim.Name, "UID": string(claim.UID),
		"UIDShort": compact[:min(8, len(compact))], "Prefix": spec.Prefix,
	}); err != nil {
		t.Fatalf("accepted template %q: %v", spec.Template, err)
	}
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, b.String())
	if len(name) <= spec.MaxLength {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	hash := hex.EncodeToString(sum[:])[:16]
	if keep := strings.TrimRight(name[:spec.MaxLength-17], "-"); keep != "" {
		return keep + "-" + hash
	}
	return hash
}

// checkNames checks what every name of an accepted spec must be, for a
// few claims.
func checkNames(t *testing.T, spec *volumename.Spec, claims ...*v1.PersistentVolumeClaim) {
	t.Helper()
	parsed, err := volumename.ParseRecord(spec.Record())
	if err != nil {
		t.Fatalf("the record %s of an accepted spec is refused: %v", spec.Record(), err)
	}
	if utf8.ValidString(spec.Template) && parsed.Record() != spec.Record() {
		t.Fatalf("record %s read back as %s", spec.Record(), parsed.Record())
	}
	for _, claim := range claims {
		name, err := spec.Name(claim)
		if err != nil {
			t.Fatalf("template %q, claim %s/%s (%s): %v", spec.Template, claim.Namespace, claim.Name, claim.UID, err)
		}
		switch {
		case name == "":
			t.Fatalf("template %q: empty name", spec.Template)
		case len(name) > spec.MaxLength:
			t.Fatalf("template %q: name %q is longer than %d", spec.Template, name, spec.MaxLength)
		case strings.Trim(name, labelChars) != "":
			t.Fatalf("template %q: name %q holds characters outside [a-z0-9-]", spec.Template, name)
		case name[0] == '-' || name[len(name)-1] == '-':
			t.Fatalf("template %q: name %q starts or ends with '-'", spec.Template, name)
		}
		if again, err := spec.Name(claim); err != nil || again != name {
			t.Fatalf("template %q: named %q, then %q, %v", spec.Template, name, again, err)
		}
		if fromRecord, err := parsed.Name(claim); err != nil || fromRecord != name {
			t.Fatalf("template %q: named %q, by its record %q, %v", spec.Template, name, fromRecord, err)
		}
		if want := expectedName(t, spec, claim); name != want {
			t.Fatalf("template %q, claim %s/%s (%s): name %q, want %q", spec.Template, claim.Namespace, claim.Name, claim.UID, name, want)
		}
	}
}

// Any template and maximum length is refused or gives valid names, and so
// does any record; a template is accepted as a flag exactly when its
// record is.
func FuzzVolumeNameTemplate(f *testing.F) {
	uid := []byte{0x0b, 0x6d, 0x5f, 0xa4, 0x54, 0xc3, 0x4e, 0xa5, 0x9b, 0x3e, 0x1c, 0x2d, 0x3e, 0x4f, 0x5a, 0x6b}
	f.Add("{{.Namespace}}-{{.Name}}-{{.UIDShort}}", 63, "pvc", "team-a", "data", uid)
	f.Add("{{.Namespace}}-{{.Name}}-{{.UIDShort}}", 32, "pvc", "analytics-prod", "warehouse.primary.replica", uid)
	f.Add("{{.Prefix}}-{{.UID}}", 40, "fast.ssd", "default", "db", uid)
	f.Add("{{.UID}}", 32, "pvc", "n", "n", []byte{})
	f.Add("{{.UIDShort}}{{.Namespace}}{{.Name}}", 32, "p", "x", "y", uid)
	f.Add("vol-{{.UIDShort}}-{{.Name}}-{{.Namespace}}-0", 100, "pvc", "team-b", "logs", uid)
	f.Add(strings.Repeat("-", 20)+"{{.UID}}", 32, "pvc", "team-a", "data", uid)
	f.Add("{{/* readable */}}{{ .Namespace }}-{{ .Name }}-{{ .UIDShort }}", 63, "pvc", "team-a", "data", uid)
	f.Add("x- {{- .UID -}} \n", 63, "pvc", "team-a", "data", uid)
	f.Add("-{{.UID}}", 63, "pvc", "team-a", "data", uid)
	f.Add("{{.UID}}-", 63, "pvc", "team-a", "data", uid)
	f.Add("{{.Namespace}}-{{.Name}}", 63, "pvc", "team-a", "data", uid)
	f.Add("{{if .UID}}{{.UID}}{{end}}", 63, "pvc", "team-a", "data", uid)
	f.Add(`{{define "x"}}{{end}}{{.UID}}`, 63, "pvc", "team-a", "data", uid)
	f.Add(`{{printf "%s" .UID}}`, 63, "pvc", "team-a", "data", uid)
	f.Add(`{"template":"{{.Namespace}}-{{.Name}}-{{.UIDShort}}","prefix":"pvc","maxLength":63}`, 0, "", "team-a", "data", uid)
	f.Add(`{"template":"{{.UID}}","prefix":"a.b","maxLength":32}`, 0, "", strings.Repeat("n", 63), strings.Repeat("x.y", 80), uid)
	f.Fuzz(func(t *testing.T, tmpl string, maxLength int, prefix, namespace, name string, uidBytes []byte) {
		claims := []*v1.PersistentVolumeClaim{
			claimOf(fuzzLabel(namespace), fuzzSubdomain(name), fuzzUID(uidBytes)),
			claimOf(fuzzLabel(name), fuzzSubdomain(namespace), fuzzUID(append([]byte{1}, uidBytes...))),
			claimOf("a", "b", "00000000-0000-4000-8000-000000000000"),
		}

		// The fuzzer's string as a record someone wrote on a claim.
		if spec, err := volumename.ParseRecord(tmpl); err == nil {
			checkNames(t, spec, claims...)
		}

		n, err := volumename.New(volumename.Options{Prefix: prefix, UUIDLength: -1, Template: tmpl, MaxLength: maxLength})
		if utf8.ValidString(tmpl) && utf8.ValidString(prefix) && prefix != "" && tmpl != "" {
			record, _ := json.Marshal(volumename.Spec{Template: tmpl, Prefix: prefix, MaxLength: maxLength})
			if _, rerr := volumename.ParseRecord(string(record)); (err == nil) != (rerr == nil) {
				t.Fatalf("template %q, prefix %q, max %d: as a flag %v, as a record %v", tmpl, prefix, maxLength, err, rerr)
			}
		}
		if err != nil {
			return
		}
		spec := n.Current()
		if tmpl == "" {
			if spec != nil {
				t.Fatalf("no template, yet spec %+v", spec)
			}
			return
		}
		if spec == nil || spec.Template != tmpl || spec.Prefix != prefix || spec.MaxLength != maxLength {
			t.Fatalf("template %q, prefix %q, max %d: spec %+v", tmpl, prefix, maxLength, spec)
		}
		checkNames(t, spec, claims...)
		// Another sidecar with the same flags names alike.
		other, err := volumename.New(volumename.Options{Prefix: prefix, UUIDLength: -1, Template: tmpl, MaxLength: maxLength})
		if err != nil {
			t.Fatalf("accepted once, then %v", err)
		}
		for _, claim := range claims {
			a, _ := spec.Name(claim)
			if b, err := other.Current().Name(claim); err != nil || a != b {
				t.Fatalf("template %q: one namer names %q, another %q, %v", tmpl, a, b, err)
			}
		}
	})
}

// What the design promises of uniqueness, and no more: for one namespace
// and name, claims whose UIDs differ in their first 8 hex digits get
// different names from any accepted template ({{.UIDShort}} and {{.UID}}
// both show those digits), and claims with any two UIDs do from a template
// holding {{.UID}}. (Claims of different namespaces or names may meet by
// chance: "a-b"/"c" and "a"/"b-c" render alike, so only {{.UIDShort}}, at
// 2^-32, or the UID's position then tells them apart.) A cut name's 64-bit
// hash could in principle collide; no fuzzer finds such a pair.
func FuzzVolumeNameUniqueness(f *testing.F) {
	a := []byte{0x0b, 0x6d, 0x5f, 0xa4, 0x54, 0xc3, 0x4e, 0xa5, 0x9b, 0x3e, 0x1c, 0x2d, 0x3e, 0x4f, 0x5a, 0x6b}
	b := []byte{0x0b, 0x6d, 0x5f, 0xa5, 0x54, 0xc3, 0x4e, 0xa5, 0x9b, 0x3e, 0x1c, 0x2d, 0x3e, 0x4f, 0x5a, 0x6b}
	c := []byte{0x0b, 0x6d, 0x5f, 0xa4, 0x54, 0xc3, 0x4e, 0xa5, 0x9b, 0x3e, 0x1c, 0x2d, 0x3e, 0x4f, 0x5a, 0x6c}
	f.Add("{{.Namespace}}-{{.Name}}-{{.UIDShort}}", 63, "pvc", "team-a", "data", a, b, false)
	f.Add("{{.Namespace}}-{{.Name}}-{{.UIDShort}}", 32, "pvc", "analytics-prod", "warehouse.primary.replica", a, b, false)
	f.Add("{{.Prefix}}-{{.UID}}", 63, "pvc", "team-a", "data", a, c, true)
	f.Add("{{.UID}}", 32, "pvc", "team-a", "data", a, c, true)
	f.Add("{{.Namespace}}-{{.Name}}-{{.UID}}", 32, "pvc", strings.Repeat("n", 63), strings.Repeat("x", 200), a, c, true)
	f.Add(strings.Repeat("-", 20)+"{{.UID}}", 32, "pvc", "team-a", "data", a, c, true)
	f.Add("{{.UIDShort}}{{.Namespace}}{{.Name}}", 32, "p", "x", "y", a, b, false)
	f.Fuzz(func(t *testing.T, tmpl string, maxLength int, prefix, namespace, name string, uidA, uidB []byte, sameShort bool) {
		n, err := volumename.New(volumename.Options{Prefix: prefix, UUIDLength: -1, Template: tmpl, MaxLength: maxLength})
		if err != nil || n.Current() == nil {
			return
		}
		if sameShort {
			// The UIDs share their first 8 hex digits, which only
			// {{.UID}} tells apart.
			uidB = append(append([]byte{}, uidA[:min(4, len(uidA))]...), uidB[min(4, len(uidB)):]...)
		}
		x, y := fuzzUID(uidA), fuzzUID(uidB)
		if x == y {
			return
		}
		ns, claimName := fuzzLabel(namespace), fuzzSubdomain(name)
		spec := n.Current()
		nameX, errX := spec.Name(claimOf(ns, claimName, x))
		nameY, errY := spec.Name(claimOf(ns, claimName, y))
		if errX != nil || errY != nil {
			t.Fatalf("template %q: %v, %v", tmpl, errX, errY)
		}
		if nameX != nameY {
			return
		}
		if x[:8] != y[:8] {
			t.Fatalf("template %q, max %d: claims %s/%s with UIDs %s and %s both get %q", tmpl, maxLength, ns, claimName, x, y, nameX)
		}
		if usesUID(t, tmpl) {
			t.Fatalf("template %q holds {{.UID}}, max %d: claims %s/%s with UIDs %s and %s both get %q", tmpl, maxLength, ns, claimName, x, y, nameX)
		}
	})
}
