// Command update-monitoring writes the files of deploy/monitoring that are
// made from others: the PrometheusRule wrapper of the rule file, and the
// list of metric names the rules and the dashboard read. hack/update-monitoring.sh
// runs it; make test fails while either is out of date.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/csi-protect/external-provisioner/hack/monitoring-tools/monitoring"
)

func main() {
	root := flag.String("root", "../..", "the repository root")
	flag.Parse()
	if err := update(monitoring.Repo(*root)); err != nil {
		fmt.Fprintln(os.Stderr, "update-monitoring:", err)
		os.Exit(1)
	}
}

func update(repo monitoring.Repo) error {
	rules, err := os.ReadFile(repo.Path(monitoring.RulesFile))
	if err != nil {
		return err
	}
	groups, err := monitoring.LoadRules(repo.Path(monitoring.RulesFile))
	if err != nil {
		return err
	}
	wrapper, err := monitoring.PrometheusRule(rules)
	if err != nil {
		return err
	}
	dashboard, err := monitoring.LoadDashboard(repo.Path(monitoring.DashboardFile))
	if err != nil {
		return err
	}
	names, err := monitoring.ReadNames(groups, dashboard)
	if err != nil {
		return err
	}
	if err := os.WriteFile(repo.Path(monitoring.PrometheusRuleFile), wrapper, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(repo.Path(monitoring.MetricNamesFile), monitoring.NamesFile(names), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s and %s (%d metric names)\n", monitoring.PrometheusRuleFile, monitoring.MetricNamesFile, len(names))
	return nil
}
