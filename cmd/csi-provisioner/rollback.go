package main

import (
	"context"
	"os"
	"strings"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
	"github.com/csi-protect/external-provisioner/pkg/rollback"
)

// Exit codes of --prepare-rollback.
const (
	exitRollbackReady      = 0
	exitRollbackNotReady   = 1
	exitRollbackFlagError  = 2
	exitRollbackCheckError = 3
)

const prepareRollbackHelp = `Check the whole cluster before this image is swapped back for upstream external-provisioner, print what upstream would mishandle and exit, instead of provisioning. The ` + "`mode`" + ` "report" changes nothing; "clear" first clears what is safe to clear (the provisioning-protection finalizer and its records on Bound claims, the claim condition), then reports. It connects to no CSI driver and starts no controller; it uses --kubeconfig, --master, --kube-api-qps and --kube-api-burst, or the pod's service account. Exit codes: 0 ready to swap back, 1 something needs you first (or, with "report", something to clear), 2 a flag error, 3 the check could not be made (e.g. the API server refused a list).`

// rollbackMode is --prepare-rollback, refusing any other value than
// rollback's modes.
type rollbackMode rollback.Mode

func (m *rollbackMode) Set(s string) error {
	mode, err := rollback.ParseMode(s)
	if err != nil {
		return err
	}
	*m = rollbackMode(mode)
	return nil
}

func (m *rollbackMode) String() string {
	if m == nil {
		return ""
	}
	return string(*m)
}

// rollbackAsked tells whether the command line names --prepare-rollback,
// whether or not it parsed.
func rollbackAsked(args []string) bool {
	for _, arg := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if strings.HasPrefix(arg, "-") && name == "prepare-rollback" {
			return true
		}
	}
	return false
}

// prepareRollback runs the check of --prepare-rollback and returns the
// exit code. The report goes to stdout, errors to stderr.
func prepareRollback(ctx context.Context, cfg *config, inv cmdutil.Invocation) int {
	fail := func(err error) int {
		inv.Fail(err)
		return exitRollbackCheckError
	}
	rc, err := restConfig(klog.FromContext(ctx), cfg, os.Getenv)
	if err != nil {
		return fail(err)
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return fail(err)
	}
	checker, err := rollback.New(rollback.Options{Client: client, Mode: cfg.prepareRollback, Out: inv.Stdout})
	if err != nil {
		return fail(err)
	}
	report, err := checker.Run(ctx)
	if err != nil {
		return fail(err)
	}
	if report.Verdict.Ready {
		return exitRollbackReady
	}
	return exitRollbackNotReady
}
