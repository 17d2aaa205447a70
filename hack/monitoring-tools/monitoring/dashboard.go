package monitoring

import (
	"encoding/json"
	"fmt"
	"os"
)

// Dashboard is the part of a Grafana dashboard's JSON model the checks
// read.
type Dashboard struct {
	Title      string  `json:"title"`
	UID        string  `json:"uid"`
	Panels     []Panel `json:"panels"`
	Templating struct {
		List []Variable `json:"list"`
	} `json:"templating"`
}

// Panel is a panel, or a row with its collapsed panels.
type Panel struct {
	ID         int            `json:"id"`
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Datasource *DataSourceRef `json:"datasource"`
	Targets    []Target       `json:"targets"`
	Panels     []Panel        `json:"panels"`
}

// Target is one query of a panel.
type Target struct {
	RefID      string         `json:"refId"`
	Expr       string         `json:"expr"`
	Datasource *DataSourceRef `json:"datasource"`
}

// DataSourceRef names a data source, here the dashboard's variable.
type DataSourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// Variable is a template variable.
type Variable struct {
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Query      json.RawMessage `json:"query"`
	Datasource *DataSourceRef  `json:"datasource"`
}

// QueryText is a query variable's query, which Grafana stores as a string
// or as an object with a query field.
func (v Variable) QueryText() (string, error) {
	if len(v.Query) == 0 {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v.Query, &s); err == nil {
		return s, nil
	}
	var obj struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(v.Query, &obj); err != nil {
		return "", fmt.Errorf("variable %s: query is neither a string nor an object with a query: %w", v.Name, err)
	}
	return obj.Query, nil
}

// LoadDashboard reads a dashboard's JSON model.
func LoadDashboard(path string) (*Dashboard, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d := &Dashboard{}
	if err := json.Unmarshal(data, d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// AllPanels lists every panel, those of collapsed rows too, without the
// rows themselves.
func (d *Dashboard) AllPanels() []Panel {
	var out []Panel
	var walk func([]Panel)
	walk = func(panels []Panel) {
		for _, p := range panels {
			if p.Type == "row" {
				walk(p.Panels)
				continue
			}
			out = append(out, p)
		}
	}
	walk(d.Panels)
	return out
}

// Expression is a PromQL expression of the dashboard, with where it is.
type Expression struct {
	Where  string
	PromQL string
}

// Expressions lists the PromQL of every panel target, Grafana's interval
// variables replaced, and the series selector of every label_values
// variable query.
func (d *Dashboard) Expressions() ([]Expression, error) {
	var out []Expression
	for _, p := range d.AllPanels() {
		for _, t := range p.Targets {
			out = append(out, Expression{Where: fmt.Sprintf("panel %q target %s", p.Title, t.RefID), PromQL: FromGrafana(t.Expr)})
		}
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		q, err := v.QueryText()
		if err != nil {
			return nil, err
		}
		if sel, ok := VariableSelector(q); ok {
			out = append(out, Expression{Where: "variable " + v.Name, PromQL: sel})
		}
	}
	return out, nil
}
