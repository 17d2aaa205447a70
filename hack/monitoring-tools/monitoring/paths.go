package monitoring

import "path/filepath"

// Paths of deploy/monitoring's files, relative to the repository root.
const (
	RulesFile          = "deploy/monitoring/rules/csi-provisioner.rules.yaml"
	PrometheusRuleFile = "deploy/monitoring/prometheus-rules.yaml"
	RulesTestsFile     = "deploy/monitoring/rules-tests.yaml"
	DashboardFile      = "deploy/monitoring/grafana-dashboard.json"
	MetricNamesFile    = "deploy/monitoring/metric-names.txt"
	// RunbooksFile holds a section per alert, its runbook.
	RunbooksFile = "docs/observing.md"
)

// Repo locates files under a repository root.
type Repo string

// Path is the path of rel, a path relative to the root.
func (r Repo) Path(rel string) string { return filepath.Join(string(r), filepath.FromSlash(rel)) }
