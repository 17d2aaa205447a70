package monitoring

import (
	"bytes"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// repo is the repository root, from this package's directory.
const repo = Repo("../../..")

const updateHint = "run hack/update-monitoring.sh and commit the result"

// The PrometheusRule is the rule file's groups, as the script writes it.
func TestPrometheusRuleCarriesTheRuleFilesGroups(t *testing.T) {
	rules, err := os.ReadFile(repo.Path(RulesFile))
	if err != nil {
		t.Fatal(err)
	}
	want, err := PrometheusRule(rules)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(repo.Path(PrometheusRuleFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not the wrapper of %s: %s", PrometheusRuleFile, RulesFile, updateHint)
	}
	// And, read as YAML, the same groups, whatever the text.
	groups, err := LoadRules(repo.Path(RulesFile))
	if err != nil {
		t.Fatal(err)
	}
	wrapped, err := PrometheusRuleGroups(repo.Path(PrometheusRuleFile))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(wrapped, groups.Groups) {
		t.Errorf("%s's spec.groups differ from %s's groups: %s", PrometheusRuleFile, RulesFile, updateHint)
	}
}

// Every alert has a severity, a summary, a description and a runbook that
// is a section of docs/observing.md.
func TestAlertsHaveLabelsAnnotationsAndRunbooks(t *testing.T) {
	groups, err := LoadRules(repo.Path(RulesFile))
	if err != nil {
		t.Fatal(err)
	}
	runbooks, err := os.ReadFile(repo.Path(RunbooksFile))
	if err != nil {
		t.Fatal(err)
	}
	anchors := headingAnchors(string(runbooks))
	const runbooksURL = "https://github.com/csi-protect/external-provisioner/blob/main/" + RunbooksFile + "#"
	alerts := 0
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts++
			switch r.Labels["severity"] {
			case "critical", "warning", "info":
			default:
				t.Errorf("%s: severity %q, want critical, warning or info", r.Alert, r.Labels["severity"])
			}
			for _, key := range []string{"summary", "description", "runbook_url"} {
				if strings.TrimSpace(r.Annotations[key]) == "" {
					t.Errorf("%s: no %s annotation", r.Alert, key)
				}
			}
			runbook := r.Annotations["runbook_url"]
			anchor, ok := strings.CutPrefix(runbook, runbooksURL)
			if !ok {
				t.Errorf("%s: runbook_url %s is not a section of %s (%s...)", r.Alert, runbook, RunbooksFile, runbooksURL)
				continue
			}
			if !anchors[anchor] {
				t.Errorf("%s: %s has no heading with the anchor #%s", r.Alert, RunbooksFile, anchor)
			}
			if want := strings.ToLower(r.Alert); anchor != want {
				t.Errorf("%s: runbook anchor #%s, want the alert's own section #%s", r.Alert, anchor, want)
			}
		}
	}
	if alerts == 0 {
		t.Error("no alert found")
	}
}

// headingAnchors are the anchors GitHub gives a markdown page's headings:
// lower case, punctuation but hyphens and underscores dropped, spaces as
// hyphens.
func headingAnchors(markdown string) map[string]bool {
	out := map[string]bool{}
	punctuation := regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	inCode := false
	for line := range strings.SplitSeq(markdown, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		title = strings.ReplaceAll(title, "`", "")
		anchor := strings.ReplaceAll(punctuation.ReplaceAllString(strings.ToLower(title), ""), " ", "-")
		out[anchor] = true
	}
	return out
}

// The dashboard has its two variables, every panel queries the chosen
// data source with non-empty PromQL that parses, and panel ids are unique.
func TestDashboard(t *testing.T) {
	d, err := LoadDashboard(repo.Path(DashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]Variable{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v
	}
	if v, ok := vars["datasource"]; !ok || v.Type != "datasource" || string(v.Query) != `"prometheus"` {
		t.Errorf("no datasource variable of Prometheus data sources: %+v", v)
	}
	if v, ok := vars["driver"]; !ok || v.Type != "query" {
		t.Errorf("no driver query variable: %+v", v)
	} else if q, err := v.QueryText(); err != nil || !strings.Contains(q, "driver_name") {
		t.Errorf("the driver variable's query %q (%v) does not list driver_name values", q, err)
	}
	for _, v := range d.Templating.List {
		if v.Type == "query" && (v.Datasource == nil || v.Datasource.UID != "${datasource}") {
			t.Errorf("variable %s does not query ${datasource}: %+v", v.Name, v.Datasource)
		}
	}

	ids := map[int]string{}
	var all []Panel
	all = append(all, d.Panels...)
	for _, p := range d.Panels {
		all = append(all, p.Panels...)
	}
	for _, p := range all {
		if other, dup := ids[p.ID]; dup || p.ID == 0 {
			t.Errorf("panel %q has id %d, also %q's (or none)", p.Title, p.ID, other)
		}
		ids[p.ID] = p.Title
	}
	panels := d.AllPanels()
	if len(panels) == 0 {
		t.Fatal("no panel")
	}
	for _, p := range panels {
		if strings.TrimSpace(p.Title) == "" {
			t.Errorf("panel %d has no title", p.ID)
		}
		if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q does not query ${datasource}: %+v", p.Title, p.Datasource)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, target := range p.Targets {
			if strings.TrimSpace(target.Expr) == "" {
				t.Errorf("panel %q target %s has an empty expression", p.Title, target.RefID)
				continue
			}
			if target.Datasource == nil || target.Datasource.UID != "${datasource}" {
				t.Errorf("panel %q target %s does not query ${datasource}", p.Title, target.RefID)
			}
		}
	}
	exprs, err := d.Expressions()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exprs {
		if _, err := Parser.ParseExpr(e.PromQL); err != nil {
			t.Errorf("%s: %v\n%s", e.Where, err, e.PromQL)
		}
	}
}

// The list of names the e2e test checks is the names the rules and the
// dashboard read.
func TestMetricNamesFileIsUpToDate(t *testing.T) {
	groups, err := LoadRules(repo.Path(RulesFile))
	if err != nil {
		t.Fatal(err)
	}
	d, err := LoadDashboard(repo.Path(DashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	names, err := ReadNames(groups, d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(repo.Path(MetricNamesFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := NamesFile(names); !bytes.Equal(got, want) {
		t.Errorf("%s is not the list of names the rules and the dashboard read: %s\nwant:\n%s", MetricNamesFile, updateHint, want)
	}
}
