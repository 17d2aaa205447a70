package framework

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// auditPolicy records every request at Metadata level: who, what, user agent
// and response code, without bodies. RequestReceived is omitted so that an
// ordinary request is one event (ResponseComplete); a watch also has a
// ResponseStarted event.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
`

// Audit event stages kept by the policy.
const (
	AuditStageResponseStarted  = "ResponseStarted"
	AuditStageResponseComplete = "ResponseComplete"
	AuditStagePanic            = "Panic"
)

// AuditEvent is the part of a kube-apiserver audit event that tests look at,
// e.g. to count the API calls a client made (by UserAgent or User).
type AuditEvent struct {
	AuditID        string               `json:"auditID"`
	Stage          string               `json:"stage"`
	RequestURI     string               `json:"requestURI"`
	Verb           string               `json:"verb"`
	User           AuditUser            `json:"user"`
	UserAgent      string               `json:"userAgent"`
	ObjectRef      *AuditObjectRef      `json:"objectRef,omitempty"`
	ResponseStatus *AuditResponseStatus `json:"responseStatus,omitempty"`
	// RequestReceived is when kube-apiserver received the request.
	RequestReceived time.Time `json:"requestReceivedTimestamp"`
}

// AuditUser is the authenticated requester.
type AuditUser struct {
	Username string   `json:"username"`
	Groups   []string `json:"groups"`
}

// AuditObjectRef names the object a request was about.
type AuditObjectRef struct {
	Resource    string `json:"resource"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	APIGroup    string `json:"apiGroup"`
	Subresource string `json:"subresource"`
}

// AuditResponseStatus is the response code of a request.
type AuditResponseStatus struct {
	Code int `json:"code"`
}

// ErrNoAuditLog is returned by Cluster.AuditEvents when the cluster was
// started without ClusterOptions.AuditLog.
var ErrNoAuditLog = errors.New("cluster started without an audit log")

// readAuditLog parses the JSON-lines audit log at path. A line still being
// written when the file is read is skipped rather than failing the read.
func readAuditLog(path string) ([]AuditEvent, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var events []AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var ev AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			continue
		}
		events = append(events, ev)
	}
	if err := sc.Err(); err != nil {
		return events, fmt.Errorf("read audit log %s: %w", path, err)
	}
	return events, nil
}
