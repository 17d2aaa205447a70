package monitoring

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// MetricNames returns the metric names expr selects, sorted and unique.
// A selector without a name, or whose name is not matched exactly, is an
// error: a check of served names could not follow it.
func MetricNames(expr string) ([]string, error) {
	parsed, err := Parser.ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	var names []string
	var problems []string
	parser.Inspect(parsed, func(node parser.Node, _ []parser.Node) error {
		vs, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		name := vs.Name
		if name == "" {
			for _, m := range vs.LabelMatchers {
				if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
					name = m.Value
				}
			}
		}
		if name == "" {
			problems = append(problems, vs.String())
			return nil
		}
		names = append(names, name)
		return nil
	})
	if len(problems) > 0 {
		return nil, fmt.Errorf("selectors without a metric name: %s", strings.Join(problems, ", "))
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// grafanaIntervals are Grafana's built-in interval variables, replaced by
// a duration before an expression is parsed.
var grafanaIntervals = regexp.MustCompile(`\$__(rate_interval|interval|range)\b|\$\{__(rate_interval|interval|range)\}`)

// FromGrafana turns a dashboard expression into PromQL: Grafana's interval
// variables become 5m. Other variables stay: the dashboard uses them only
// inside label matcher strings ("$driver"), where PromQL accepts them.
func FromGrafana(expr string) string {
	return grafanaIntervals.ReplaceAllString(expr, "5m")
}

// labelValues is a Grafana variable query of the Prometheus data source
// that names a metric: label_values(selector, label).
var labelValues = regexp.MustCompile(`^\s*label_values\((.+),\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)\s*$`)

// VariableSelector returns the series selector of a label_values query,
// and false for queries of another form.
func VariableSelector(query string) (string, bool) {
	m := labelValues.FindStringSubmatch(query)
	if m == nil {
		return "", false
	}
	return m[1], true
}
