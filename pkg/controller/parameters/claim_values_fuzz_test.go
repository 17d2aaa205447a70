package parameters

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// renderTwice renders params for in twice, and fails unless both give the
// same: rendering is deterministic.
func renderTwice(t *testing.T, params map[string]string, in ClaimInput) (map[string]string, *ClaimMetadata, error) {
	t.Helper()
	out, read, err := RenderClaimTokens(params, in)
	out2, read2, err2 := RenderClaimTokens(params, in)
	if !maps.Equal(out, out2) || !reflect.DeepEqual(read, read2) || fmt.Sprint(err) != fmt.Sprint(err2) {
		t.Fatalf("%q: rendered %v, %+v, %v, then %v, %+v, %v", params, out, read, err, out2, read2, err2)
	}
	if err != nil {
		var perr *ParamError
		if !errors.As(err, &perr) || !errors.Is(err, ErrClaimTemplate) {
			t.Fatalf("%q: error %v (%T) is not a *ParamError of ErrClaimTemplate", params, err, err)
		}
		if _, ok := params[perr.Key]; !ok {
			t.Fatalf("%q: error names parameter %q, which the class does not have", params, perr.Key)
		}
		if out != nil || read != nil {
			t.Fatalf("%q: error %v with %v, %+v", params, err, out, read)
		}
	}
	return out, read, err
}

// Whatever values a class holds, rendering them answers without
// panicking, deterministically, with a *ParamError or with the values
// where they hold no claim token; and where every label and annotation a
// value reads is there, it fills them in and records exactly them.
func FuzzRenderClaimTokens(f *testing.F) {
	f.Add("/exports/${pvc.namespace}/${pvc.name}", "tier", "gold", "example.com/policy", "daily", "-")
	f.Add("${pvc.labels['tier']}", "tier", "gold", "a", "b", "x")
	f.Add("${pvc.annotations['example.com/policy']}", "tier", "", "example.com/policy", "", "")
	f.Add("$${pv.name}$", "k", "v", "k", "v", "$")
	f.Add("${other}${pvc.name", "app.kubernetes.io/name", "db", "x", "y", "}")
	f.Add("${pvc.uid}", "k", "v", "k", "v", "${")
	f.Add("${pvc.labels['missing']}\ntype=${pvc.labels['tier']}", "tier", "gold", "", "", "{")
	f.Add("a=${x ${pvc.name}}\nb=${pv.name}", "a']b", "c", "}", "}", "${pvc.labels['")
	f.Add("costs 5$, ${HOME}", "k", "v\n", "k", "\xff", "$ {")
	f.Fuzz(func(t *testing.T, value, labelKey, labelValue, annKey, annValue, text string) {
		in := ClaimInput{
			PVName: "pvc-0b6d5fa4", Namespace: "team-a", Name: "data",
			Metadata: ClaimMetadata{
				Labels:      map[string]string{labelKey: labelValue},
				Annotations: map[string]string{annKey: annValue},
			},
		}

		// One value of any text.
		out, read, err := renderTwice(t, map[string]string{"p": value}, in)
		if !strings.Contains(value, "${pv") && (err != nil || out["p"] != value || read != nil) {
			t.Fatalf("%q holds no claim token: rendered %q, read %+v, %v", value, out["p"], read, err)
		}
		if err == nil && read == nil && out["p"] != value {
			t.Fatalf("%q: nothing read, yet rendered %q", value, out["p"])
		}

		// Many parameters of any keys and values.
		params := fuzzParams(value + "\n" + text)
		if out, _, err := renderTwice(t, params, in); err == nil {
			for k, v := range params {
				if !strings.Contains(v, "${") && out[k] != v {
					t.Fatalf("%q: parameter %q = %q became %q", params, k, v, out[k])
				}
			}
		}

		// Text around tokens whose labels and annotations the claim has.
		// The text holds no "${" of its own, which could swallow a token,
		// and a key no '}', which would end it.
		plain := func(s string) string { return strings.ReplaceAll(s, "${", "$ {") }
		lk, ak := strings.ReplaceAll(labelKey, "}", ""), strings.ReplaceAll(annKey, "}", "")
		in.Metadata = ClaimMetadata{Labels: map[string]string{lk: labelValue}, Annotations: map[string]string{ak: annValue}}
		tmpl := plain(value) + "${pvc.labels['" + lk + "']}" + plain(text) + "${pvc.annotations['" + ak + "']}" +
			"/${pvc.namespace}/${pvc.name}/${pv.name}/${pvc.labels['" + lk + "']}"
		out, read, err = renderTwice(t, map[string]string{"p": tmpl, "q": plain(text)}, in)
		if err != nil {
			t.Fatalf("%q: every key is there, yet %v", tmpl, err)
		}
		want := plain(value) + labelValue + plain(text) + annValue + "/team-a/data/pvc-0b6d5fa4/" + labelValue
		if out["p"] != want || out["q"] != plain(text) {
			t.Fatalf("%q rendered %q, want %q", tmpl, out["p"], want)
		}
		if wantRead := in.Metadata; read == nil || !reflect.DeepEqual(*read, wantRead) {
			t.Fatalf("%q: read %+v, want %+v", tmpl, read, wantRead)
		}
		if utf8.ValidString(lk) && utf8.ValidString(labelValue) && utf8.ValidString(ak) && utf8.ValidString(annValue) {
			// JSON holds only valid UTF-8; the API server's strings are.
			recorded, err := ParseClaimMetadata(read.Record())
			if err != nil || !reflect.DeepEqual(recorded, *read) {
				t.Fatalf("record %s read back as %+v, %v", read.Record(), recorded, err)
			}
		}

		// The same with a label the claim lacks.
		missing := lk + "-missing"
		_, _, err = renderTwice(t, map[string]string{"p": tmpl + "${pvc.labels['" + missing + "']}"}, in)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("label %q", missing)) {
			t.Fatalf("label %q is missing, yet %v", missing, err)
		}
	})
}
