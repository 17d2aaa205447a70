// Package cmdutil holds what the project's commands (csi-provisioner and
// local-volume-agent) share: start-up (flag errors, help, --version), flag
// helpers, the API client configuration with its KUBECONFIG rule, the event
// recorder and the HTTP server.
package cmdutil
