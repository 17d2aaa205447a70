package controller

import (
	"maps"
	"strings"
	"testing"
)

func mustParseLabelKeys(t *testing.T, entries ...string) LabelKeys {
	t.Helper()
	keys, err := ParseLabelKeys(entries)
	if err != nil {
		t.Fatalf("ParseLabelKeys(%q): %v", entries, err)
	}
	return keys
}

// claimLabelsForSelect are a claim's labels of every kind: its own, an
// application's, and the Kubernetes domains'.
var claimLabelsForSelect = map[string]string{
	"app":                           "db",
	"team-a":                        "1",
	"teams":                         "2",
	"example.com/owner":             "alice",
	"example.com/cost-center":       "42",
	"sub.example.com/owner":         "bob",
	"example.org/owner":             "carol",
	"app.kubernetes.io/name":        "postgres",
	"app.kubernetes.io/instance":    "main",
	"kubernetes.io/hostname":        "node-1",
	"topology.kubernetes.io/zone":   "a",
	"node.kubernetes.io/instance":   "m5",
	"k8s.io/x":                      "1",
	"storage.k8s.io/y":              "2",
	"kubernetes.io.example.com/z":   "3",
	"notkubernetes.io/w":            "4",
	"pv.kubernetes.io/provisioned":  "yes",
	"provisioner.storage.k8s.io/id": "7",
}

func TestLabelKeysSelectWhatTheEntriesName(t *testing.T) {
	for _, tc := range []struct {
		entries []string
		want    map[string]string
	}{
		{[]string{"app"}, map[string]string{"app": "db"}},
		{[]string{"app", "example.com/owner"}, map[string]string{"app": "db", "example.com/owner": "alice"}},
		// A prefix ends in '*': of a domain, or of a key without one.
		{[]string{"example.com/*"}, map[string]string{"example.com/owner": "alice", "example.com/cost-center": "42"}},
		{[]string{"team-*"}, map[string]string{"team-a": "1"}},
		{[]string{"example.com/own*"}, map[string]string{"example.com/owner": "alice"}},
		// app.kubernetes.io is the applications' domain, not Kubernetes'.
		{[]string{"app.kubernetes.io/name"}, map[string]string{"app.kubernetes.io/name": "postgres"}},
		{[]string{"app.kubernetes.io/*"}, map[string]string{"app.kubernetes.io/name": "postgres", "app.kubernetes.io/instance": "main"}},
		// Domains that only look like the reserved ones are not.
		{[]string{"kubernetes.io.example.com/z", "notkubernetes.io/w"}, map[string]string{"kubernetes.io.example.com/z": "3", "notkubernetes.io/w": "4"}},
		// Surrounding spaces and empty entries are ignored.
		{[]string{" app ", "", "  "}, map[string]string{"app": "db"}},
	} {
		t.Run(strings.Join(tc.entries, ","), func(t *testing.T) {
			got := mustParseLabelKeys(t, tc.entries...).Select(claimLabelsForSelect)
			if !maps.Equal(got, tc.want) {
				t.Errorf("Select = %v, want %v", got, tc.want)
			}
		})
	}
}

// Kubernetes reads labels of its domains on a PV (the zone decides where
// a pod may run): a claim's author must not set them through the claim,
// even when every label is copied.
func TestLabelKeysNeverSelectKubernetesDomains(t *testing.T) {
	want := map[string]string{}
	for k, v := range claimLabelsForSelect {
		if d, _, _ := strings.Cut(k, "/"); d != "kubernetes.io" && d != "k8s.io" && !strings.HasSuffix(d, ".kubernetes.io") && !strings.HasSuffix(d, ".k8s.io") || d == "app.kubernetes.io" {
			want[k] = v
		}
	}
	for _, entries := range [][]string{{"*"}, {"*", "app"}, {"kube*"}, {"k8s*", "topology*", "node*", "pv*", "provisioner*", "storage*"}} {
		got := mustParseLabelKeys(t, entries...).Select(claimLabelsForSelect)
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%q selects %q", entries, k)
			}
		}
		if entries[0] == "*" && !maps.Equal(got, want) {
			t.Errorf("%q selects %v, want every label outside the Kubernetes domains: %v", entries, got, want)
		}
	}
}

func TestLabelKeysInKubernetesDomainsAreRefused(t *testing.T) {
	for _, entry := range []string{
		"kubernetes.io/hostname",
		"topology.kubernetes.io/zone",
		"node.kubernetes.io/instance-type",
		"pv.kubernetes.io/provisioned-by",
		"k8s.io/x",
		"storage.k8s.io/y",
		"provisioner.storage.k8s.io/id",
		"x.app.kubernetes.io/name",
		"kubernetes.io/*",
		"topology.kubernetes.io/*",
		"topology.kubernetes.io/zo*",
		"k8s.io/*",
		"a.b.k8s.io/*",
	} {
		t.Run(entry, func(t *testing.T) {
			_, err := ParseLabelKeys([]string{"app", entry})
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), entry) || !strings.Contains(err.Error(), "Kubernetes domain") {
				t.Errorf("error %q does not name %q as in a Kubernetes domain", err, entry)
			}
		})
	}
}

// An entry no label key can match is a typo: refused at start.
func TestLabelKeysThatNoLabelCanHaveAreRefused(t *testing.T) {
	for _, entry := range []string{
		"Bad Key",
		"-app",
		"app-",
		"a/b/c",
		"example.com/",
		"/app",
		"Example.com/app",
		"example..com/*",
		"-example.com/*",
		"exa mple/*",
		"team_*x",
		"**",
		"a*b",
		strings.Repeat("k", 64),
	} {
		t.Run(entry, func(t *testing.T) {
			_, err := ParseLabelKeys([]string{entry})
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), entry) {
				t.Errorf("error %q does not name %q", err, entry)
			}
		})
	}
}

func TestLabelKeysSelectNilWhenNothingIsSelected(t *testing.T) {
	for _, tc := range []struct {
		entries []string
		labels  map[string]string
	}{
		{nil, claimLabelsForSelect},
		{[]string{"", " "}, claimLabelsForSelect},
		{[]string{"absent"}, claimLabelsForSelect},
		{[]string{"*"}, nil},
		{[]string{"*"}, map[string]string{}},
		{[]string{"*"}, map[string]string{"kubernetes.io/hostname": "n"}},
	} {
		keys := mustParseLabelKeys(t, tc.entries...)
		if got := keys.Select(tc.labels); got != nil {
			t.Errorf("%q of %v: Select = %#v, want nil", tc.entries, tc.labels, got)
		}
	}
	if !mustParseLabelKeys(t, "", " ").Empty() || mustParseLabelKeys(t, "app").Empty() {
		t.Error("Empty() must tell whether any entry was given")
	}
}

// The PV gets a map of its own: writing it leaves the claim's labels.
func TestLabelKeysSelectACopy(t *testing.T) {
	labels := map[string]string{"app": "db"}
	got := mustParseLabelKeys(t, "*").Select(labels)
	got["app"] = "changed"
	if labels["app"] != "db" {
		t.Fatalf("the claim's labels became %v", labels)
	}
}
