package parameters

import (
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"
)

// claimValuesInput is the claim the tests render parameters for.
func claimValuesInput() ClaimInput {
	return ClaimInput{
		PVName:    "pvc-0b6d5fa4-54c3-4ea5-9b3e-1c2d3e4f5a6b",
		Namespace: "team-a",
		Name:      "data",
		Metadata: ClaimMetadata{
			Labels: map[string]string{
				"app.kubernetes.io/name": "postgres",
				"tier":                   "gold",
				"empty":                  "",
			},
			Annotations: map[string]string{
				"example.com/backup-policy": "daily",
				"example.com/quota":         "10Gi",
			},
		},
	}
}

func TestClaimTokensAreFilledIn(t *testing.T) {
	for _, tc := range []struct {
		value, want string
		read        ClaimMetadata
	}{
		{"${pv.name}", "pvc-0b6d5fa4-54c3-4ea5-9b3e-1c2d3e4f5a6b", ClaimMetadata{}},
		{"${pvc.name}", "data", ClaimMetadata{}},
		{"${pvc.namespace}", "team-a", ClaimMetadata{}},
		{"/exports/${pvc.namespace}/${pvc.name}", "/exports/team-a/data", ClaimMetadata{}},
		{"${pvc.labels['tier']}", "gold", ClaimMetadata{Labels: map[string]string{"tier": "gold"}}},
		{"app=${pvc.labels['app.kubernetes.io/name']}", "app=postgres", ClaimMetadata{Labels: map[string]string{"app.kubernetes.io/name": "postgres"}}},
		{"${pvc.annotations['example.com/backup-policy']}", "daily", ClaimMetadata{Annotations: map[string]string{"example.com/backup-policy": "daily"}}},
		// A label set to "" is there: it renders as "".
		{"[${pvc.labels['empty']}]", "[]", ClaimMetadata{Labels: map[string]string{"empty": ""}}},
		// A key read twice is recorded once.
		{"${pvc.labels['tier']}-${pvc.labels['tier']}", "gold-gold", ClaimMetadata{Labels: map[string]string{"tier": "gold"}}},
		{"${pvc.name}:${pvc.labels['tier']}:${pvc.annotations['example.com/quota']}", "data:gold:10Gi",
			ClaimMetadata{Labels: map[string]string{"tier": "gold"}, Annotations: map[string]string{"example.com/quota": "10Gi"}}},
		{"$${pvc.name}", "$data", ClaimMetadata{}},
		{"${other}-${pvc.name}", "${other}-data", ClaimMetadata{}},
	} {
		t.Run(tc.value, func(t *testing.T) {
			out, read, err := RenderClaimTokens(map[string]string{"path": tc.value, "type": "ssd"}, claimValuesInput())
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]string{"path": tc.want, "type": "ssd"}; !maps.Equal(out, want) {
				t.Errorf("parameters %v, want %v", out, want)
			}
			// Only what a value read is recorded: not the claim's other
			// labels and annotations.
			if read == nil || !reflect.DeepEqual(*read, tc.read) {
				t.Errorf("read %+v, want %+v", read, tc.read)
			}
		})
	}
}

// The sidecar fills in only its own tokens: a '$' meant for the driver,
// or a ${…} of another name, is passed on as written.
func TestValuesWithoutClaimTokensPassUnchanged(t *testing.T) {
	for _, value := range []string{
		"",
		"ssd",
		"$",
		"$$",
		"costs 5$",
		"${",
		"${}",
		"}${",
		"${other}",
		"${HOME}/data",
		"$pvc.name",
		"${PVC.NAME}",
		"${pvc}",
		"${pv}",
		"${pvcname}",
		"${ pvc.name}",
		"${pvc.name",
		"prefix-${pvc.labels['tier']",
		"a}b{c",
		"${other} and ${pvc.name",
	} {
		out, read, err := RenderClaimTokens(map[string]string{"p": value}, claimValuesInput())
		if err != nil || out["p"] != value || read != nil {
			t.Errorf("%q: rendered %q, read %+v, %v; want it unchanged, nothing read", value, out["p"], read, err)
		}
	}
}

func TestParametersWithoutTokensReadNothing(t *testing.T) {
	for _, params := range []map[string]string{nil, {}, {"type": "ssd", "iops": "3000"}} {
		out, read, err := RenderClaimTokens(params, claimValuesInput())
		if err != nil || read != nil || !maps.Equal(out, params) || out == nil {
			t.Errorf("%v: got %v, %+v, %v", params, out, read, err)
		}
	}
}

// Tokens without labels or annotations are rendered too: the result says
// so with metadata that holds nothing, which is not nil.
func TestTokensWithoutMetadataReadEmptyMetadata(t *testing.T) {
	_, read, err := RenderClaimTokens(map[string]string{"a": "${pvc.name}", "b": "${pv.name}"}, claimValuesInput())
	if err != nil {
		t.Fatal(err)
	}
	if read == nil || read.Labels != nil || read.Annotations != nil {
		t.Fatalf("read %+v, want empty metadata", read)
	}
}

func TestMetadataReadByEveryParameterIsRecordedTogether(t *testing.T) {
	_, read, err := RenderClaimTokens(map[string]string{
		"a": "${pvc.labels['tier']}",
		"b": "${pvc.annotations['example.com/quota']}",
		"c": "${pvc.labels['app.kubernetes.io/name']}",
		"d": "plain",
	}, claimValuesInput())
	if err != nil {
		t.Fatal(err)
	}
	want := ClaimMetadata{
		Labels:      map[string]string{"tier": "gold", "app.kubernetes.io/name": "postgres"},
		Annotations: map[string]string{"example.com/quota": "10Gi"},
	}
	if read == nil || !reflect.DeepEqual(*read, want) {
		t.Fatalf("read %+v, want %+v", read, want)
	}
}

func TestRenderingLeavesTheClassParametersAlone(t *testing.T) {
	params := map[string]string{"path": "${pvc.name}", "type": "ssd"}
	out, _, err := RenderClaimTokens(params, claimValuesInput())
	if err != nil {
		t.Fatal(err)
	}
	out["type"] = "changed"
	if want := (map[string]string{"path": "${pvc.name}", "type": "ssd"}); !maps.Equal(params, want) {
		t.Fatalf("class parameters became %v", params)
	}
}

// A ${pvc.…} or ${pv.…} token the sidecar does not know is a mistake in
// the class, not a value for the driver.
func TestUnknownClaimTokensAreErrors(t *testing.T) {
	for _, value := range []string{
		"${pvc.uid}",
		"${pv.namespace}",
		"${pvc.}",
		"${pv.}",
		"${pvc.labels}",
		"${pvc.labels['tier'}",
		`${pvc.labels["tier"]}`,
		"${pvc.labels[tier]}",
		"${pvc.Name}",
		"ok-${pvc.name}-${pvc.annotation['x']}",
		"${pvc.\nname}",
	} {
		t.Run(value, func(t *testing.T) {
			out, read, err := RenderClaimTokens(map[string]string{"fine": "${pvc.name}", "param": value}, claimValuesInput())
			if out != nil || read != nil {
				t.Errorf("got %v, %+v with the error", out, read)
			}
			checkParamError(t, err, "param", ErrClaimTemplate, `parameter "param"`)
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines; it reaches the claim's events", err)
			}
		})
	}
}

// A claim that lacks a label or an annotation the class reads fails with
// one error naming every one of them, and the parameter reading each.
func TestMissingLabelsAndAnnotationsAreAllNamed(t *testing.T) {
	in := claimValuesInput()
	out, read, err := RenderClaimTokens(map[string]string{
		"a": "${pvc.labels['team']}-${pvc.labels['tier']}-${pvc.annotations['example.com/owner']}-${pvc.labels['team']}",
		"b": "${pvc.labels['team']}",
		"c": "${pvc.labels['tier']}",
		"d": "${pvc.annotations['example.com/tier']}",
	}, in)
	if out != nil || read != nil {
		t.Errorf("got %v, %+v with the error", out, read)
	}
	checkParamError(t, err, "a", ErrClaimTemplate, "")
	msg := err.Error()
	for _, want := range []string{
		`label "team" (parameter "a")`,
		`annotation "example.com/owner" (parameter "a")`,
		`label "team" (parameter "b")`,
		`annotation "example.com/tier" (parameter "d")`,
	} {
		if strings.Count(msg, want) != 1 {
			t.Errorf("error %q names %s %d times, want once", msg, want, strings.Count(msg, want))
		}
	}
	for _, unwanted := range []string{`label "tier"`, `parameter "c"`} {
		if strings.Contains(msg, unwanted) {
			t.Errorf("error %q names %s, which the claim has", msg, unwanted)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error %q is not one line", msg)
	}
}

// Labels and annotations are looked up where the token says: a label key
// is not found among the annotations, nor the other way round.
func TestLabelsAndAnnotationsAreNotMixedUp(t *testing.T) {
	for _, value := range []string{"${pvc.labels['example.com/quota']}", "${pvc.annotations['tier']}"} {
		_, _, err := RenderClaimTokens(map[string]string{"p": value}, claimValuesInput())
		if !errors.Is(err, ErrClaimTemplate) {
			t.Errorf("%q: err = %v, want the key missing", value, err)
		}
	}
}

// A retry or a replay renders with the metadata recorded at the first
// attempt, and asks the driver for the same parameters, whatever the
// claim's labels are by then.
func TestRecordedMetadataRendersTheSameParameters(t *testing.T) {
	params := map[string]string{
		"path":   "/${pvc.namespace}/${pvc.name}",
		"tier":   "${pvc.labels['tier']}",
		"policy": "${pvc.annotations['example.com/backup-policy']}",
	}
	first, read, err := RenderClaimTokens(params, claimValuesInput())
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := ParseClaimMetadata(read.Record())
	if err != nil {
		t.Fatal(err)
	}
	later := claimValuesInput()
	later.Metadata = recorded
	again, _, err := RenderClaimTokens(params, later)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(first, again) {
		t.Fatalf("first attempt %v, from the record %v", first, again)
	}
}

// The record's JSON is part of its format: claims keep it.
func TestClaimMetadataRecordFormat(t *testing.T) {
	for _, tc := range []struct {
		m    ClaimMetadata
		want string
	}{
		{ClaimMetadata{}, `{}`},
		{ClaimMetadata{Labels: map[string]string{"tier": "gold", "app": "db"}}, `{"labels":{"app":"db","tier":"gold"}}`},
		{ClaimMetadata{Annotations: map[string]string{"example.com/x": ""}}, `{"annotations":{"example.com/x":""}}`},
		{ClaimMetadata{Labels: map[string]string{"a": "1"}, Annotations: map[string]string{"b": "<&>"}}, `{"labels":{"a":"1"},"annotations":{"b":"\u003c\u0026\u003e"}}`},
	} {
		got := tc.m.Record()
		if got != tc.want {
			t.Errorf("Record() = %s, want %s", got, tc.want)
		}
		back, err := ParseClaimMetadata(got)
		if err != nil {
			t.Fatalf("ParseClaimMetadata(%s): %v", got, err)
		}
		if !reflect.DeepEqual(back, tc.m) {
			t.Errorf("ParseClaimMetadata(%s) = %+v, want %+v", got, back, tc.m)
		}
	}
}

func TestClaimMetadataRecordsThatAreNotMetadataAreRefused(t *testing.T) {
	for _, record := range []string{
		"",
		"gold",
		`{"labels":{"tier":1}}`,
		`{"labels":["tier"]}`,
		`{"labels":{"tier":"gold"},"selector":{}}`,
		`{"Labels":{"tier":"gold"},"extra":true}`,
		`[]`,
		`{"labels":{"tier":"gold"}} junk`,
		`{"annotations":{"a":"b"},"labels":{"tier":"gold"}}`,
	} {
		if m, err := ParseClaimMetadata(record); err == nil {
			t.Errorf("%q accepted as %+v", record, m)
		}
	}
}
