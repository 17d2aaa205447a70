package agent

import "strings"

// reportOnce records an event once per key; it returns whether it did.
func (a *Agent) reportOnce(key string, emit func()) bool {
	a.reportedMu.Lock()
	seen := a.reported[key]
	a.reported[key] = true
	a.reportedMu.Unlock()
	if !seen {
		emit()
	}
	return !seen
}

// forgetReports drops the remembered reports with the prefix, so a problem
// that comes back after being solved is announced again.
func (a *Agent) forgetReports(prefix string) {
	a.reportedMu.Lock()
	defer a.reportedMu.Unlock()
	for k := range a.reported {
		if strings.HasPrefix(k, prefix) {
			delete(a.reported, k)
		}
	}
}
