// Package cmdutil holds what the project's commands (csi-provisioner and
// local-volume-agent) share: flag helpers, the API client configuration
// with its KUBECONFIG rule, and the event recorder.
package cmdutil
